import Foundation
import Testing
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

@Suite struct RoutePictureTests {
    @Test(arguments: [1, 2])
    func pictureHasTheSpecPixelSize(scale: Int) throws {
        var spec = Fixtures.spec(scale: scale)
        spec.width = 120
        spec.height = 80
        let image = try Fixtures.render(spec, Fixtures.horizontal)
        #expect(image.width == 120 * scale)
        #expect(image.height == 80 * scale)
    }

    @Test func pixelsOnTheRouteCarryTheLineColour() throws {
        let image = try Fixtures.render(Fixtures.spec(), Fixtures.horizontal)
        for x in stride(from: 22, through: 78, by: 4) {
            #expect(image.pixel(x: x, y: 50) == Fixtures.line)
            #expect(image.pixel(x: x, y: 48) == Fixtures.line)
        }
    }

    @Test func farPixelsAreExactlyTheBackground() throws {
        let image = try Fixtures.render(Fixtures.spec(), Fixtures.horizontal)
        for (x, y) in [(0, 0), (5, 5), (99, 99), (50, 10), (50, 90), (10, 50), (90, 50), (50, 56)] {
            #expect(image.pixel(x: x, y: y) == Fixtures.background)
        }
    }

    @Test func outlineSitsBetweenLineAndBackground() throws {
        let image = try Fixtures.render(Fixtures.spec(), Fixtures.horizontal)
        // Line y = 50 ± 3, outline 1 more: pixel row 53 (centre 53.5) is all outline, row 54 background.
        #expect(image.pixel(x: 50, y: 52) == Fixtures.line)
        #expect(image.pixel(x: 50, y: 53) == Fixtures.outline)
        #expect(image.pixel(x: 50, y: 54) == Fixtures.background)
        #expect(image.pixel(x: 50, y: 46) == Fixtures.outline)
    }

    @Test func scaleTwoDoublesWidths() throws {
        let image = try Fixtures.render(Fixtures.spec(scale: 2), Fixtures.horizontal)
        // At @2x the line is 12 pixels wide around y = 100 and the outline 2 more each side.
        #expect(image.pixel(x: 100, y: 105) == Fixtures.line)
        #expect(image.pixel(x: 100, y: 107) == Fixtures.outline)
        #expect(image.pixel(x: 100, y: 109) == Fixtures.background)
    }

    @Test func antiAliasedEdgesHaveIntermediateValues() throws {
        let image = try Fixtures.render(Fixtures.spec(), Fixtures.diagonal)
        let known: Set<RGBA> = [Fixtures.background, Fixtures.line, Fixtures.outline]
        let blended = image.pixels.filter { !known.contains($0) }
        #expect(blended.count > 40)
        // Every blended pixel lies between two of the three colours, never outside them.
        for colour in blended {
            #expect(colour.red >= Fixtures.background.red)
            #expect(colour.blue >= Fixtures.background.blue)
        }
    }

    @Test func capsAreRound() throws {
        let image = try Fixtures.render(Fixtures.spec(), Fixtures.horizontal)
        // Just beyond the end (80, 50) along the line, 1.6 px away: covered by the round cap.
        #expect(image.pixel(x: 81, y: 50) == Fixtures.line)
        #expect(image.pixel(x: 18, y: 49) == Fixtures.line)
        // Diagonal at the corner of where a square cap would end (2.5, 2.5 away: 3.5 > 3): not line.
        #expect(image.pixel(x: 82, y: 52) != Fixtures.line)
        #expect(image.pixel(x: 17, y: 47) != Fixtures.line)
        // A square cap of half width 3 would cover these fully.
        #expect(image.pixel(x: 83, y: 53) == Fixtures.background)
    }

    @Test func joinsAreRoundAndNotDarkenedTwice() throws {
        var style = Fixtures.style()
        style.line = RGBA(red: 200, green: 100, blue: 50, alpha: 128)
        // An L-shaped route: right, then up; with a translucent line the corner must not be darker.
        let route = Route(segments: [
            [
                RoutePoint(latitude: Fixtures.latitude, longitude: 0),
                RoutePoint(latitude: Fixtures.latitude, longitude: 0.01),
                RoutePoint(latitude: Fixtures.latitude + 0.01, longitude: 0.01),
            ]
        ])
        let image = try Fixtures.render(Fixtures.spec(style: style), route)
        let straight = image.pixel(x: 50, y: 79)
        let corner = image.pixel(x: 79, y: 79)
        #expect(corner == straight)
    }

    @Test func segmentsAreNotConnected() throws {
        let apart = Route(segments: [Fixtures.points(from: 0, to: 0.004, count: 5), Fixtures.points(from: 0.006, to: 0.01, count: 5)])
        let image = try Fixtures.render(Fixtures.spec(), apart)
        // The first segment ends at x = 44 and the second starts at x = 56: nothing in between.
        #expect(image.pixel(x: 50, y: 50) == Fixtures.background)
        #expect(image.pixel(x: 49, y: 50) == Fixtures.background)
        #expect(image.pixel(x: 42, y: 50) == Fixtures.line)
        #expect(image.pixel(x: 58, y: 50) == Fixtures.line)
        // The same points in one segment are connected.
        let joined = try Fixtures.render(Fixtures.spec(), Route(segments: [apart.segments.flatMap { $0 }]))
        #expect(joined.pixel(x: 50, y: 50) == Fixtures.line)
    }

