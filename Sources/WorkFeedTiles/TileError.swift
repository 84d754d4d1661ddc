/// A tileset or tile that cannot be read, with what is wrong and where: the file, and the tile
/// (`z/x/y`) or byte offset when there is one.
public struct TileError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The file cannot be opened or read.
        case unreadable
        /// The file is not an MBTiles or PMTiles tileset.
        case notATileset
        /// The tileset's header, metadata or directory is malformed.
        case malformedTileset
        /// One tile's bytes are broken (bad gzip, bad protobuf, geometry past its data).
        case malformedTile
    }

    public var code: Code
    public var message: String
    /// The tileset's path, when known.
    public var path: String?
    /// The tile, when the error is about one.
    public var tile: TileCoordinate?

    public init(_ code: Code, _ message: String, path: String? = nil, tile: TileCoordinate? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.tile = tile
    }

    public var description: String {
        var text = ""
        if let path { text += path + ": " }
        if let tile { text += "tile \(tile): " }
        return text + message
    }
}
