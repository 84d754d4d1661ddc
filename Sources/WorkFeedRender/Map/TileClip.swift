/// Cuts tile geometry to the tile's own square, so that what a tile draws ends exactly where its
/// neighbour's begins: the buffer around each tile repeats its neighbours' features, and drawing
/// both copies would double lines and areas along every tile edge.
struct TileClip {
    var minX: Float
    var minY: Float
    var maxX: Float
    var maxY: Float

    /// Scratch rings for polygon clipping, reused between calls.
    private var scratchA: [SIMD2<Float>] = []
    private var scratchB: [SIMD2<Float>] = []

    init(minX: Float, minY: Float, maxX: Float, maxY: Float) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Clips a closed ring to the square (Sutherland–Hodgman, one side at a time) and returns
    /// the clipped ring, valid until the next call; empty when nothing is inside.
    ///
    /// Clipping adds edges along the square's sides; those of a ring and of the same area in the
    /// next tile run in opposite directions and cancel in an ``AreaMask``.
    mutating func clip(ring: some Collection<SIMD2<Float>>) -> [SIMD2<Float>] {
        scratchA.removeAll(keepingCapacity: true)
        scratchA.append(contentsOf: ring)
        Self.clip(&scratchA, into: &scratchB, keep: { $0.x >= minX }, cross: { a, b in Self.atX(a, b, minX) })
        Self.clip(&scratchB, into: &scratchA, keep: { $0.x <= maxX }, cross: { a, b in Self.atX(a, b, maxX) })
        Self.clip(&scratchA, into: &scratchB, keep: { $0.y >= minY }, cross: { a, b in Self.atY(a, b, minY) })
        Self.clip(&scratchB, into: &scratchA, keep: { $0.y <= maxY }, cross: { a, b in Self.atY(a, b, maxY) })
        return scratchA
    }

    /// Whether the ring's bounding box lies wholly inside the square (then it needs no clipping).
    func contains(_ points: some Collection<SIMD2<Float>>) -> Bool {
        points.allSatisfy { $0.x >= minX && $0.x <= maxX && $0.y >= minY && $0.y <= maxY }
    }

    /// The part of segment ab inside the square (Liang–Barsky), or `nil`.
    func clip(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> (SIMD2<Float>, SIMD2<Float>)? {
        var t0: Float = 0
        var t1: Float = 1
        let d = b - a
        func edge(_ p: Float, _ q: Float) -> Bool {
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 {
                if r > t1 { return false }
                if r > t0 { t0 = r }
            } else {
                if r < t0 { return false }
                if r < t1 { t1 = r }
            }
            return true
        }
        guard edge(-d.x, a.x - minX), edge(d.x, maxX - a.x), edge(-d.y, a.y - minY), edge(d.y, maxY - a.y) else {
            return nil
        }
        return (t0 == 0 ? a : a + d * t0, t1 == 1 ? b : a + d * t1)
    }

    private static func clip(
        _ input: inout [SIMD2<Float>], into output: inout [SIMD2<Float>], keep: (SIMD2<Float>) -> Bool,
        cross: (SIMD2<Float>, SIMD2<Float>) -> SIMD2<Float>
    ) {
        output.removeAll(keepingCapacity: true)
        guard var previous = input.last else { return }
        var previousInside = keep(previous)
        for point in input {
            let inside = keep(point)
            if inside != previousInside { output.append(cross(previous, point)) }
            if inside { output.append(point) }
            previous = point
            previousInside = inside
        }
    }

    private static func atX(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ x: Float) -> SIMD2<Float> {
        let t = (x - a.x) / (b.x - a.x)
        return SIMD2(x, a.y + (b.y - a.y) * t)
    }

    private static func atY(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ y: Float) -> SIMD2<Float> {
        let t = (y - a.y) / (b.y - a.y)
        return SIMD2(a.x + (b.x - a.x) * t, y)
    }
}