    @Test func startAndEndMarksSitOnTop() throws {
        let image = try Fixtures.render(Fixtures.spec(style: Fixtures.style(markRadius: 5)), Fixtures.horizontal)
        #expect(image.pixel(x: 20, y: 50) == Fixtures.start)
        #expect(image.pixel(x: 80, y: 50) == Fixtures.end)
        #expect(image.pixel(x: 50, y: 50) == Fixtures.line)
        // The mark's outline ring: radius 5, outline 1, around 5.5 px from the centre.
        #expect(image.pixel(x: 80, y: 44).green >= 240)
    }

    @Test func zeroWidthsTurnElementsOff() throws {
        var style = Fixtures.style(markRadius: 5)
        style.outlineWidth = 0
        let noOutline = try Fixtures.render(Fixtures.spec(style: style), Fixtures.horizontal)
        #expect(!noOutline.pixels.contains(Fixtures.outline))
        style.lineWidth = 0
        let marksOnly = try Fixtures.render(Fixtures.spec(style: style), Fixtures.horizontal)
        #expect(marksOnly.pixel(x: 50, y: 50) == Fixtures.background)
        #expect(marksOnly.pixel(x: 20, y: 50) == Fixtures.start)
    }

    @Test func invalidPointsAreDroppedAndCounted() throws {
        let clean = Fixtures.points()
        var dirty = clean
        dirty.insert(RoutePoint(latitude: .nan, longitude: 0.003), at: 3)
        dirty.insert(RoutePoint(latitude: 95, longitude: 0.004), at: 5)
        dirty.insert(RoutePoint(latitude: 0.001, longitude: 200), at: 7)
        dirty.insert(RoutePoint(latitude: 0, longitude: 0), at: 9)
        dirty.append(RoutePoint(latitude: 0.001, longitude: .infinity))
        let renderer = Renderer()
        let expected = try renderer.render(spec: Fixtures.spec(), route: Route(segments: [clean]), heartRate: [], cacheKey: "k")
        let actual = try renderer.render(spec: Fixtures.spec(), route: Route(segments: [dirty]), heartRate: [], cacheKey: "k")
        #expect(actual == expected)
        #expect(renderer.lastStatistics.invalidPoints == 5)
        #expect(renderer.lastStatistics.usablePoints == clean.count)
    }

    @Test func antimeridianRouteFitsInASmallBox() throws {
        // A 0.01° x 0.02° loop across 180°: tall and narrow once unwrapped, not a line around the world.
        let route = Route(segments: [
            [
                RoutePoint(latitude: 0.01, longitude: 179.995),
                RoutePoint(latitude: 0.01, longitude: -179.995),
                RoutePoint(latitude: -0.01, longitude: -179.995),
                RoutePoint(latitude: -0.01, longitude: 179.995),
                RoutePoint(latitude: 0.01, longitude: 179.995),
            ]
        ])
        let image = try Fixtures.render(Fixtures.spec(), route)
        let box = try #require(image.boundingBox(excluding: Fixtures.background))
        let width = box.maxX - box.minX
        let height = box.maxY - box.minY
        #expect((64...70).contains(height))
        #expect((34...40).contains(width))
        // The middle is inside the loop, not on a line.
        #expect(image.pixel(x: 50, y: 50) == Fixtures.background)
    }

    @Test func sameInputsGiveTheSameBytes() throws {
        let workout = Fixtures.points(count: 200)
        let route = Route(segments: [workout])
        let first = try Renderer().render(spec: Fixtures.spec(), route: route, heartRate: [], cacheKey: "k")
        let renderer = Renderer()
        let second = try renderer.render(spec: Fixtures.spec(), route: route, heartRate: [], cacheKey: "k")
        // A different, larger picture in between must leave nothing behind in the reused buffers.
        _ = try renderer.render(spec: Fixtures.spec(size: 300, scale: 2), route: Fixtures.diagonal, heartRate: [], cacheKey: "x")
        let third = try renderer.render(spec: Fixtures.spec(), route: route, heartRate: [], cacheKey: "k")
        #expect(first == second)
        #expect(first == third)
    }

    @Test func cacheKeyReadsBackFromTheTextChunk() throws {
        let key = "route:3f2a9c/v1/light@2x/9b1d"
        let png = try Renderer().render(spec: Fixtures.spec(), route: Fixtures.horizontal, heartRate: [], cacheKey: key)
        #expect(PNGCodec.textChunks(png)["workfeed:cache-key"] == key)
        // The chunk does not disturb decoding.
        #expect(try PNGCodec.decode(png).width == 100)
    }

    @Test func denseRoutesAreSimplifiedWithoutVisibleChange() throws {
        let sparse = Route(segments: [Fixtures.points(count: 3)])
        let dense = Route(segments: [Fixtures.points(count: 20_000)])
        let renderer = Renderer()
        let expected = try PNGCodec.decode(renderer.render(spec: Fixtures.spec(), route: sparse, heartRate: [], cacheKey: "k"))
        let actual = try PNGCodec.decode(renderer.render(spec: Fixtures.spec(), route: dense, heartRate: [], cacheKey: "k"))
        #expect(renderer.lastStatistics.drawnVertices < 10)
        let largest = zip(expected.rgba, actual.rgba).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 2)
    }
}
