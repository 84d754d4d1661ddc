/// A decoded Mapbox Vector Tile 2.1 (mapbox/vector-tile-spec): layers of features whose
/// geometry is already turned from commands into points in tile coordinates.
///
/// Decoding never traps on bytes from a file: see ``VectorTile/init(decoding:)``.
public struct VectorTile: Sendable {
    public var layers: [VectorTileLayer]

    public init(layers: [VectorTileLayer]) {
        self.layers = layers
    }
}

/// One layer: its features share the key and value tables.
public struct VectorTileLayer: Sendable {
    public var name: String
    public var version: Int
    /// Tile coordinates run from 0 to `extent` across the tile (4096 by default); geometry may
    /// reach outside that square into the tile's buffer.
    public var extent: Int
    public var keys: [String]
    public var values: [VectorTileValue]
    public var features: [VectorTileFeature]

    public init(name: String, version: Int, extent: Int, keys: [String], values: [VectorTileValue], features: [VectorTileFeature]) {
        self.name = name
        self.version = version
        self.extent = extent
        self.keys = keys
        self.values = values
        self.features = features
    }
}

/// A tag value, as the tile stored it.
public enum VectorTileValue: Sendable, Hashable {
    case string(String)
    case float(Float)
    case double(Double)
    case int(Int64)
    case uint(UInt64)
    case sint(Int64)
    case bool(Bool)
}

public enum VectorTileGeometryType: Int, Sendable, Hashable {
    case unknown = 0
    case point = 1
    case lineString = 2
    case polygon = 3
}

/// One feature with its geometry decoded.
///
/// `points` holds every vertex of every part in tile coordinates; `parts` holds where each part
/// (a point group, a line, or a polygon ring) starts in `points`, in order, so part `i` is
/// `points[parts[i] ..< (i + 1 < parts.count ? parts[i + 1] : points.count)]`. A polygon ring is
/// stored without repeating its first point (ClosePath closes it).
public struct VectorTileFeature: Sendable {
    public var id: UInt64?
    public var type: VectorTileGeometryType
    /// Pairs of indices into the layer's `keys` and `values`, as the tile stored them (checked to
    /// be in range by the decoder).
    public var tags: [UInt32]
    public var points: [SIMD2<Int32>]
    public var parts: [Int32]

    public init(id: UInt64?, type: VectorTileGeometryType, tags: [UInt32], points: [SIMD2<Int32>], parts: [Int32]) {
        self.id = id
        self.type = type
        self.tags = tags
        self.points = points
        self.parts = parts
    }
}
