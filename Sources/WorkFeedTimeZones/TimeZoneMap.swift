public import WorkFeedBytes

/// The IANA time zone of a position on Earth, from WorkFeed's compact boundary file
/// (`timezones.wftz`, made by `deploy/make-timezones.sh`; the format is in docs/timezones.md).
///
/// The file is a quadtree per 4 x 4 degree cell, down to pixels of 1/128 degree (about 870 m
/// north to south), whose leaves each hold one zone, or the sea. A position at sea, or on no
/// land a zone covers, gets the nautical zone of its longitude (``nauticalZone(longitude:)``).
///
/// ```swift
/// let map = try TimeZoneMap(bytes: bytes)
/// map.zone(latitude: 49.41, longitude: 8.69)   // "Europe/Berlin"
/// ```
///
/// Every count, name and node of the file is checked when it is opened, so that a lookup never
/// reads outside the bytes nor loops: a corrupt file is a ``TimeZoneMapError`` from the
/// initializer, never a trap.
public struct TimeZoneMap: Sendable {
    /// The data the file was made from, as written in it (`timezone-boundary-builder 2026c ...`).
    public let source: String
    /// The zones in the file; index 0 is the sea (an empty name).
    public let zoneNames: [String]
    /// Pixels per degree of the finest level.
    public let pixelsPerDegree: Int
    /// Degrees of one top cell (a power-of-two number of pixels wide: `1 << depth`).
    public let cellDegrees: Int
    public let depth: Int
    /// The top cells, from the north-west, a row of `360 / cellDegrees` at a time: each the index
    /// of its first node and its root entry.
    private let cellBases: [UInt32]
    private let cellRoots: [UInt16]
    /// The nodes' children, 4 per node (north-west, north-east, south-west, south-east), as
    /// entries: a leaf (``leafFlag`` set, the zone index in the low 15 bits) or a node, counted
    /// from its cell's first node.
    private let children: [UInt16]
    private let columns: Int
    private let rows: Int

    static let leafFlag: UInt16 = 0x8000
    static let magic: [UInt8] = Array("WFTZ".utf8)
    /// The format version this reader reads.
    public static let formatVersion = 1

