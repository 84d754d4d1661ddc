import Foundation
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

/// The "render" group: milliseconds per picture, the share spent in PNG encoding, bytes per
/// picture, for synthetic workouts of several sizes, route and heatmap, @1x and @2x.
enum RenderBench {
    static func run(options: BenchOptions) throws {
        print("## render (512x512 points, median of \(options.runs) runs after 3 warm-ups, one thread)")
        print("points   kind     scale  wall ms  cpu ms  encode%  bytes    vertices")
        let renderer = Renderer()
        for points in options.sizes {
            let workout = SyntheticWorkout(points: points)
            let inputPeak = Measure.peakResidentMiB()
            for kind in options.kinds.compactMap(PictureKind.init(rawValue:)) {
                for scale in options.scales {
                    let spec = PictureSpec(
                        kind: kind, theme: .light, width: 512, height: 512, scale: scale, style: .light, heatmap: .standard,
                        ramp: RampStyle.standard(for: kind, activity: .running, units: .metric)
                    ).withBenchCard(route: workout.route)
                    var bytes = 0
                    var encodeShares: [Double] = []
                    let runs = points >= 100_000 ? max(options.runs / 3, 5) : options.runs
                    let times = try Measure.wallAndCPU(runs: runs) {
                        let png = try renderer.render(
                            spec: spec, route: workout.route, heartRate: workout.heartRate, cacheKey: "bench")
                        bytes = png.count
                        let statistics = renderer.lastStatistics
                        let total = Measure.milliseconds(statistics.drawing + statistics.encoding)
                        encodeShares.append(Measure.milliseconds(statistics.encoding) / total)
                    }
                    let share = encodeShares.sorted()[encodeShares.count / 2]
                    print(
                        pad("\(points)", 9) + pad(kind.rawValue, 9) + pad("@\(scale)x", 7)
                            + pad(Measure.format(Measure.milliseconds(Measure.median(times.wall))), 9)
                            + pad(Measure.format(Measure.milliseconds(Measure.median(times.cpu))), 8)
                            + pad(Measure.format(share * 100, 0) + "%", 9) + pad("\(bytes)", 9)
                            + "\(renderer.lastStatistics.drawnVertices)")
                }
            }
            if let before = inputPeak, let after = Measure.peakResidentMiB() {
                print(
                    "  peak resident memory (VmHWM): \(Measure.format(before, 1)) MiB with the input built, \(Measure.format(after, 1)) MiB after rendering"
                )
            }
        }
    }

    /// The "png" group: libpng's fast flag against its defaults on one rendered picture.
    static func compression(options: BenchOptions) throws {
        print("## png compression (10,000-point route picture, median of \(options.runs) runs)")
        let renderer = Renderer()
        let workout = SyntheticWorkout(points: 10_000)
        for scale in [1, 2] {
            for kind in PictureKind.allCases {
                let spec = PictureSpec(
                    kind: kind, theme: .light, width: 512, height: 512, scale: scale, style: .light, heatmap: .standard,
                    ramp: RampStyle.standard(for: kind, activity: .running, units: .metric)
                ).withBenchCard(route: workout.route)
                let png = try renderer.render(spec: spec, route: workout.route, heartRate: workout.heartRate, cacheKey: "k")
                let image = try PNGCodec.decode(png)
                var rgb: [UInt8] = []
                rgb.reserveCapacity(image.width * image.height * 3)
                for index in stride(from: 0, to: image.rgba.count, by: 4) { rgb.append(contentsOf: image.rgba[index..<(index + 3)]) }
                for compression in PNGCodec.Compression.allCases {
                    var bytes = 0
                    let times = try Measure.wallAndCPU(runs: options.runs) {
                        bytes = try PNGCodec.encode(rgb: rgb, width: image.width, height: image.height, compression: compression).count
                    }
                    print(
                        pad("\(kind.rawValue) @\(scale)x", 14) + pad("\(compression)", 10)
                            + pad(Measure.format(Measure.milliseconds(Measure.median(times.wall))) + " ms wall", 15)
                            + pad(Measure.format(Measure.milliseconds(Measure.median(times.cpu))) + " ms cpu", 14) + "\(bytes) bytes")
                }
            }
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
