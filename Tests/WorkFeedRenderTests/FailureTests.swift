import Foundation
import Testing
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

@Suite struct FailureTests {
    private func failure(
        _ route: Route, kind: JobKind = .route, heartRate: [HeartRateSample] = [], spec: PictureSpec? = nil
    ) -> RenderFailure? {
        do {
            _ = try Renderer().render(spec: spec ?? Fixtures.spec(kind: kind), route: route, heartRate: heartRate, cacheKey: "k")
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyRouteIsNoRoute() {
        #expect(failure(Route())?.reason == "no route")
        #expect(failure(Route(segments: [[], []]))?.reason == "no route")
    }

    @Test func onlyInvalidPointsIsEveryPointInvalid() {
        let route = Route(segments: [
            [
                RoutePoint(latitude: .nan, longitude: 1), RoutePoint(latitude: 91, longitude: 1),
                RoutePoint(latitude: 1, longitude: -181), RoutePoint(latitude: 1, longitude: .infinity),
            ]
        ])
        #expect(failure(route)?.reason == "every point invalid")
    }

    @Test func oneUsablePointIsFewerThanTwo() {
        let route = Route(segments: [[RoutePoint(latitude: 1, longitude: 1), RoutePoint(latitude: .nan, longitude: 1)]])
        #expect(failure(route)?.reason == "fewer than two usable points")
        let withNullIsland = Route(segments: [[RoutePoint(latitude: 1, longitude: 1), RoutePoint(latitude: 0, longitude: 0)]])
        #expect(failure(withNullIsland)?.reason == "fewer than two usable points")
    }

    @Test func repeatedPointIsASinglePlace() {
        let point = RoutePoint(latitude: 48.85, longitude: 2.35)
        #expect(failure(Route(segments: [Array(repeating: point, count: 50)]))?.reason == "route is a single place")
        // Centimetre jitter is still one place.
        let jitter = Route(segments: [[point, RoutePoint(latitude: 48.850_000_1, longitude: 2.350_000_1)]])
        #expect(failure(jitter)?.reason == "route is a single place")
        // A route made only of 0/0 points is one place too.
        let nullIsland = Route(segments: [Array(repeating: RoutePoint(latitude: 0, longitude: 0), count: 3)])
        #expect(failure(nullIsland)?.reason == "route is a single place")
    }

    @Test func heatmapWithoutSamplesInTheRouteSpan() {
        let route = Fixtures.horizontal
        #expect(failure(route, kind: .heatmap)?.reason == "no heart-rate samples")
        let before = [HeartRateSample(time: Fixtures.epoch.addingTimeInterval(-60), bpm: 120)]
        #expect(failure(route, kind: .heatmap, heartRate: before)?.reason == "no heart-rate samples")
        let invalid = [HeartRateSample(time: Fixtures.epoch.addingTimeInterval(3), bpm: .nan)]
        #expect(failure(route, kind: .heatmap, heartRate: invalid)?.reason == "no heart-rate samples")
        let untimed = Route(segments: [[RoutePoint(latitude: 1, longitude: 1), RoutePoint(latitude: 1.01, longitude: 1)]])
        let samples = [HeartRateSample(time: Fixtures.epoch, bpm: 120)]
        #expect(failure(untimed, kind: .heatmap, heartRate: samples)?.reason == "no heart-rate samples")
        // A route picture of the same route does not need heart rate.
        #expect(failure(route, kind: .route) == nil)
    }

    @Test func routeFailuresComeBeforeHeartRate() {
        #expect(failure(Route(), kind: .heatmap)?.reason == "no route")
        let point = RoutePoint(latitude: 48.85, longitude: 2.35)
        #expect(failure(Route(segments: [[point, point]]), kind: .heatmap)?.reason == "route is a single place")
    }

    @Test func badSizesAndStylesFailCleanly() {
        #expect(failure(Fixtures.horizontal, spec: Fixtures.spec(size: 0))?.reason == "picture size out of range")
        #expect(failure(Fixtures.horizontal, spec: Fixtures.spec(size: 5000))?.reason == "picture size out of range")
        #expect(failure(Fixtures.horizontal, spec: Fixtures.spec(scale: 0))?.reason == "picture size out of range")
        var heatmap = HeatmapStyle.standard
        heatmap.zoneColors.removeLast()
        let samples = [HeartRateSample(time: Fixtures.epoch.addingTimeInterval(3), bpm: 120)]
        #expect(
            failure(Fixtures.horizontal, heartRate: samples, spec: Fixtures.spec(kind: .heatmap, heatmap: heatmap))?.reason
                == "heatmap style invalid")
        var style = Fixtures.style()
        style.lineWidth = 0
        #expect(failure(Fixtures.horizontal, spec: Fixtures.spec(style: style))?.reason == "style draws nothing")
    }

    @Test func aCacheKeyPNGCannotCarryIsAnEncodingFailure() {
        #expect(throws: RenderFailure.self) {
            _ = try Renderer().render(spec: Fixtures.spec(), route: Fixtures.horizontal, heartRate: [], cacheKey: "key\u{0}with NUL")
        }
    }
}
