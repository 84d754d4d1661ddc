import Foundation
import Logging
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle
import WorkFeedTiles

/// The "tileset" group (issue 35, part 2): what a tileset costs a worker, for the small archives
/// and the planet-shaped one (deploy/make-planet.py), from a file or a URL: opening it (time,
/// CPU, resident memory added), tile lookups cold (leaf directories and tiles read) and warm
/// (leaf directories at hand), and the map group's pictures drawn from it, first and warm, with
/// the SHA-256 of each PNG (the cache key is fixed, so equal digests mean equal pictures).
enum TilesetBench {
    static func run(options: BenchOptions) throws {
        guard !options.tilesets.isEmpty else { throw BenchError("the tileset group needs --tilesets LOCATION[,LOCATION]") }
        let logger = Logger(label: "bench")
        let bounds = options.lookupBounds
        print(
            "## tileset (\(options.lookups) lookups of tiles z10-14 at random in \(bounds.west),\(bounds.south),\(bounds.east),\(bounds.north);"
                + " pictures 512x512 @1x light, median of \(options.runs) after 3 warm-ups, one thread)")
        for location in options.tilesets {
            let residentBefore = Measure.residentMiB() ?? 0
            let clock = ContinuousClock()
            var started = clock.now
            var startedCPU = Measure.threadCPUTime()
            let source = try Tileset.open(Tileset.location(location))
            let openWall = clock.now - started
            let openCPU = Measure.threadCPUTime() - startedCPU
            let residentAfter = Measure.residentMiB() ?? 0
            print(
                "\(location): \(source.info.tileCount) tiles addressed; open \(ms(openWall)) ms (CPU \(ms(openCPU)) ms),"
                    + " resident +\(Measure.format(residentAfter - residentBefore, 1)) MiB")

            // The R2 low-discrepancy sequence: the same places every run, spread evenly over the bounds.
            let coordinates = (0..<options.lookups).map { index in
                let step = Double(index + 1)
                let u = (step * 0.754_877_666_246_692_8).truncatingRemainder(dividingBy: 1)
                let v = (step * 0.569_840_290_998_053_3).truncatingRemainder(dividingBy: 1)
                let lon = bounds.west + (bounds.east - bounds.west) * u
                let lat = bounds.south + (bounds.north - bounds.south) * v
                return tile(z: 10 + index % 5, longitude: lon, latitude: lat)
            }
            for pass in ["cold", "warm"] {
                var times: [Duration] = []
                var found = 0
                var bytes = 0
                started = clock.now
                startedCPU = Measure.threadCPUTime()
                for coordinate in coordinates {
                    let one = clock.now
                    if let data = try source.tileData(at: coordinate) {
                        found += 1
                        bytes += data.count
                    }
                    times.append(clock.now - one)
                }
                let cpu = Measure.threadCPUTime() - startedCPU
                let total = clock.now - started
                let sorted = times.sorted()
                print(
                    "  lookups \(pass): \(found) of \(coordinates.count) found, \(bytes) B; a lookup median \(us(Measure.median(times))) µs,"
                        + " p99 \(us(sorted[sorted.count * 99 / 100])) µs, mean \(us(total / coordinates.count)) µs"
                        + " (CPU \(us(cpu / coordinates.count)) µs)")
            }

            for area in try MapBench.areas() {
                guard let shipped = ThemeStyle.shipped[.light] else { throw BenchError("no shipped light theme") }
                let basemap = try Basemap(tilesetLocations: [location], logger: logger)
                let renderer = Renderer(basemap: basemap)
                let spec = PictureSpec(
                    kind: .route, theme: .light, width: 512, height: 512, scale: 1, style: shipped.route, heatmap: .standard,
                    ramp: RampStyle.standard(for: .route, activity: .running, units: .metric), map: shipped.map,
                    basemap: basemap.identity.hash)
                started = clock.now
                startedCPU = Measure.threadCPUTime()
                var png = try renderer.render(spec: spec, route: area.workout.route, heartRate: area.workout.heartRate, cacheKey: "bench")
                let firstCPU = Measure.threadCPUTime() - startedCPU
                let first = clock.now - started
                let statistics = renderer.lastStatistics
                let times = try Measure.wallAndCPU(runs: options.runs) {
                    png = try renderer.render(spec: spec, route: area.workout.route, heartRate: area.workout.heartRate, cacheKey: "bench")
                }
                print(
                    "  picture \(RenderBench.pad(area.name, 14)) first \(ms(first)) ms (CPU \(ms(firstCPU))), then \(ms(Measure.median(times.wall))) ms"
                        + " (CPU \(ms(Measure.median(times.cpu)))); \(statistics.mapTiles) tiles \(statistics.mapCoverage.rawValue),"
                        + " \(png.count) B, sha256 \(SHA256.hex(png).prefix(16))")
            }
        }
        if let peak = Measure.peakResidentMiB() {
            print("  peak resident memory (VmHWM): \(Measure.format(peak, 1)) MiB")
        }
    }

    private static func ms(_ duration: Duration) -> String { Measure.format(Measure.milliseconds(duration)) }
    private static func us(_ duration: Duration) -> String { Measure.format(Measure.milliseconds(duration) * 1000, 1) }

    /// The Web Mercator tile at zoom `z` holding the position.
    static func tile(z: Int, longitude: Double, latitude: Double) -> TileCoordinate {
        let side = Double(1 << z)
        let x = (longitude + 180) / 360 * side
        let radians = latitude * .pi / 180
        let y = (1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * side
        return TileCoordinate(z: z, x: min(Int(x), (1 << z) - 1), y: min(Int(y), (1 << z) - 1))
    }
}
