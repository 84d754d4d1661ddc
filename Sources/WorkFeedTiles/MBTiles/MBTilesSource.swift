import Synchronization
import WorkFeedModel

/// An MBTiles 1.3 tileset (an SQLite database), read-only.
///
/// One connection, opened read-only and used under a `Mutex`, serves every thread: tile reads
/// are single indexed lookups, so threads take turns briefly; gunzipping happens outside the lock.
///
/// Its ``TilesetInfo/identity`` is the SHA-256 of the metadata rows (sorted by name, then value)
/// and of the tile index: each tile's zoom, column, row and the length of its data, in that order,
/// read with one ordered `SELECT` that does not read the tiles' bytes. A tile rewritten with bytes
/// of the same length is therefore not noticed; a tile added, removed, moved or resized is.
public final class MBTilesSource: TileSource {
    public let info: TilesetInfo
    private let connection: Mutex<Connection>

    private struct Connection: ~Copyable {
        let database: SQLiteDatabase
        let tileQuery: SQLiteStatement
    }

    /// A tile inflates to at most this many bytes (a vector tile is rarely past 1 MiB).
    static let maximumTileBytes = 64 << 20

    /// Opens the tileset and reads its metadata and tile index.
    ///
    /// - Throws: ``TileError`` `.unreadable` when the file cannot be opened, `.notATileset` when
    ///   it is not an SQLite database or has no `tiles` table or view, `.malformedTileset` when a
    ///   query fails.
    public init(path: String) throws(TileError) {
        let database = try SQLiteDatabase(readOnly: path)
        guard try Self.hasRelation("tiles", in: database) else {
            throw TileError(.notATileset, "an SQLite database without a 'tiles' table (not MBTiles)", path: path)
        }
        var identity = SHA256()
        identity.update("MBTiles identity 1\n")
        let metadata = try Self.readMetadata(database, into: &identity)
        let index = try Self.readIndex(database, into: &identity)

        let name = metadata["name"] ?? ""
        let minZoom = metadata["minzoom"].flatMap { Int($0.trimmingSpaces) } ?? index.minZoom
        let maxZoom = metadata["maxzoom"].flatMap { Int($0.trimmingSpaces) } ?? index.maxZoom
        var info = TilesetInfo(
            path: path, name: name, attribution: metadata["attribution"] ?? "", minZoom: minZoom, maxZoom: maxZoom,
            bounds: metadata["bounds"].flatMap(GeoBounds.init(commaSeparated:)), format: (metadata["format"] ?? "").lowercased(),
            tileCount: index.count, identity: identity.finalize().hexString)
        if let json = metadata["json"] {
            info.vectorLayers = TilesetMetadataJSON.vectorLayerIDs(Array(json.utf8))
        }
        self.info = info
        let tileQuery = try database.prepare("SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3")
        connection = Mutex(Connection(database: database, tileQuery: tileQuery))
    }

    public func tileData(at coordinate: TileCoordinate) throws(TileError) -> [UInt8]? {
        guard let row = coordinate.tmsRow else { return nil }
        let stored: [UInt8]? = try connection.withLock { (connection) throws(TileError) -> [UInt8]? in
            connection.tileQuery.bind(1, Int64(coordinate.z))
            connection.tileQuery.bind(2, Int64(coordinate.x))
            connection.tileQuery.bind(3, Int64(row))
            defer { connection.tileQuery.reset() }
            do throws(TileError) {
                guard try connection.tileQuery.step() else { return nil }
            } catch {
                var error = error
                error.tile = coordinate
                throw error
            }
            return connection.tileQuery.bytes(0)
        }
        guard let stored else { return nil }
        guard Inflate.isCompressed(stored) else { return stored }
        do {
            return try Inflate.decompress(stored, limit: Self.maximumTileBytes)
        } catch {
            throw TileError(.malformedTile, "gzip: \(error.message)", path: info.path, tile: coordinate)
        }
    }

