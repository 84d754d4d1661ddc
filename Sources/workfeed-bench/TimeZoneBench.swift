import Foundation
import WorkFeedImport
import WorkFeedModel
import WorkFeedTimeZones

/// The "timezones" group: the shipped boundary file (docs/timezones.md). Opening it (read and
/// every entry checked), a lookup of a position's zone (``TimeZoneMap/zone(latitude:longitude:)``)
/// at random positions on the globe and at positions on land, and a whole decision for a
/// workout (``WorkoutTimeZone/resolved(_:map:)``: the lookup, Foundation's `TimeZone` and the
/// offset at the start). Thread CPU time, medians of `--runs` runs.
enum TimeZoneBench {
    static let lookupsPerRun = 200_000

    static func run(options: BenchOptions) throws {
        let url = try TimeZoneMap.candidateFiles().first { FileManager.default.isReadableFile(atPath: $0.path) }
            .orThrow("no \(TimeZoneMap.fileName) beside the bench (swift build copies it)")
        let bytes = [UInt8](try Data(contentsOf: url))
        print("## timezones (\(url.lastPathComponent): \(bytes.count) bytes; thread CPU time, median of \(options.runs) runs after 3 warm-ups)")

        var map: TimeZoneMap?
        let open = Measure.wallAndCPU(runs: max(3, options.runs / 4)) { map = try? TimeZoneMap(bytes: bytes) }
        guard let map else { throw BenchFailure("the shipped file does not open: \(String(describing: try? TimeZoneMap(bytes: bytes)))") }
        print("open and check: \(Measure.format(Measure.milliseconds(Measure.median(open.cpu)))) ms, \(map.zoneNames.count - 1) zones, \(map.source)")

        var generator = SplitMix64(seed: 24)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(generator.next() >> 11) / Double(1 << 53)
        }
        let anywhere = (0..<lookupsPerRun).map { _ in (uniform(-90...90), uniform(-180...180)) }
        // Positions on land: random ones that hit a land zone, so that each lookup walks its cell's tree.
        var land: [(Double, Double)] = []
        while land.count < lookupsPerRun {
            let position = (uniform(-60...75), uniform(-180...180))
            if map.landZoneIndex(latitude: position.0, longitude: position.1) != nil { land.append(position) }
        }
        var sink = 0
        for (name, positions) in [("anywhere", anywhere), ("on land", land)] {
            let times = Measure.wallAndCPU(runs: options.runs) {
                for (latitude, longitude) in positions { sink &+= map.zone(latitude: latitude, longitude: longitude)?.utf8.count ?? 0 }
            }
            let nanoseconds = Measure.milliseconds(Measure.median(times.cpu)) * 1e6 / Double(positions.count)
            print("lookup \(name): \(Measure.format(nanoseconds, 1)) ns a position (\(positions.count) a run)")
        }

        // A whole decision, as the import makes it for each workout.
        let start = Date(timeIntervalSince1970: 1_625_000_000)
        let workouts = land.prefix(20_000).map { latitude, longitude in
            ImportedWorkout(
                source: .gpx, route: Route(segments: [[RoutePoint(latitude: latitude, longitude: longitude, time: start)]]), origin: "bench")
        }
        let resolve = Measure.wallAndCPU(runs: max(3, options.runs / 4)) {
            for workout in workouts { sink &+= WorkoutTimeZone.resolved(workout, map: .success(map)).timeZoneOffset ?? 0 }
        }
        let microseconds = Measure.milliseconds(Measure.median(resolve.cpu)) * 1e3 / Double(workouts.count)
        print("a workout's zone and offset (lookup, TimeZone, offset at the start): \(Measure.format(microseconds, 2)) us (\(workouts.count) a run)")
        if sink == 42 { print("") }
    }

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension Optional {
    fileprivate func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw TimeZoneBench.BenchFailure(message) }
        return self
    }
}
