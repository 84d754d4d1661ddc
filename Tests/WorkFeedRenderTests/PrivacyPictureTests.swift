import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle
import WorkFeedPrivacy

/// Privacy zones as a person sees them: decoded pictures of a real Heidelberg run, cut by the
/// coordinator's policy, show no route pixel anywhere near a zone (issue 16).
@Suite struct PrivacyPictureTests {
    static let secret = [UInt8](repeating: 0x5A, count: 32)

    /// The run's points at `fraction` of its length (by index): where a zone is put.
    static func point(_ route: Route, at fraction: Double) -> RoutePoint {
        let points = Array(route.points)
        return points[Int(Double(points.count - 1) * fraction)]
    }

    /// Pixels within `radius` metres of `centre` that are not the plain background, and how many
    /// pixels of the picture that disc covers.
    static func routePixels(
        near centre: RoutePoint, radius: Double, in image: DecodedImage, fit: PictureFit, background: RGBA
    ) -> (drawn: Int, covered: Int) {
        let middle = fit.pixel(x: WebMercator.x(longitude: centre.longitude), y: WebMercator.y(latitude: centre.latitude))
        let pixels = radius / WebMercator.metresPerUnit(latitude: centre.latitude) * fit.zoom
        var drawn = 0
        var covered = 0
        for y in max(0, Int(Double(middle.y) - pixels))..<min(image.height, Int(Double(middle.y) + pixels) + 1) {
            for x in max(0, Int(Double(middle.x) - pixels))..<min(image.width, Int(Double(middle.x) + pixels) + 1) {
                let dx = Double(x) + 0.5 - Double(middle.x), dy = Double(y) + 0.5 - Double(middle.y)
                guard dx * dx + dy * dy <= pixels * pixels else { continue }
                covered += 1
                let p = image.pixel(x: x, y: y)
                if abs(Int(p.red) - Int(background.red)) > 2 || abs(Int(p.green) - Int(background.green)) > 2
                    || abs(Int(p.blue) - Int(background.blue)) > 2
                {
                    drawn += 1
                }
            }
        }
        return (drawn, covered)
    }

    /// A zone around the start and one crossed mid-route: in route and heatmap pictures, light and
    /// dark, at scales 1 and 2, no pixel within the owner's radius is anything but background,
    /// while the rest of the route is drawn (in two pieces at least: the line is split).
    @Test func noRoutePixelLiesWithinAZoneInAnyPicture() throws {
        let run = try MapFixtures.workout(MapFixtures.run)
        let start = try #require(run.route.points.first)
        let middle = Self.point(run.route, at: 0.5)
        let zones = [
            PrivacyZone(id: 1, latitude: start.latitude, longitude: start.longitude, radius: 300),
            PrivacyZone(id: 2, latitude: middle.latitude, longitude: middle.longitude, radius: 250),
        ]
        let policy = PrivacyPolicy(zones: zones, secret: Self.secret)
        let cut = policy.cut(run.route, workoutID: "route-hash-of-the-run")
        try #require(cut.isCut && !cut.isWhollyHidden)
        let look = ProcessInfo.processInfo.environment["WORKFEED_LOOK"]
        if let look {
            // To look at: the cut route on the Heidelberg map, as the demo draws it.
            let basemap = try MapFixtures.basemap()
            let mapRenderer = Renderer(basemap: basemap)
            for kind in JobKind.allCases where !kind.isCard {
                for theme in Theme.shipped {
                    let spec = MapFixtures.spec(kind, theme, basemap: basemap)
                    let png = try mapRenderer.render(spec: spec, route: cut.route, heartRate: run.heartRate, cacheKey: "look")
                    try Data(png).write(to: URL(fileURLWithPath: "\(look)/privacy-map-\(kind)-\(theme).png"))
                }
            }
        }
        let renderer = Renderer()
        for kind in JobKind.allCases where !kind.isCard {
            for theme in Theme.shipped {
                for scale in [1, 2] {
                    let spec = MapFixtures.spec(kind, theme, basemap: nil, scale: scale)
                    let png = try renderer.render(spec: spec, route: cut.route, heartRate: run.heartRate, cacheKey: "privacy")
                    let image = try PNGCodec.decode(png)
                    if let look { try Data(png).write(to: URL(fileURLWithPath: "\(look)/privacy-\(kind)-\(theme)@\(scale)x.png")) }
                    let fit = try renderer.fit(spec: spec, scan: RouteScan(route: cut.route, measuresLength: false))
                    let background = spec.style.background
                    let label = "\(kind) \(theme) @\(scale)x"
                    for zone in zones {
                        let centre = RoutePoint(latitude: zone.latitude, longitude: zone.longitude)
                        let near = Self.routePixels(near: centre, radius: zone.radius, in: image, fit: fit, background: background)
                        #expect(near.drawn == 0, "\(label): \(near.drawn) route pixels within zone \(zone.id)")
                        if zone.id == 2 { #expect(near.covered > 500, "\(label): the mid-route zone is in the picture") }
                    }
                    // The rest of the route is there: a good share of the picture is drawn.
                    let everything = Self.routePixels(
                        near: RoutePoint(latitude: middle.latitude, longitude: middle.longitude), radius: 100_000, in: image, fit: fit,
                        background: background)
                    #expect(everything.drawn > image.width * image.height / 200, "\(label): the visible route is drawn")
                }
            }
        }
    }

    /// The same route without zones draws inside both circles: the check above can fail.
    @Test func withoutZonesTheSameCirclesHoldRoutePixels() throws {
        let run = try MapFixtures.workout(MapFixtures.run)
        let middle = Self.point(run.route, at: 0.5)
        let renderer = Renderer()
        let spec = MapFixtures.spec(.route, .light, basemap: nil)
        let image = try PNGCodec.decode(try renderer.render(spec: spec, route: run.route, heartRate: [], cacheKey: "whole"))
        let fit = try renderer.fit(spec: spec, scan: RouteScan(route: run.route, measuresLength: false))
        for centre in [try #require(run.route.points.first), middle] {
            let near = Self.routePixels(near: centre, radius: 250, in: image, fit: fit, background: spec.style.background)
            #expect(near.drawn > 50)
        }
    }
}
