public import WorkFeedModel
public import WorkFeedTiles

/// What the last render did, for logs and the bench; it never changes the picture.
public struct RenderStatistics: Sendable, Hashable {
    /// Points dropped as invalid: non-finite, out of range, or 0/0 among real points.
    public var invalidPoints: Int = 0
    /// Points left after dropping invalid ones.
    public var usablePoints: Int = 0
    /// Vertices actually drawn after simplification to the picture's resolution.
    public var drawnVertices: Int = 0
    /// How much of the picture the basemap covered.
    public var mapCoverage: MapCoverage = .none
    /// Tile positions under the picture that a tileset had.
    public var mapTiles: Int = 0
    /// Tiles under the picture left out because they cannot be read or decoded.
    public var brokenTiles: Int = 0
    /// The first tile a remote tileset could not give now (a timeout, a 5xx, a dropped
    /// connection): the picture is not finished but fails with ``RenderFailure/mapUnavailable(_:)``.
    public var unavailableTile: TileError?
    /// Time spent reading tiles from tilesets and decoding them (only tiles not already at hand).
    public var tileLoading: Duration = .zero
    /// Time spent classifying those tiles into map features.
    public var tileClassifying: Duration = .zero
    /// Time spent placing the map's features in the picture and painting them.
    public var mapDrawing: Duration = .zero
    /// Time spent placing and drawing the map's names.
    public var labelDrawing: Duration = .zero
    /// Names drawn on the map.
    public var labels: Int = 0
    /// Time spent from the route to the finished pixels, the map included.
    public var drawing: Duration = .zero
    /// Time spent encoding the PNG.
    public var encoding: Duration = .zero

    public init() {}
}
