/// Streaming polyline simplification to the picture's resolution (a "sleeve" or cone-intersection
/// algorithm, after Zhao and Saalfeld).
///
/// From the last kept vertex it keeps the cone of directions whose ray passes within `tolerance`
/// of every point seen since; a point outside the cone (or one that doubles back) ends the
/// segment at the previous point. Every dropped point therefore lies within `tolerance` of the
/// drawn segment, which at a tenth of a pixel changes edge coverage by at most a few levels, while
/// 100,000 dense GPS points shrink to the few hundred vertices the picture can show. It takes
/// constant time a point and no memory beyond the output, unlike Douglas-Peucker.
struct Simplifier {
    let tolerance: Float
    private var anchor = SIMD2<Float>.zero
    private var candidate = SIMD2<Float>.zero
    private var hasCandidate = false
    /// Clockwise and counter-clockwise bounds of the cone, as unit vectors.
    private var right = SIMD2<Float>.zero
    private var left = SIMD2<Float>.zero
    private var hasCone = false
    private var farthest: Float = 0

    init(tolerance: Float) {
        self.tolerance = tolerance
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
        let distance = (v * v).sum().squareRoot()
        if hasCone {
            let inside = cross(right, v) >= 0 && cross(v, left) >= 0
            guard inside, distance + tolerance >= farthest else { return false }
        } else if distance <= tolerance {
            return true
        }
        // The directions within asin(tolerance / distance) of this point pass close enough to it.
        let direction = v / distance
        let sine = min(tolerance / distance, 1)
        let cosine = (1 - sine * sine).squareRoot()
        let ccw = SIMD2(direction.x * cosine - direction.y * sine, direction.x * sine + direction.y * cosine)
        let cw = SIMD2(direction.x * cosine + direction.y * sine, -direction.x * sine + direction.y * cosine)
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
