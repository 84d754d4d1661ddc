/// A tile address in the XYZ scheme web maps use: `y` counts from the north (MBTiles stores TMS
/// rows, counted from the south; its reader converts).
public struct TileCoordinate: Sendable, Hashable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// `z/x/y`, as logs and errors name a tile.
    public var description: String { "\(z)/\(x)/\(y)" }
}

/// A tileset's bounds in degrees.
public struct GeoBounds: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }
}

/// What a tile's bytes are, sniffed from the bytes themselves (after any gzip layer is removed).
public enum TileFormat: String, Sendable, Hashable {
    /// A Mapbox Vector Tile (protobuf).
    case vector
    case png
    case jpeg
    case webp
}

/// What a tileset says about itself, read once when it is opened.
public struct TilesetInfo: Sendable, Hashable {
    /// The path it was opened from (for messages only: never part of its identity).
    public var path: String
    public var name: String
    /// The metadata's attribution as stored (it may hold HTML such as `<a href=…>`); empty when absent.
    public var attribution: String
    public var minZoom: Int
    public var maxZoom: Int
    public var bounds: GeoBounds?
    /// The metadata's format (`pbf`, `png`, `jpg`, `webp`), lower case; empty when absent.
    public var format: String
    /// How many tiles the tileset addresses.
    public var tileCount: Int
    /// Hex SHA-256 of the tileset's content identity: its metadata and its tile index, never its
    /// path or modification time. Two copies of the same tileset have the same identity.
    public var identity: String
    /// The ids of the vector layers the metadata lists (TileJSON `vector_layers`: MBTiles' `json`
    /// row, PMTiles' metadata), in its order; empty when it lists none.
    public var vectorLayers: [String] = []

    public init(
        path: String, name: String, attribution: String, minZoom: Int, maxZoom: Int, bounds: GeoBounds?, format: String,
        tileCount: Int, identity: String
    ) {
        self.path = path
        self.name = name
        self.attribution = attribution
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.format = format
        self.tileCount = tileCount
        self.identity = identity
    }
}

/// A container of tiles (MBTiles or PMTiles). Implementations are safe to call from any thread.
public protocol TileSource: Sendable {
    var info: TilesetInfo { get }

    /// The tile's bytes with any gzip layer removed, or `nil` when the tileset has no such tile.
    ///
    /// - Throws: ``TileError`` when the tile exists but cannot be read (I/O error, bad gzip,
    ///   an index entry pointing past the file), naming the tileset and the tile.
    func tileData(at coordinate: TileCoordinate) throws(TileError) -> [UInt8]?
}
