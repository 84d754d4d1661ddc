import Foundation
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

/// Writes light and dark route and heatmap pictures of a synthetic workout, to look at.
enum Samples {
    static func write(to directory: String) throws {
        let renderer = Renderer()
        let workout = SyntheticWorkout(points: 10_000)
        for kind in PictureKind.allCases {
            for (theme, look) in ThemeStyle.shipped.sorted(by: { $0.key < $1.key }) {
                for scale in [1, 2] {
                    let spec = PictureSpec(
                        kind: kind, theme: theme, width: 512, height: 512, scale: scale,
                        style: look.route, heatmap: .standard, ramp: RampStyle.standard(for: kind, activity: .running, units: .metric)
                    ).withBenchCard(route: workout.route)
                    let png = try renderer.render(spec: spec, route: workout.route, heartRate: workout.heartRate, cacheKey: "sample")
                    let name = "\(directory)/workfeed-\(kind.rawValue)-\(theme.rawValue)\(scale == 2 ? "@2x" : "").png"
                    try Data(png).write(to: URL(fileURLWithPath: name))
                    print(name)
                }
            }
        }
    }
}
