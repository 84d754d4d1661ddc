import Synchronization
import WorkFeedModel

/// A PMTiles version 3 archive (protomaps PMTiles `spec/v3/spec.md`), read through a
/// ``RangeReader``: a local file with `pread`, or a remote archive by HTTP range requests.
///
/// The header and root directory are read and checked when it opens; leaf directories are read
/// when a tile needs them and kept decoded in a small LRU (64 of them). Every
/// offset and length from the archive is checked against its section and the archive's size before it
/// is read, directories and metadata inflate to 64 MiB at most, and a lookup follows at most
/// three levels of leaf directories (the spec discourages more than one) without visiting one
/// twice, so a corrupt or hostile archive gives a ``TileError``, never a trap or a loop.
///
/// Its ``TilesetInfo/identity`` is, for a local file, the SHA-256 of the header, the root
/// directory's bytes, the metadata's bytes and the whole leaf directories section, as stored
/// (compressed). Those name every tile's id, offset and length, so a tile added, removed, moved or
/// resized changes the identity; a tile rewritten in place with the same length does not. Hashing
/// the leaf section reads it once at open (a few hundred KiB for a country, far more for a planet).
///
/// A remote archive is never read whole, so its identity is the SHA-256 of the header, the root
/// directory, the metadata, the archive's size and its version as the server names it
/// (``RangeReader/remoteVersion``: the `ETag`, else `Last-Modified`). A rebuilt archive uploaded
/// to the same URL gets a new `ETag`, hence a new identity; the same archive as a local file has
/// another identity than behind a URL (docs/maps.md, "Tilesets by URL").
public final class PMTilesSource: TileSource {
    public let info: TilesetInfo
    private let reader: any RangeReader
    private let header: PMTilesHeader
    private let root: PMTilesDirectory
    private let leaves: Mutex<LeafCache>

    /// Leaf directories kept decoded; a city-sized view touches a handful.
    static let leafCacheCapacity = 64
    /// The most a directory or the metadata may inflate to.
    static let maximumDirectoryBytes = 64 << 20
    /// The most a tile may inflate to.
    static let maximumTileBytes = 64 << 20
    /// Leaf directory levels below the root that a lookup follows.
    static let maximumLeafDepth = 3

    /// Opens the archive file: reads and checks the header, root directory and metadata, and
    /// hashes them with the leaf directories for the identity.
    ///
    /// - Throws: ``TileError`` `.unreadable` when the file cannot be read or uses a compression
    ///   other than none and gzip, `.notATileset` without the PMTiles magic, `.malformedTileset`
    ///   for a header, directory or metadata that breaks the spec.
    public convenience init(path: String) throws(TileError) {
        try self.init(reader: ReadOnlyFile(path: path))
    }

    /// Opens the archive `reader` reads: as ``init(path:)``, but a remote archive's identity
    /// comes from its version instead of its leaf directories, and its tiles are not counted
    /// when the header does not say how many there are (that would read every leaf directory).
    ///
    /// - Throws: ``TileError`` as ``init(path:)``, and `.unavailable` when a remote archive stops
    ///   answering while it opens.
    init(reader: any RangeReader) throws(TileError) {
        let path = reader.location
        let headerBytes = try reader.prefix(PMTilesHeader.size)
        let header = try PMTilesHeader(headerBytes, fileSize: reader.size, path: path)
        let rootBytes = try Self.readSection(reader, header.rootDirectory, name: "root directory", path: path)
        let root = try PMTilesDirectory(
            decoding: Self.inflate(rootBytes, header.internalCompression, name: "root directory", path: path), path: path,
            name: "root directory")
        let metadataBytes = try Self.readSection(reader, header.metadata, name: "metadata", path: path)
        let metadata = try Self.parseMetadata(
            Self.inflate(metadataBytes, header.internalCompression, name: "metadata", path: path), path: path)

        var identity = SHA256()
        if let version = reader.remoteVersion {
            identity.update("PMTiles remote identity 1\n")
            for part in [headerBytes, rootBytes, metadataBytes, Array("size \(reader.size)\nversion \(version)\n".utf8)] {
                identity.updateLengthPrefixed(part)
            }
        } else {
            identity.update("PMTiles identity 1\n")
            for part in [headerBytes, rootBytes, metadataBytes] {
                identity.updateLengthPrefixed(part)
            }
            try Self.hashLeafDirectories(reader, header.leafDirectories, into: &identity)
        }

        self.reader = reader
        self.header = header
        self.root = root
        leaves = Mutex(LeafCache(capacity: Self.leafCacheCapacity))
        // 0 means "unknown" (spec 3.2): then the runs are counted, in a local file only; a remote
        // archive's stays 0 (unknown), as counting would fetch every leaf directory.
        let tileCount =
            header.addressedTiles > 0 || reader.remoteVersion != nil
            ? Int(clamping: header.addressedTiles) : try Self.countTiles(root, file: reader, header: header)
        var info = TilesetInfo(
            path: path, name: metadata.name, attribution: metadata.attribution, minZoom: header.minZoom, maxZoom: header.maxZoom,
            bounds: header.bounds, format: header.format, tileCount: tileCount, identity: identity.finalize().hexString)
        info.vectorLayers = metadata.vectorLayers
        self.info = info
    }

