import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

/// Pace and elevation pictures (issue 40, part 2): the route in colours along a ramp, from the
/// workout's own slowest (lowest) to its fastest (highest).
@Suite struct RampTests {
    /// Metres a degree of longitude at the fixtures' latitude (about the equator's).
    private static let metresPerDegree = 111_319.5

    /// 41 points from lon 0 to 0.01 (x = 20 to 80): the first 20 steps at `slow` metres a second,
    /// the last 20 at `fast`.
    private static func run(slow: Double, fast: Double, altitudes: ((Int) -> Double)? = nil) -> [RoutePoint] {
        var time = 0.0
        return (0...40).map { index in
            if index > 0 { time += 0.00025 * metresPerDegree / (index <= 20 ? slow : fast) }
            return RoutePoint(
                latitude: Fixtures.latitude, longitude: 0.00025 * Double(index), elevation: altitudes?(index),
                time: Fixtures.epoch.addingTimeInterval(time))
        }
    }

    private static func spec(_ kind: PictureKind, _ measure: RouteMeasure, units: UnitSystem = .metric, size: Int = 100) -> PictureSpec {
        var style = Fixtures.style()
        style.outlineWidth = 0
        return PictureSpec(
            kind: kind, theme: .light, width: size, height: size, scale: 1, style: style, heatmap: .standard,
            ramp: RampStyle.standard(measure, units: units))
    }

    private static func close(_ a: RGBA, _ b: RGBA) -> Bool {
        abs(Int(a.red) - Int(b.red)) <= 1 && abs(Int(a.green) - Int(b.green)) <= 1 && abs(Int(a.blue) - Int(b.blue)) <= 1
    }

    private static let ramp = RampStyle.standard(.pace, units: .metric).colours

    /// A made-up run whose second half is twice as fast: its first half in the ramp's slow colour,
    /// its second in the fast one, whichever way the picture is read.
    @Test func paceColoursFollowTheSeries() throws {
        let image = try Fixtures.render(Self.spec(.pace, .pace), Route(segments: [Self.run(slow: 3, fast: 6)]))
        for x in [24, 35, 45] { #expect(Self.close(image.pixel(x: x, y: 50), Self.ramp[0]), "x \(x): \(image.pixel(x: x, y: 50))") }
        for x in [55, 65, 76] { #expect(Self.close(image.pixel(x: x, y: 50), Self.ramp[1]), "x \(x): \(image.pixel(x: x, y: 50))") }
        // The other way round: the fast half first.
        let reversed = try Fixtures.render(Self.spec(.pace, .pace), Route(segments: [Self.run(slow: 6, fast: 3)]))
        #expect(Self.close(reversed.pixel(x: 30, y: 50), Self.ramp[1]) && Self.close(reversed.pixel(x: 70, y: 50), Self.ramp[0]))
    }

    /// A stop, a pause and a GPS jump inside the slow half are not painted as a sprint: the half
    /// stays in the slow colour around them.
    @Test func stopsPausesAndJumpsAreNotSprints() throws {
        var points = Self.run(slow: 3, fast: 6)
        // A jump: point 10 recorded 2 km north for its second.
        points[10].latitude += 0.018
        // A stop: point 5 repeated 60 s later, where it was.
        var stopped = points[5]
        stopped.time = stopped.time?.addingTimeInterval(60)
        points.insert(stopped, at: 6)
        for index in 7..<points.count { points[index].time = points[index].time?.addingTimeInterval(60) }
        // A pause: the route cut into two segments, ten minutes apart, in the slow half.
        let later = points[16...].map { point in
            var moved = point
            moved.time = moved.time?.addingTimeInterval(600)
            return moved
        }
        let route = Route(segments: [Array(points[..<16]), later])
        let image = try Fixtures.render(Self.spec(.pace, .pace, size: 100), route)
        // The jump makes the picture taller and narrower: the halves are told apart by the line's
        // own extent, and the spike (at a quarter of the way) lies in the slow half.
        let box = try #require(image.boundingBox(excluding: Fixtures.background))
        let middle = (box.minX + box.maxX) / 2
        var fastOnTheRight = 0
        for y in 0..<image.height {
            for x in 0..<image.width where Self.close(image.pixel(x: x, y: y), Self.ramp[1]) {
                #expect(x > middle - 3, "(\(x), \(y)) in the slow half is painted as fast")
                fastOnTheRight += 1
            }
        }
        #expect(fastOnTheRight > 20, "the fast half is still fast")
        #expect(image.pixels.contains { Self.close($0, Self.ramp[0]) }, "the slow half is slow")
    }

    /// Altitude from 100 m to 300 m along the route: low colour at the start, high at the end,
    /// the middle stop's colour halfway.
    @Test func elevationColoursFollowTheAltitude() throws {
        let points = Self.run(slow: 3, fast: 3) { 100 + 5 * Double($0) }
        let image = try Fixtures.render(Self.spec(.elevation, .elevation), Route(segments: [points]))
        let colours = RampStyle.standard(.elevation, units: .metric).colours
        // The round caps beyond the ends are the first and the last piece alone.
        #expect(Self.close(image.pixel(x: 18, y: 50), colours[0]), "\(image.pixel(x: 18, y: 50))")
        #expect(Self.close(image.pixel(x: 81, y: 50), colours[1]), "\(image.pixel(x: 81, y: 50))")
        let middle = Renderer.colour(of: 0.5, range: 0...1, colours: colours)
        let halfway = image.pixel(x: 50, y: 50)
        #expect(abs(Int(halfway.red) - Int(middle.red)) <= 12 && abs(Int(halfway.green) - Int(middle.green)) <= 12, "\(halfway)")
    }

    @Test func withoutTimesOrAltitudesThereIsNoPicture() {
        let bare = Route(
            segments: [(0...10).map { RoutePoint(latitude: Fixtures.latitude, longitude: 0.001 * Double($0)) }])
        #expect(throws: RenderFailure.noTimes) { try Renderer().render(spec: Self.spec(.pace, .pace), route: bare, heartRate: [], cacheKey: "k") }
        #expect(throws: RenderFailure.noElevation) {
            try Renderer().render(spec: Self.spec(.elevation, .elevation), route: bare, heartRate: [], cacheKey: "k")
        }
        var spec = Self.spec(.pace, .pace)
        spec.ramp = nil
        #expect(throws: RenderFailure.invalidRampStyle) {
            try Renderer().render(spec: spec, route: Route(segments: [Self.run(slow: 3, fast: 6)]), heartRate: [], cacheKey: "k")
        }
    }

