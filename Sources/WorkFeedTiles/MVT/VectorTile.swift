/// A decoded Mapbox Vector Tile 2.1 (mapbox/vector-tile-spec): layers of features whose
/// geometry is already turned from commands into points in tile coordinates.
///
/// Decoding never traps on bytes from a file: see ``VectorTile/init(decoding:)-([UInt8])``.
public struct VectorTile: Sendable {
    public var layers: [VectorTileLayer]
    /// Layers the decoder left out because an earlier layer has the same name (spec 4.1 forbids
    /// two; the first one is kept).
    public var skippedLayers = 0

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
    /// Features the decoder left out as invalid but recoverable (no geometry, an odd number of
    /// tags, a geometry type past 3, two geometry fields): a renderer draws the rest of the tile.
    public var skippedFeatures = 0

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

/// The geometry types of spec 4.3.4. An `unknown` feature's commands are decoded with their counts
/// checked, each MoveTo starting a part, but nothing draws it.
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
    /// The `id` field when the feature has one (0 when the tile stored 0).
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

    /// Part `index` of the geometry: a point group, a line, or a polygon ring without its closing
    /// point. `index` must be below `parts.count`.
    public func part(_ index: Int) -> ArraySlice<SIMD2<Int32>> {
        let start = Int(parts[index])
        let end = index + 1 < parts.count ? Int(parts[index + 1]) : points.count
        return points[start..<end]
    }
}
