import Foundation
import Logging
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedTiles
import WorkFeedStyle

/// The "map" group: map pictures on real tilesets, the first picture of an area (tiles read and
/// decoded) and the following ones (tiles at hand), with where the time goes. Run from the
/// repository's root: it reads `deploy/basemap` and `Tests/Data`.
enum MapBench {
    struct Area {
        var name: String
        var tileset: String
        var workout: ImportedWorkout
    }

    static func areas() throws -> [Area] {
        let run = WorkoutFileReader.readAll(
            contentsOf: URL(fileURLWithPath: "Tests/Data/tracks-in-map/heidelberg/runpandas_garmin-fr645m_run_2019_hr.fit"))
        guard let heidelberg = run.workouts.first else { throw BenchError("cannot read the Heidelberg run: \(run.errors)") }
        return [
            Area(name: "heidelberg", tileset: "deploy/basemap/heidelberg.mbtiles", workout: heidelberg),
            Area(name: "liechtenstein", tileset: "Tests/Data/basemap/tilesets/liechtenstein-z10-14.pmtiles", workout: vaduzLoop()),
        ]
    }

    /// A 2,000-point, 6 km loop through Vaduz with a heart rate rising and falling.
    static func vaduzLoop() -> ImportedWorkout {
        let start = Date(timeIntervalSinceReferenceDate: 785_000_000)
        var points: [RoutePoint] = []
        var heartRate: [HeartRateSample] = []
        for index in 0..<2_000 {
            let angle = Double(index) / 2_000 * 2 * .pi
            let wobble = 1 + 0.15 * sin(angle * 7)
            let time = start.addingTimeInterval(Double(index) * 1.5)
            points.append(
                RoutePoint(
                    latitude: 47.1410 + 0.0085 * wobble * sin(angle), longitude: 9.5215 + 0.0125 * wobble * cos(angle),
                    time: time))
            heartRate.append(HeartRateSample(time: time, bpm: 120 + 50 * sin(angle * 3)))
        }
        var workout = ImportedWorkout.twoPoint(1)
        workout.route = Route(segments: [points])
        workout.heartRate = heartRate
        return workout
    }

    static func run(options: BenchOptions) throws {
        print("## map (512x512 points, tiles at hand: median of \(options.runs) runs after 3 warm-ups, one thread)")
        if let directory = options.mapOut { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        print(
            "area           kind     theme scale  first ms  then ms  cpu ms | first: read+decode, classify; then: map, names, route+marks, encode (ms)"
        )
        for area in try areas() {
            for kind in options.kinds.compactMap(PictureKind.init(rawValue:)) {
                for theme in options.themes.compactMap(Theme.init(rawValue:)) {
                    for scale in options.scales {
                        guard let shipped = ThemeStyle.shipped[theme] else { throw BenchError("--themes: no shipped theme \(theme)") }
                        // A fresh basemap each time: the first picture reads and decodes its tiles.
                        let basemap = try Basemap(tilesetLocations: [area.tileset], logger: Logger(label: "bench"))
                        let renderer = Renderer(basemap: basemap)
                        let spec = PictureSpec(
                            kind: kind, theme: theme, width: 512, height: 512, scale: scale, style: shipped.route, heatmap: .standard,
                            ramp: RampStyle.standard(for: kind, activity: .running, units: .metric), map: shipped.map, basemap: basemap.identity.hash
                        ).withBenchCard(route: area.workout.route)
                        let clock = ContinuousClock()
                        let started = clock.now
                        var failure: RenderFailure?
                        do {
                            _ = try renderer.render(spec: spec, route: area.workout.route, heartRate: area.workout.heartRate, cacheKey: "bench")
                        } catch {
                            failure = error
                        }
                        if let failure {
                            // The area's recording lacks what the kind is drawn from (the Vaduz
                            // route has no altitudes): that kind has no figure there.
                            guard [RenderFailure.noElevation, .noTimes, .noHeartRateSamples].contains(failure) else { throw failure }
                            print(
                                RenderBench.pad(area.name, 15) + RenderBench.pad(kind.rawValue, 9) + RenderBench.pad(theme.rawValue, 6)
                                    + RenderBench.pad("@\(scale)x", 7) + failure.reason)
                            continue
                        }
                        let first = clock.now - started
                        let cold = renderer.lastStatistics
                        var png: [UInt8] = []
                        var warm: [RenderStatistics] = []
                        let times = try Measure.wallAndCPU(runs: options.runs) {
                            png = try renderer.render(
                                spec: spec, route: area.workout.route, heartRate: area.workout.heartRate, cacheKey: "bench")
                            warm.append(renderer.lastStatistics)
                        }
                        let bytes = png.count
                        if let directory = options.mapOut {
                            let name = "\(area.name)_\(kind.rawValue)_\(theme.rawValue)@\(scale)x.png"
                            try Data(png).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
                        }
                        func median(_ part: (RenderStatistics) -> Duration) -> String {
                            Measure.format(Measure.milliseconds(Measure.median(warm.map(part))))
                        }
                        let routeShare = median { $0.drawing - $0.mapDrawing - $0.labelDrawing - $0.tileLoading - $0.tileClassifying }
                        print(
                            RenderBench.pad(area.name, 15) + RenderBench.pad(kind.rawValue, 9) + RenderBench.pad(theme.rawValue, 6)
                                + RenderBench.pad("@\(scale)x", 7)
                                + RenderBench.pad(Measure.format(Measure.milliseconds(first)), 10)
                                + RenderBench.pad(Measure.format(Measure.milliseconds(Measure.median(times.wall))), 9)
                                + RenderBench.pad(Measure.format(Measure.milliseconds(Measure.median(times.cpu))), 7) + "| "
                                + "first: read+decode \(Measure.format(Measure.milliseconds(cold.tileLoading))), classify \(Measure.format(Measure.milliseconds(cold.tileClassifying)))"
                                + "; then: map \(median(\.mapDrawing)), names \(median(\.labelDrawing)) (\(cold.labels)), route \(routeShare), "
                                + "encode \(median(\.encoding))  \(bytes) B, \(cold.mapTiles) tiles \(cold.mapCoverage.rawValue)"
                        )
                    }
                }
            }
        }
        if let peak = Measure.peakResidentMiB() {
            print("  peak resident memory (VmHWM): \(Measure.format(peak, 1)) MiB")
        }
    }
}
