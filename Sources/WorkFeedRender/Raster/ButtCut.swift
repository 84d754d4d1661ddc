/// Cuts a heatmap piece square where it continues the previous piece.
///
/// Round caps at both ends would make every colour change a bulging half-disc; instead pixels
/// behind the start line (along the first segment's direction) fade out over one pixel. Only
/// pixels near the start are cut, so a piece that loops back past its own start keeps its line.
struct ButtCut {
    var origin: SIMD2<Float>
    /// Unit vector along the piece's first segment.
    var direction: SIMD2<Float>
    var halfWidth: Float
    /// Squared radius around `origin` inside which the cut applies.
    var radiusSquared: Float

    init?(from a: SIMD2<Float>, toward b: SIMD2<Float>, halfWidth: Float) {
        let d = b - a
        let length = (d * d).sum().squareRoot()
        guard length > 0 else { return nil }
        origin = a
        direction = d / length
        self.halfWidth = halfWidth
        let radius = 2 * halfWidth + 1.5
        radiusSquared = radius * radius
    }
}
