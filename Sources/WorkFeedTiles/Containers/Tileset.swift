public import WorkFeedStore
import WorkFeedS3

/// Opens tilesets by what their bytes are, not by their file name, and tells tile formats apart.
public enum Tileset {
    private static let sqliteMagic: [UInt8] = Array("SQLite format 3\0".utf8)

    /// Opens an MBTiles (an SQLite database, by its first 16 bytes) or a PMTiles archive (by its
    /// `PMTiles` magic).
    ///
    /// ```swift
    /// let source = try Tileset.open(path: "deploy/basemap/heidelberg.mbtiles")
    /// let bytes = try source.tileData(at: TileCoordinate(z: 14, x: 8587, y: 5598))
    /// ```
    ///
    /// - Throws: ``TileError`` naming the path: `.unreadable` when the file is missing or cannot
    ///   be read, `.notATileset` when it is neither format (saying what it starts with) or is an
    ///   SQLite database without a `tiles` table, and what ``MBTilesSource/init(path:)`` and
    ///   ``PMTilesSource/init(path:)`` throw.
    public static func open(path: String) throws(TileError) -> any TileSource {
        try open(.file(path))
    }

    /// Opens the tileset at `location`: a file as ``open(path:)`` does, or a remote PMTiles
    /// archive (`https://…`, `s3://bucket/key`) read by range requests (``RemoteRangeReader``):
    /// its first 16 KiB when it opens, then each directory and tile when it is needed.
    ///
    /// - Parameter access: how `s3://` archives are reached (`store.s3.*`).
    /// - Throws: ``TileError`` naming the location: for a remote archive, `.unavailable` when it
    ///   does not answer now and `.unreadable` when there is none or it cannot be read by range
    ///   (each saying what to check), `.notATileset` for an MBTiles behind a URL (SQLite needs a
    ///   file) or anything but PMTiles; what ``PMTilesSource/init(path:)`` throws.
    public static func open(_ location: TilesetLocation, access: TilesetAccess = TilesetAccess()) throws(TileError) -> any TileSource {
        let reader: any RangeReader
        switch location {
        case .file(let path):
            return try open(file: path)
        case .url(let url):
            reader = try RemoteRangeReader(HTTPRangeTransport(url: url, timeoutSeconds: access.timeoutSeconds))
        case .s3(let bucket, let key):
            let client: S3Client
            do {
                client = try PictureStores.client(bucket: bucket, s3: access.s3, environment: access.environment)
            } catch {
                throw TileError(.unreadable, "cannot make the S3 client: \(error)", path: location.description)
            }
            reader = try RemoteRangeReader(S3RangeTransport(client: client, key: key))
        }
        let start = try reader.prefix(16)
        if start.starts(with: PMTilesHeader.magic) {
            return try PMTilesSource(reader: reader)
        }
        if start.starts(with: sqliteMagic) {
            throw TileError(
                .notATileset, "an MBTiles (SQLite) file, which is read only from a local file: copy it to each host, or convert it to PMTiles",
                path: reader.location)
        }
        throw TileError(.notATileset, "\(describe(start)): only PMTiles archives are read from a URL", path: reader.location)
    }

    /// `text` parsed as a ``TilesetLocation``.
    /// - Throws: ``TileError`` `.unreadable` saying what is wrong with it.
    public static func location(_ text: String) throws(TileError) -> TilesetLocation {
        do {
            return try TilesetLocation(parsing: text)
        } catch {
            throw TileError(.unreadable, error.problem, path: text)
        }
    }

    private static func open(file path: String) throws(TileError) -> any TileSource {
        let start = try ReadOnlyFile(path: path).prefix(16)
        if start.starts(with: sqliteMagic) {
            return try MBTilesSource(path: path)
        }
        if start.starts(with: PMTilesHeader.magic) {
            return try PMTilesSource(path: path)
        }
        if start.count >= 4, start[0] == 0x50, start[1] == 0x4D, start[2] <= 2, start[3] == 0 {
            throw TileError(.notATileset, "a PMTiles version \(start[2]) archive: only version 3 is supported", path: path)
        }
        throw TileError(
            .notATileset, "\(describe(start)), not an SQLite database (MBTiles) or a PMTiles archive", path: path)
    }

    /// What a tile's bytes are, after any gzip layer is removed: PNG, JPEG and WebP by their
    /// signatures, a vector tile when the bytes are empty (a tile without layers) or start with a
    /// `layers` field (protobuf key 0x1A: field 3, length-delimited); `nil` otherwise.
    public static func sniff(_ bytes: [UInt8]) -> TileFormat? {
        if bytes.isEmpty { return .vector }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        if bytes[0] == 0x1A { return .vector }
        return nil
    }

    /// "an empty file", or "starts with 'GIF8'" with unprintable bytes in hex.
    static func describe(_ start: [UInt8]) -> String {
        guard !start.isEmpty else { return "an empty file" }
        let shown = start.prefix(4)
        if shown.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "starts with '\(String(decoding: shown, as: UTF8.self))'"
        }
        return "starts with bytes "
            + shown.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined(separator: " ")
    }
}
