/// Streaming polyline simplification to the picture's resolution (a "sleeve" or cone-intersection
/// algorithm, after Zhao and Saalfeld).
///
/// From the last kept vertex it keeps the cone of directions whose ray passes within `tolerance`
/// of every point seen since; a point outside the cone (or one that doubles back) ends the
/// segment at the previous point. Every dropped point therefore lies within `tolerance` of the
/// drawn segment, which at a tenth of a pixel changes edge coverage by at most a tenth, while
/// 100,000 dense GPS points shrink to the few thousand vertices the picture can show. It takes
/// constant time and one square root a point, and no memory beyond the output, unlike
/// Douglas-Peucker.
struct Simplifier {
    let tolerance: Float
    private let toleranceSquared: Float
    private var anchor = SIMD2<Float>.zero
    private var candidate = SIMD2<Float>.zero
    private var hasCandidate = false
    /// Clockwise and counter-clockwise bounds of the cone, as direction vectors of any length:
    /// only the signs of cross products with them matter.
    private var right = SIMD2<Float>.zero
    private var left = SIMD2<Float>.zero
    private var hasCone = false
    private var farthest: Float = 0

    init(tolerance: Float) {
        self.tolerance = tolerance
        toleranceSquared = tolerance * tolerance
    }

    /// Starts a new polyline at `point`, which is always kept.
    mutating func begin(_ point: SIMD2<Float>, into vertices: inout [SIMD2<Float>]) {
        vertices.append(point)
        anchor = point
        hasCandidate = false
        hasCone = false
        farthest = 0
    }

    mutating func add(_ point: SIMD2<Float>, into vertices: inout [SIMD2<Float>]) {
        if !accepts(point) {
            // The previous point becomes a vertex, and the new segment starts there.
            vertices.append(candidate)
            anchor = candidate
            hasCone = false
            farthest = 0
            _ = accepts(point)
        }
        candidate = point
        hasCandidate = true
    }

    /// Ends the polyline; its last point is always kept, so a one-point polyline becomes a dot.
    mutating func finish(into vertices: inout [SIMD2<Float>]) {
        vertices.append(hasCandidate ? candidate : anchor)
        hasCandidate = false
    }

    /// Whether `point` can join the segment from the anchor; narrows the cone when it does.
    @inline(__always)
    private mutating func accepts(_ point: SIMD2<Float>) -> Bool {
        let v = point - anchor
        let squared = (v * v).sum()
        if !hasCone, squared <= toleranceSquared { return true }
        let distance = squared.squareRoot()
        if hasCone {
            let inside = cross(right, v) >= 0 && cross(v, left) >= 0
            guard inside, distance + tolerance >= farthest else { return false }
        }
        // The rays from the anchor tangent to the circle of radius `tolerance` around the point
        // bound the directions that pass close enough to it: v * sqrt(d² - t²) ± perp(v) * t,
        // scaled by d, which leaves the cross products' signs alone.
        let along = max(squared - toleranceSquared, 0).squareRoot()
        let perpendicular = SIMD2(-v.y, v.x) * tolerance
        let ccw = v * along + perpendicular
        let cw = v * along - perpendicular
        if hasCone {
            if cross(right, cw) > 0 { right = cw }
            if cross(ccw, left) > 0 { left = ccw }
        } else {
            right = cw
            left = ccw
            hasCone = true
        }
        farthest = max(farthest, distance)
        return true
    }

    @inline(__always)
    private func cross(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float { a.x * b.y - a.y * b.x }
}