    public func tileData(at coordinate: TileCoordinate) throws(TileError) -> [UInt8]? {
        do throws(TileError) {
            guard let (offset, length) = try storedRange(of: coordinate) else { return nil }
            let stored = try reader.read(at: offset, count: length)
            switch header.tileCompression {
            case .gzip:
                return try Self.gunzipTile(stored)
            case .unknown where Inflate.isCompressed(stored):
                return try Self.gunzipTile(stored)
            default:
                return stored
            }
        } catch {
            var error = error
            error.path = info.path
            error.tile = coordinate
            throw error
        }
    }

    /// Where the tile's stored (compressed) bytes are in the file, or `nil` when there is no such
    /// tile; checked to lie inside the tile data section.
    func storedRange(of coordinate: TileCoordinate) throws(TileError) -> (offset: UInt64, length: Int)? {
        guard let tileID = PMTilesTileID.id(coordinate), let entry = try findTileEntry(tileID) else { return nil }
        let (end, overflow) = entry.offset.addingReportingOverflow(entry.length)
        guard !overflow, end <= header.tileData.length else {
            throw TileError(
                .malformedTileset,
                "its directory entry points at bytes \(entry.offset) + \(entry.length) of the \(header.tileData.length)-byte tile data")
        }
        return (header.tileData.offset + entry.offset, Int(entry.length))
    }

    private static func gunzipTile(_ stored: [UInt8]) throws(TileError) -> [UInt8] {
        do {
            return try Inflate.decompress(stored, limit: maximumTileBytes)
        } catch {
            throw TileError(.malformedTile, "gzip: \(error.message)")
        }
    }

    /// Walks from the root through leaf directories to the tile entry for `tileID`.
    private func findTileEntry(_ tileID: UInt64) throws(TileError) -> PMTilesEntry? {
        guard var entry = root.entry(for: tileID) else { return nil }
        var visited: Set<UInt64> = []
        var depth = 0
        while entry.runLength == 0 {
            depth += 1
            guard depth <= Self.maximumLeafDepth else {
                throw TileError(.malformedTileset, "leaf directories nest deeper than \(Self.maximumLeafDepth) levels")
            }
            guard visited.insert(entry.offset).inserted else {
                throw TileError(.malformedTileset, "leaf directory at \(entry.offset) refers back to itself")
            }
            guard let next = try leafDirectory(entry).entry(for: tileID) else { return nil }
            entry = next
        }
        return entry
    }

    /// A leaf directory, from the cache or read, inflated and decoded (outside the lock: two
    /// threads may both decode one, and the cache keeps either).
    private func leafDirectory(_ entry: PMTilesEntry) throws(TileError) -> PMTilesDirectory {
        if let cached = leaves.withLock({ $0.directory(at: entry.offset) }) { return cached }
        let directory = try Self.readLeafDirectory(entry, file: reader, header: header)
        leaves.withLock { $0.insert(directory, at: entry.offset) }
        return directory
    }

