/// A tileset or tile that cannot be read, with what is wrong and where: the file or URL, and the
/// tile (`z/x/y`) or byte offset when there is one.
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
        /// A remote tileset cannot give the bytes now: no answer (a refused or dropped connection,
        /// a timeout), an HTTP 5xx or 429, or an archive that changed since it was opened. The
        /// tile is not broken: it is not remembered, and a picture that needed it is drawn again
        /// later rather than without it.
        case unavailable
    }

    public var code: Code
    public var message: String
    /// The tileset's path or URL, when known.
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
