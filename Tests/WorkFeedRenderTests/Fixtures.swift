import Foundation
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

/// Small, exactly placed routes and styles for pixel-level assertions.
///
/// Routes lie a few hundred metres from lat 0.001, lon 0 (not 0/0, which is "null island"), where
/// Web Mercator is linear to far below a pixel. With a 100x100 picture and 20 points of padding, a
/// horizontal route from lon 0 to lon 0.01 runs from x = 20 to x = 80 along y = 50.
enum Fixtures {
    static let background = RGBA(red: 10, green: 20, blue: 30)
    static let line = RGBA(red: 200, green: 100, blue: 50)
    static let outline = RGBA(red: 255, green: 255, blue: 255)
    static let start = RGBA(red: 0, green: 200, blue: 0)
    static let end = RGBA(red: 220, green: 0, blue: 0)
    static let latitude = 0.001
    static let epoch = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Line width 6 (half width 3), outline 1, marks off unless asked for, padding 20.
    static func style(markRadius: Double = 0) -> RouteStyle {
        RouteStyle(
            background: background, line: line, lineWidth: 6, outline: outline, outlineWidth: 1,
            startMark: start, endMark: end, markRadius: markRadius, padding: 20)
    }

    static func spec(
        kind: JobKind = .route, size: Int = 100, scale: Int = 1, style: RouteStyle = style(),
        heatmap: HeatmapStyle = .standard
    ) -> PictureSpec {
        PictureSpec(kind: kind, theme: .light, width: size, height: size, scale: scale, style: style, heatmap: heatmap)
    }

    /// `count` points evenly spaced from `fromLongitude` to `toLongitude`, one second apart.
    static func points(
        from fromLongitude: Double = 0, to toLongitude: Double = 0.01, count: Int = 11, latitude: Double = latitude,
        startSecond: Double = 0
    ) -> [RoutePoint] {
        (0..<count).map { index in
            let f = Double(index) / Double(count - 1)
            return RoutePoint(
                latitude: latitude, longitude: fromLongitude + (toLongitude - fromLongitude) * f,
                time: epoch.addingTimeInterval(startSecond + Double(index)))
        }
    }

    static var horizontal: Route { Route(segments: [points()]) }

    /// A diagonal route, so edges cross pixels at every offset.
    static var diagonal: Route {
        Route(segments: [
            [
                RoutePoint(latitude: latitude, longitude: 0),
                RoutePoint(latitude: latitude + 0.007, longitude: 0.01),
            ]
        ])
    }

    static func render(
        _ spec: PictureSpec, _ route: Route, heartRate: [HeartRateSample] = [], key: String = "test-key"
    ) throws -> DecodedImage {
        try PNGCodec.decode(bareRenderer().render(spec: spec, route: route, heartRate: heartRate, cacheKey: key))
    }

    /// A renderer that draws no caption on pictures without a map (MaplessCaptionTests has it),
    /// for tests of the route's own pixels.
    static func bareRenderer() -> Renderer {
        let renderer = Renderer(places: nil)
        renderer.drawsCaption = false
        return renderer
    }
}

extension DecodedImage {
    /// Every pixel's colour, for counting.
    var pixels: [RGBA] {
        (0..<height).flatMap { y in (0..<width).map { x in pixel(x: x, y: y) } }
    }

    /// The smallest box holding every pixel that is not `background`.
    func boundingBox(excluding background: RGBA) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<height {
            for x in 0..<width where pixel(x: x, y: y) != background {
                if let b = box {
                    box = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
                } else {
                    box = (x, y, x, y)
                }
            }
        }
        return box
    }
}