    /// Opens a boundary file held in memory and checks all of it.
    /// - Throws: ``TimeZoneMapError`` naming what is wrong and at which byte offset.
    public init(bytes: [UInt8]) throws(TimeZoneMapError) {
        var reader = LittleEndianReader<TimeZoneMapError>(bytes)
        guard Array(try reader.take(4, "magic")) == Self.magic else {
            throw TimeZoneMapError(.notATimeZoneFile, offset: 0, "the file does not start with WFTZ")
        }
        let version = Int(try reader.integer(UInt16.self, "version"))
        guard version == Self.formatVersion else {
            throw TimeZoneMapError(.unsupportedVersion, offset: 4, "format version \(version); this reader reads \(Self.formatVersion)")
        }
        let headerOffset = reader.offset
        pixelsPerDegree = Int(try reader.integer(UInt16.self, "pixels per degree"))
        cellDegrees = Int(try reader.integer(UInt16.self, "cell degrees"))
        depth = Int(try reader.integer(UInt16.self, "depth"))
        _ = try reader.integer(UInt8.self, "coast level")
        guard pixelsPerDegree > 0, cellDegrees > 0, 360 % cellDegrees == 0, 180 % cellDegrees == 0, (1...16).contains(depth),
            cellDegrees * pixelsPerDegree == 1 << depth
        else {
            throw TimeZoneMapError(
                .badHeader, offset: headerOffset,
                "\(pixelsPerDegree) pixels per degree, cells of \(cellDegrees) degrees and depth \(depth) do not fit together")
        }
        let sourceLength = Int(try reader.integer(UInt8.self, "source length"))
        source = try reader.text(sourceLength, "source")
        let zoneCountOffset = reader.offset
        let zoneCount = Int(try reader.integer(UInt32.self, "zone count"))
        guard (1..<Int(Self.leafFlag)).contains(zoneCount) else {
            throw TimeZoneMapError(.badHeader, offset: zoneCountOffset, "\(zoneCount) zones (1 to 32767 allowed)")
        }
        var names: [String] = []
        names.reserveCapacity(zoneCount)
        for index in 0..<zoneCount {
            let length = Int(try reader.integer(UInt8.self, "zone \(index) name length"))
            let start = reader.offset
            let name = try reader.text(length, "zone \(index) name")
            // Index 0 is the sea; every other name is an IANA id, which goes into the index and onto the wire.
            guard index == 0 ? name.isEmpty : Self.isZoneIdentifier(name) else {
                throw TimeZoneMapError(.badName, offset: start, "zone \(index): '\(name)' is not a time-zone id")
            }
            names.append(name)
        }
        zoneNames = names
        let nodeCountOffset = reader.offset
        let nodeCount = Int(try reader.integer(UInt32.self, "node count"))
        columns = 360 / cellDegrees
        rows = 180 / cellDegrees
        let cellCount = columns * rows
        guard reader.remaining == cellCount * 6 + nodeCount * 8 else {
            throw TimeZoneMapError(
                .badLength, offset: nodeCountOffset,
                "\(cellCount) cells and \(nodeCount) nodes need \(cellCount * 6 + nodeCount * 8) bytes after offset \(reader.offset), "
                    + "the file has \(reader.remaining)")
        }
        var bases: [UInt32] = []
        var roots: [UInt16] = []
        bases.reserveCapacity(cellCount)
        roots.reserveCapacity(cellCount)
        for cell in 0..<cellCount {
            let offset = reader.offset
            let base = try reader.integer(UInt32.self, "cell \(cell) first node")
            // Each cell's nodes follow the previous cell's.
            guard Int(base) <= nodeCount, base >= bases.last ?? 0, cell > 0 || base == 0 else {
                throw TimeZoneMapError(.badEntry, offset: offset, "cell \(cell) starts at node \(base) (of \(nodeCount))")
            }
            bases.append(base)
            roots.append(try reader.integer(UInt16.self, "cell \(cell) root"))
        }
        let childrenOffset = reader.offset
        // Two million entries in the shipped file: decoded in one loop over one checked read.
        let raw = try reader.take(nodeCount * 8, "the nodes' children")
        var children: [UInt16] = []
        children.reserveCapacity(nodeCount * 4)
        var at = raw.startIndex
        while at < raw.endIndex {
            children.append(UInt16(raw[at]) | UInt16(raw[at + 1]) << 8)
            at += 2
        }
        // Every entry is a zone the file names, or a node of its own cell written after its parent
        // (so that a lookup ends within `depth` steps).
        for cell in 0..<cellCount {
            let base = Int(bases[cell])
            let end = cell + 1 < cellCount ? Int(bases[cell + 1]) : nodeCount
            func check(_ entry: UInt16, parent: Int, offset: Int) throws(TimeZoneMapError) {
                if entry & Self.leafFlag != 0 {
                    guard Int(entry & ~Self.leafFlag) < zoneCount else {
                        throw TimeZoneMapError(.badEntry, offset: offset, "leaf of zone \(entry & ~Self.leafFlag); the file has \(zoneCount) zones")
                    }
                } else {
                    let node = base + Int(entry)
                    guard node > parent, node < end else {
                        throw TimeZoneMapError(.badEntry, offset: offset, "cell \(cell): node \(node) under \(parent) is outside \(base)..<\(end)")
                    }
                }
            }
            try check(roots[cell], parent: base - 1, offset: nodeCountOffset + 4 + cell * 6 + 4)
            for node in base..<end {
                for quadrant in 0..<4 {
                    try check(children[node * 4 + quadrant], parent: node, offset: childrenOffset + (node * 4 + quadrant) * 2)
                }
            }
        }
        cellBases = bases
        cellRoots = roots
        self.children = children
    }

