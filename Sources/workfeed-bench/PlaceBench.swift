import Foundation
import WorkFeedModel
import WorkFeedPlaces

/// The "places" group: the shipped places file (docs/places.md). Opening it (read, checked and its
/// grid built) and a lookup of a position's place (``PlaceMap/place(latitude:longitude:)``) at
/// random positions anywhere and in Europe (dense: about 60 places in a cell). Thread CPU time,
/// medians of `--runs` runs.
enum PlaceBench {
    static let lookupsPerRun = 100_000

    static func run(options: BenchOptions) throws {
        guard let url = PlaceMap.candidateFiles().first(where: { FileManager.default.isReadableFile(atPath: $0.path) }) else {
            throw TimeZoneBench.BenchFailure("no \(PlaceMap.fileName) beside the bench (swift build copies it)")
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        print("## places (\(url.lastPathComponent): \(bytes.count) bytes; thread CPU time, median of \(options.runs) runs after 3 warm-ups)")
        var opened: PlaceMap?
        let open = Measure.wallAndCPU(runs: max(3, options.runs / 4)) { opened = try? PlaceMap(bytes: bytes) }
        let map = try PlaceMap(bytes: bytes)
        _ = opened
        print("open, check and grid: \(Measure.format(Measure.milliseconds(Measure.median(open.cpu)))) ms, \(map.count) places, \(map.source)")

        var generator = SplitMix64(seed: 35)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(generator.next() >> 11) / Double(1 << 53)
        }
        let anywhere = (0..<lookupsPerRun).map { _ in (uniform(-90...90), uniform(-180...180)) }
        let europe = (0..<lookupsPerRun).map { _ in (uniform(43...55), uniform(-2...20)) }
        var named = 0
        for (name, positions) in [("anywhere", anywhere), ("in Europe", europe)] {
            named = 0
            let times = Measure.wallAndCPU(runs: options.runs) {
                named = 0
                for (latitude, longitude) in positions where map.place(latitude: latitude, longitude: longitude) != nil { named += 1 }
            }
            let nanoseconds = Measure.milliseconds(Measure.median(times.cpu)) * 1e6 / Double(positions.count)
            print("lookup \(name): \(Measure.format(nanoseconds, 1)) ns a position (\(positions.count) a run, \(named) named)")
        }
    }
}