    /// The legend's figures, as a runner's watch gives them: 3 m/s is 5:33 a kilometre and 8:56 a
    /// mile; 10 m/s is 36.0 km/h and 22.4 mph; 100 m is 328 ft.
    @Test func legendFiguresAreInTheOwnersUnits() {
        #expect(Renderer.rampFigure(3, .pace, units: .metric) == "5:33")
        #expect(Renderer.rampFigure(3, .pace, units: .imperial) == "8:56")
        #expect(Renderer.rampFigure(0.25, .pace, units: .metric) == "1:06:40")
        #expect(Renderer.rampFigure(10, .speed, units: .metric) == "36.0")
        #expect(Renderer.rampFigure(10, .speed, units: .imperial) == "22.4")
        #expect(Renderer.rampFigure(100, .elevation, units: .metric) == "100")
        #expect(Renderer.rampFigure(100, .elevation, units: .imperial) == "328")
        #expect(Renderer.rampTitle(.pace, units: .imperial) == "Pace (/mi)" && Renderer.rampTitle(.speed, units: .metric) == "Speed (km/h)")
    }

    /// The ramp runs from the 5th to the 95th percentile of the pieces' speeds (one sprint does not
    /// wash the rest out), and from the lowest to the highest piece altitude.
    @Test func theRampSpansTheWorkoutsOwnValues() {
        let speeds = (1...20).map(Double.init) + [100]
        #expect(Renderer.rampRange(.pace, values: speeds) == 2...20)
        #expect(Renderer.rampRange(.elevation, values: [300, 120, 180]) == 120...300)
        #expect(Renderer.carried([nil, 2, nil, nil, 5, nil]) == [2, 2, 2, 2, 5, 5])
    }

    /// A picture large enough has a legend, in a corner, with the route's figures; units and the
    /// measure change the picture (they are in its key).
    @Test func aLegendNamesTheUnitsAndChangesWithThem() throws {
        let route = Route(segments: [Self.run(slow: 3, fast: 6)])
        let renderer = Renderer()
        let metric = try renderer.render(spec: Self.spec(.pace, .pace, size: 400), route: route, heartRate: [], cacheKey: "k")
        #expect(renderer.legendBox != nil)
        let imperial = try renderer.render(spec: Self.spec(.pace, .pace, units: .imperial, size: 400), route: route, heartRate: [], cacheKey: "k")
        let speed = try renderer.render(spec: Self.spec(.pace, .speed, size: 400), route: route, heartRate: [], cacheKey: "k")
        #expect(metric != imperial && metric != speed)
        // Same inputs, same bytes.
        #expect(try renderer.render(spec: Self.spec(.pace, .pace, size: 400), route: route, heartRate: [], cacheKey: "k") == metric)
    }
}
