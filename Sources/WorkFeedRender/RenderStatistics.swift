/// What the last render did, for logs and the bench; it never changes the picture.
public struct RenderStatistics: Sendable, Hashable {
    /// Points dropped as invalid: non-finite, out of range, or 0/0 among real points.
    public var invalidPoints: Int = 0
    /// Points left after dropping invalid ones.
    public var usablePoints: Int = 0
    /// Vertices actually drawn after simplification to the picture's resolution.
    public var drawnVertices: Int = 0
    /// Time spent from the route to the finished pixels.
    public var drawing: Duration = .zero
    /// Time spent in libpng and adding the text chunk.
    public var encoding: Duration = .zero

    public init() {}
}
