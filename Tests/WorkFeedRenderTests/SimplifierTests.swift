import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

@Suite struct SimplifierTests {
    private func simplify(_ points: [SIMD2<Float>], tolerance: Float = 0.1) -> [SIMD2<Float>] {
        var simplifier = Simplifier(tolerance: tolerance)
        var out: [SIMD2<Float>] = []
        simplifier.begin(points[0], into: &out)
        for point in points.dropFirst() { simplifier.add(point, into: &out) }
        simplifier.finish(into: &out)
        return out
    }

    private func distance(_ p: SIMD2<Float>, _ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float {
        let d = b - a
        let length = (d * d).sum()
        let t = length > 0 ? min(max(((p - a) * d).sum() / length, 0), 1) : 0
        let q = a + d * t
        return ((p - q) * (p - q)).sum().squareRoot()
    }

    @Test func everyDroppedPointStaysWithinTolerance() {
        // A wobbly curve with 0.05 px noise, deterministic.
        var state: UInt32 = 12345
        func noise() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.1
        }
        let points = (0..<2500).map { i -> SIMD2<Float> in
            let t = Float(i) * 0.02
            return SIMD2(t * 3 + noise(), 20 * Float(sin(Double(t) * 0.7)) + noise())
        }
        let kept = simplify(points)
        #expect(kept.count < points.count / 10)
        #expect(kept.first == points.first)
        #expect(kept.last == points.last)
        for point in points {
            var nearest = Float.infinity
            for index in 0..<(kept.count - 1) { nearest = min(nearest, distance(point, kept[index], kept[index + 1])) }
            #expect(nearest <= 0.1 + 1e-4)
        }
    }

    @Test func turningBackKeepsTheTurn() {
        let out = (0...10).map { SIMD2<Float>(Float($0), 0) }
        let back = (0..<10).reversed().map { SIMD2<Float>(Float($0), 0) }
        let kept = simplify(out + back)
        #expect(kept.contains(SIMD2(10, 0)))
        #expect(kept.last == SIMD2(0, 0))
    }

    @Test func aSinglePointBecomesADot() {
        #expect(simplify([SIMD2(3, 4)]) == [SIMD2(3, 4), SIMD2(3, 4)])
    }
}

@Suite struct SimplificationVisibilityTests {
    /// A wiggly 1,500-point route with metre-level noise: simplified at 0.1 px, no pixel moves
    /// by more than a tenth of the way between two colours.
    @Test(arguments: [1, 2])
    func simplifiedPicturesMatchUnsimplifiedOnes(scale: Int) throws {
        var points: [RoutePoint] = []
        var state: UInt64 = 42
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        for index in 0..<1500 {
            let t = Double(index)
            points.append(
                RoutePoint(
                    latitude: 47 + 0.01 * sin(t / 300) + 0.000_005 * noise(),
                    longitude: 8 + t * 0.000_016 + 0.000_005 * noise()))
        }
        let spec = PictureSpec(kind: .route, theme: .light, width: 160, height: 160, scale: scale, style: .light, heatmap: .standard)
        let route = Route(segments: [points])
        let renderer = Renderer()
        renderer.simplificationTolerance = 0
        let exact = try PNGCodec.decode(renderer.render(spec: spec, route: route, heartRate: [], cacheKey: "k"))
        let all = renderer.lastStatistics.drawnVertices
        renderer.simplificationTolerance = 0.1
        let simplified = try PNGCodec.decode(renderer.render(spec: spec, route: route, heartRate: [], cacheKey: "k"))
        #expect(renderer.lastStatistics.drawnVertices < all / 2)
        let largest = zip(exact.rgba, simplified.rgba).map { abs(Int($0) - Int($1)) }.max() ?? 0
        // The light line and background differ by up to 214 levels; 0.1 px of edge is ~21.
        #expect(largest <= 26)
    }
}

@Suite struct ProjectionTests {
    @Test(arguments: [-79.0, -33.9, 0.0, 12.5, 47.37, 59.33, 70.0, 78.0])
    func localSeriesMatchesExactMercator(latitude: Double) {
        let mercator = LocalMercator(minLatitude: latitude - 1, maxLatitude: latitude + 1)
        let span = WebMercator.y(latitude: latitude - 1) - WebMercator.y(latitude: latitude + 1)
        for step in 0...20 {
            let value = latitude - 1 + Double(step) / 10
            // A ten-millionth of the span: far below a pixel when the span fills a 2048-pixel picture.
            #expect(abs(mercator.y(latitude: value) - WebMercator.y(latitude: value)) < span * 1e-7)
        }
    }

    @Test func unwrappingKeepsLongitudesContinuous() {
        var unwrapper = LongitudeUnwrapper()
        let values = [179.9, -179.9, -179.7, 179.8, 540.0 - 360].map { unwrapper.unwrap($0) }
        #expect(values.map { ($0 * 10).rounded() / 10 } == [179.9, 180.1, 180.3, 179.8, 180.0])
    }
}