    /// Every tile's address, in XYZ, ordered by zoom, column and TMS row. Rows whose zoom, column
    /// or row cannot be a tile (a negative zoom, a column past `2^z`) are left out.
    ///
    /// - Throws: ``TileError`` when the query fails.
    public func coordinates() throws(TileError) -> [TileCoordinate] {
        try connection.withLock { (connection) throws(TileError) -> [TileCoordinate] in
            let query = try connection.database.prepare(
                "SELECT zoom_level, tile_column, tile_row FROM tiles ORDER BY zoom_level, tile_column, tile_row")
            var result: [TileCoordinate] = []
            while try query.step() {
                let z = query.int64(0)
                let x = query.int64(1)
                let row = query.int64(2)
                guard (0...TileCoordinate.maximumZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(row) else {
                    continue
                }
                result.append(TileCoordinate(z: Int(z), x: Int(x), y: Int((1 << z) - 1 - row)))
            }
            return result
        }
    }

    private static func hasRelation(_ name: String, in database: borrowing SQLiteDatabase) throws(TileError) -> Bool {
        let query = try database.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = '\(name)'")
        return try query.step()
    }

    /// Reads every metadata row into the identity and returns them by name (for a name stored
    /// twice, the last in sort order wins). A tileset without a metadata table has no metadata.
    private static func readMetadata(
        _ database: borrowing SQLiteDatabase, into identity: inout SHA256
    ) throws(TileError) -> [String:
        String]
    {
        guard try hasRelation("metadata", in: database) else { return [:] }
        let query = try database.prepare("SELECT name, value FROM metadata ORDER BY name, value")
        var metadata: [String: String] = [:]
        while try query.step() {
            let name = query.bytes(0)
            let value = query.bytes(1)
            identity.update([0x4D])  // "M"
            identity.updateLengthPrefixed(name)
            if query.isNull(1) {
                identity.update([0xFF, 0xFF, 0xFF, 0xFF])
            } else {
                identity.updateLengthPrefixed(value)
            }
            metadata[String(decoding: name, as: UTF8.self).lowercased()] = String(decoding: value, as: UTF8.self)
        }
        return metadata
    }

    private struct Index {
        var count = 0
        var minZoom = 0
        var maxZoom = 0
    }

    /// Hashes the tile index in one ordered pass; `length()` of a blob does not read its bytes.
    private static func readIndex(_ database: borrowing SQLiteDatabase, into identity: inout SHA256) throws(TileError) -> Index {
        let query = try database.prepare(
            "SELECT zoom_level, tile_column, tile_row, length(tile_data) FROM tiles ORDER BY zoom_level, tile_column, tile_row")
        var index = Index()
        var minZoom = Int64.max
        var maxZoom = Int64.min
        // 33 bytes a row, hashed in batches rather than one call a row.
        var batch: [UInt8] = []
        batch.reserveCapacity(33 * 256)
        while try query.step() {
            let z = query.int64(0)
            batch.append(0x54)  // "T"
            for value in [z, query.int64(1), query.int64(2), query.int64(3)] {
                withUnsafeBytes(of: value.littleEndian) { batch.append(contentsOf: $0) }
            }
            if batch.count >= 33 * 256 {
                identity.update(batch)
                batch.removeAll(keepingCapacity: true)
            }
            index.count += 1
            minZoom = min(minZoom, z)
            maxZoom = max(maxZoom, z)
        }
        identity.update(batch)
        if index.count > 0 {
            index.minZoom = Int(clamping: minZoom)
            index.maxZoom = Int(clamping: maxZoom)
        }
        return index
    }
}

extension GeoBounds {
    /// Parses MBTiles' `bounds`, "west,south,east,north" in degrees; `nil` unless it is four
    /// finite numbers.
    init?(commaSeparated text: String) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = fields.compactMap { Double($0.trimmingSpaces) }.filter(\.isFinite)
        guard fields.count == 4, numbers.count == 4 else { return nil }
        self.init(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (metadata written by hand has them).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