    private static func readLeafDirectory(
        _ entry: PMTilesEntry, file: any RangeReader, header: PMTilesHeader
    ) throws(TileError)
        -> PMTilesDirectory
    {
        let (end, overflow) = entry.offset.addingReportingOverflow(entry.length)
        guard !overflow, end <= header.leafDirectories.length else {
            throw TileError(
                .malformedTileset,
                "a leaf directory entry points at bytes \(entry.offset) + \(entry.length) of the "
                    + "\(header.leafDirectories.length)-byte leaf section",
                path: file.location)
        }
        guard entry.length <= UInt64(maximumDirectoryBytes) else {
            throw TileError(
                .malformedTileset, "a leaf directory of \(entry.length) bytes (more than \(maximumDirectoryBytes))", path: file.location)
        }
        let stored = try file.read(at: header.leafDirectories.offset + entry.offset, count: Int(entry.length))
        let name = "leaf directory at \(entry.offset)"
        return try PMTilesDirectory(
            decoding: inflate(stored, header.internalCompression, name: name, path: file.location), path: file.location, name: name)
    }

    /// Sums the run lengths of every tile entry, through every leaf directory (each once).
    private static func countTiles(_ root: PMTilesDirectory, file: any RangeReader, header: PMTilesHeader) throws(TileError) -> Int {
        var total: UInt64 = 0
        var pending: [(PMTilesDirectory, Int)] = [(root, 0)]
        var visited: Set<UInt64> = []
        while let (directory, depth) = pending.popLast() {
            for entry in directory.entries {
                if entry.runLength > 0 {
                    total &+= entry.runLength
                } else if depth < maximumLeafDepth, visited.insert(entry.offset).inserted {
                    pending.append((try readLeafDirectory(entry, file: file, header: header), depth + 1))
                }
            }
        }
        return Int(clamping: total)
    }

    private static func readSection(
        _ file: any RangeReader, _ section: PMTilesHeader.Section, name: String, path: String
    ) throws(TileError)
        -> [UInt8]
    {
        guard section.length <= UInt64(maximumDirectoryBytes) else {
            throw TileError(.malformedTileset, "the \(name) is \(section.length) bytes, more than \(maximumDirectoryBytes)", path: path)
        }
        return try file.read(at: section.offset, count: Int(section.length))
    }

    private static func inflate(
        _ bytes: [UInt8], _ compression: PMTilesHeader.Compression, name: String, path: String
    ) throws(TileError) -> [UInt8] {
        guard compression == .gzip || (compression == .unknown && Inflate.isCompressed(bytes)) else { return bytes }
        do {
            return try Inflate.decompress(bytes, limit: maximumDirectoryBytes)
        } catch {
            throw TileError(.malformedTileset, "\(name): gzip: \(error.message)", path: path)
        }
    }

    private static func parseMetadata(_ bytes: [UInt8], path: String) throws(TileError) -> TilesetMetadataJSON {
        // Some writers leave the metadata out altogether; the spec asks for an object.
        if bytes.isEmpty { return TilesetMetadataJSON() }
        guard let metadata = TilesetMetadataJSON(bytes) else {
            throw TileError(.malformedTileset, "the metadata is not a JSON object", path: path)
        }
        return metadata
    }

    /// Hashes the leaf directories section a MiB at a time (it is not kept in memory).
    private static func hashLeafDirectories(
        _ file: any RangeReader, _ section: PMTilesHeader.Section, into identity: inout SHA256
    )
        throws(TileError)
    {
        withUnsafeBytes(of: section.length.littleEndian) { identity.update($0) }
        var done: UInt64 = 0
        while done < section.length {
            let count = Int(min(section.length - done, 1 << 20))
            identity.update(try file.read(at: section.offset + done, count: count))
            done += UInt64(count)
        }
    }
}

/// Decoded leaf directories by offset, least recently used first out.
private struct LeafCache: ~Copyable {
    let capacity: Int
    private var directories: [UInt64: (directory: PMTilesDirectory, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func directory(at offset: UInt64) -> PMTilesDirectory? {
        guard let found = directories[offset] else { return nil }
        clock += 1
        directories[offset] = (found.directory, clock)
        return found.directory
    }

    mutating func insert(_ directory: PMTilesDirectory, at offset: UInt64) {
        clock += 1
        if directories[offset] == nil, directories.count >= capacity,
            let oldest = directories.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            // A linear scan of at most `capacity` entries, only when a leaf is read from the file.
            directories[oldest] = nil
        }
        directories[offset] = (directory, clock)
    }
}
