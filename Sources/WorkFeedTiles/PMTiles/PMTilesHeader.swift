/// The 127-byte header of a PMTiles version 3 archive (protomaps PMTiles `spec/v3/spec.md`,
/// chapter 3), little-endian throughout.
struct PMTilesHeader {
    static let size = 127
    static let magic: [UInt8] = Array("PMTiles".utf8)

    /// The spec's compression enum (3.3).
    enum Compression: UInt8 {
        case unknown = 0
        case none = 1
        case gzip = 2
        case brotli = 3
        case zstd = 4

        var name: String {
            switch self {
            case .unknown: "unknown"
            case .none: "none"
            case .gzip: "gzip"
            case .brotli: "brotli"
            case .zstd: "zstd"
            }
        }
    }

    /// A byte range of the archive, checked at parse time to lie inside the file.
    struct Section {
        var offset: UInt64
        var length: UInt64
    }

    var rootDirectory: Section
    var metadata: Section
    var leafDirectories: Section
    var tileData: Section
    var addressedTiles: UInt64
    var tileEntries: UInt64
    var tileContents: UInt64
    var clustered: Bool
    var internalCompression: Compression
    var tileCompression: Compression
    /// 0 unknown, 1 MVT, 2 PNG, 3 JPEG, 4 WebP, 5 AVIF.
    var tileType: UInt8
    var minZoom: Int
    var maxZoom: Int
    var bounds: GeoBounds
    var centerZoom: Int

    /// Parses and checks the header against the file's size.
    ///
    /// - Throws: ``TileError`` `.notATileset` without the magic, `.malformedTileset` for another
    ///   version, a section outside the file, an empty root directory or zooms out of order,
    ///   `.unreadable` for a compression this reader lacks (brotli, zstd).
    init(_ bytes: [UInt8], fileSize: UInt64, path: String) throws(TileError) {
        guard bytes.count >= Self.size else {
            throw TileError(.malformedTileset, "\(bytes.count) bytes: too short for the \(Self.size)-byte PMTiles header", path: path)
        }
        guard bytes.starts(with: Self.magic) else {
            throw TileError(.notATileset, "no 'PMTiles' magic at the start", path: path)
        }
        guard bytes[7] == 3 else {
            throw TileError(.malformedTileset, "PMTiles version \(bytes[7]); only version 3 is supported", path: path)
        }
        func u64(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
            return value
        }
        func i32(_ offset: Int) -> Int32 {
            var value: UInt32 = 0
            for index in 0..<4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
            return Int32(bitPattern: value)
        }
        func section(_ offset: Int, _ name: String) throws(TileError) -> Section {
            let section = Section(offset: u64(offset), length: u64(offset + 8))
            let (end, overflow) = section.offset.addingReportingOverflow(section.length)
            guard !overflow, end <= fileSize else {
                throw TileError(
                    .malformedTileset,
                    "the header puts the \(name) at bytes \(section.offset) + \(section.length), past the end of the \(fileSize)-byte file",
                    path: path)
            }
            return section
        }
        rootDirectory = try section(8, "root directory")
        metadata = try section(24, "metadata")
        leafDirectories = try section(40, "leaf directories")
        tileData = try section(56, "tile data")
        guard rootDirectory.length > 0 else { throw TileError(.malformedTileset, "the root directory is empty", path: path) }
        addressedTiles = u64(72)
        tileEntries = u64(80)
        tileContents = u64(88)
        clustered = bytes[96] == 1
        for (offset, name) in [(97, "internal"), (98, "tile")] {
            guard let compression = Compression(rawValue: bytes[offset]) else {
                throw TileError(.malformedTileset, "\(name) compression \(bytes[offset]) is not in the spec", path: path)
            }
            guard compression != .brotli && compression != .zstd else {
                throw TileError(.unreadable, "\(name) compression is \(compression.name): only none and gzip are supported", path: path)
            }
        }
        internalCompression = Compression(rawValue: bytes[97]) ?? .unknown
        tileCompression = Compression(rawValue: bytes[98]) ?? .unknown
        tileType = bytes[99]
        minZoom = Int(bytes[100])
        maxZoom = Int(bytes[101])
        guard minZoom <= maxZoom else {
            throw TileError(.malformedTileset, "min zoom \(minZoom) is greater than max zoom \(maxZoom)", path: path)
        }
        bounds = GeoBounds(
            west: Double(i32(102)) / 1e7, south: Double(i32(106)) / 1e7, east: Double(i32(110)) / 1e7, north: Double(i32(114)) / 1e7)
        centerZoom = Int(bytes[118])
    }

    /// The TilesetInfo `format` for the tile type.
    var format: String {
        switch tileType {
        case 1: "pbf"
        case 2: "png"
        case 3: "jpg"
        case 4: "webp"
        case 5: "avif"
        default: ""
        }
    }
}