    /// The zone at a position: a land zone (`Europe/Berlin`), else the nautical zone of its
    /// longitude (`Etc/GMT-2`). Latitudes and longitudes outside the globe are clamped into it.
    /// - Returns: `nil` only for a coordinate that is not a number.
    public func zone(latitude: Double, longitude: Double) -> String? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        guard let index = landZoneIndex(latitude: latitude, longitude: longitude) else {
            return Self.nauticalZone(longitude: longitude)
        }
        return zoneNames[index]
    }

    /// The index in ``zoneNames`` of the land zone at a position, or `nil` at sea.
    public func landZoneIndex(latitude: Double, longitude: Double) -> Int? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        let width = 360 * pixelsPerDegree
        let height = 180 * pixelsPerDegree
        let x = min(max(Int(((longitude + 180) * Double(pixelsPerDegree)).rounded(.down)), 0), width - 1)
        let y = min(max(Int(((90 - latitude) * Double(pixelsPerDegree)).rounded(.down)), 0), height - 1)
        let cell = (y >> depth) * columns + (x >> depth)
        let base = Int(cellBases[cell])
        var entry = cellRoots[cell]
        var level = depth
        // The initializer checked that each node's children come after it, so this ends within `depth` steps.
        while entry & Self.leafFlag == 0, level > 0 {
            level -= 1
            let quadrant = ((y >> level) & 1) * 2 + ((x >> level) & 1)
            entry = children[(base + Int(entry)) * 4 + quadrant]
        }
        guard entry & Self.leafFlag != 0 else { return nil }
        let zone = Int(entry & ~Self.leafFlag)
        return zone == 0 ? nil : zone
    }

    /// Whether `text` has the form of an IANA time-zone id: 1 to 64 ASCII letters, digits and
    /// `/ _ - +`, not starting or ending with `/` (`America/Argentina/Buenos_Aires`, `Etc/GMT-2`).
    /// Says nothing of whether the zone exists.
    public static func isZoneIdentifier(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"): true
            default: false
            }
        }
    }

    /// The nautical zone of a longitude: 15 degrees wide, centred on multiples of 15 degrees,
    /// named the POSIX way (`Etc/GMT-2` is two hours *ahead* of UTC, east of Greenwich).
    public static func nauticalZone(longitude: Double) -> String {
        let clamped = longitude.isFinite ? min(max(longitude, -180), 180) : 0
        let hours = Int((clamped / 15).rounded(.toNearestOrAwayFromZero))
        switch hours {
        case 0: return "Etc/GMT"
        case let east where east > 0: return "Etc/GMT-\(east)"
        default: return "Etc/GMT+\(-hours)"
        }
    }
}

/// A boundary file that cannot be read: a code to switch on, the byte offset, and a message.
public struct TimeZoneMapError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case notATimeZoneFile = "not-a-time-zone-file"
        case unsupportedVersion = "unsupported-version"
        case badHeader = "bad-header"
        case badLength = "bad-length"
        case badEntry = "bad-entry"
        case truncated
        case badName = "bad-name"
        case unreadable
    }

    public var code: Code
    /// Where in the file; `nil` when the file could not be read at all.
    public var offset: Int?
    public var message: String

    public init(_ code: Code, offset: Int?, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String {
        offset.map { "offset \($0): \(message)" } ?? message
    }
}

extension TimeZoneMapError: ByteReadError {
    public static func truncated(_ field: String, offset: Int, needed: Int, remaining: Int) -> Self {
        Self(.truncated, offset: offset, "\(field): needs \(needed) bytes, the file has \(remaining) left")
    }

    public static func notUTF8(_ field: String, offset: Int) -> Self {
        Self(.badName, offset: offset, "\(field): not UTF-8")
    }
}
