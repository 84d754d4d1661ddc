/// One entry of a PMTiles directory (spec chapter 4.1).
struct PMTilesEntry: Sendable, Hashable {
    var tileID: UInt64
    /// From the start of the tile data section for a tile, of the leaf directories section for a
    /// leaf directory.
    var offset: UInt64
    var length: UInt64
    /// How many consecutive tile ids share the tile; 0 for a leaf directory.
    var runLength: UInt64
}

/// A decoded PMTiles directory: entries in ascending tile-id order.
struct PMTilesDirectory: Sendable {
    var entries: [PMTilesEntry]

    init(entries: [PMTilesEntry]) {
        self.entries = entries
    }

    /// Decodes a directory after its compression was removed (spec 4.2 and appendix A.2): a
    /// count, then the columns of tile-id deltas, run lengths, lengths and offsets.
    ///
    /// - Throws: ``TileError`` `.malformedTileset` naming the byte offset: a count of 0 or more
    ///   than the bytes can hold, a varint past the end, tile ids not ascending or past 64 bits,
    ///   a length of 0, or an offset that overflows.
    init(decoding bytes: [UInt8], path: String, name: String) throws(TileError) {
        do throws(TileError) {
            entries = try bytes.withUnsafeBufferPointer { (buffer) throws(TileError) -> [PMTilesEntry] in
                try Self.decode(ProtobufReader(buffer))
            }
        } catch {
            throw TileError(.malformedTileset, "\(name): \(error.message)", path: path)
        }
    }

    private static func decode(_ reader: ProtobufReader) throws(TileError) -> [PMTilesEntry] {
        var reader = reader
        let countOffset = reader.position
        let count = try reader.varint()
        guard count > 0 else { throw ProtobufReader.failure(at: countOffset, "a directory of 0 entries (the spec requires 1 or more)") }
        // Four varints of at least one byte each per entry.
        guard count <= UInt64(reader.remaining / 4) else {
            throw ProtobufReader.failure(at: countOffset, "\(count) entries cannot fit in the \(reader.remaining) bytes that follow")
        }
        let n = Int(count)
        var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var tileID: UInt64 = 0
        for index in 0..<n {
            let offset = reader.position
            let delta = try reader.varint()
            guard index == 0 || delta > 0 else { throw ProtobufReader.failure(at: offset, "entry \(index) repeats the tile id before it") }
            let (sum, overflow) = tileID.addingReportingOverflow(delta)
            guard !overflow else { throw ProtobufReader.failure(at: offset, "tile id past 64 bits") }
            tileID = sum
            entries[index].tileID = tileID
        }
        for index in 0..<n {
            let offset = reader.position
            entries[index].runLength = try reader.varint()
            guard entries[index].runLength <= UInt64(UInt32.max) else {
                throw ProtobufReader.failure(at: offset, "run length \(entries[index].runLength) past 32 bits")
            }
        }
        for index in 0..<n {
            let offset = reader.position
            entries[index].length = try reader.varint()
            guard entries[index].length > 0, entries[index].length <= UInt64(UInt32.max) else {
                throw ProtobufReader.failure(at: offset, "entry \(index) has length \(entries[index].length) (it must be 1 to 2^32 - 1)")
            }
        }
        for index in 0..<n {
            let offset = reader.position
            let value = try reader.varint()
            if value == 0 {
                guard index > 0 else {
                    throw ProtobufReader.failure(at: offset, "the first entry's offset is encoded as 0 ('after the previous one')")
                }
                let previous = entries[index - 1]
                let (next, overflow) = previous.offset.addingReportingOverflow(previous.length)
                guard !overflow else { throw ProtobufReader.failure(at: offset, "offset past 64 bits") }
                entries[index].offset = next
            } else {
                entries[index].offset = value - 1
            }
        }
        return entries
    }

    /// The entry that holds `tileID`: a tile entry whose run covers it, or the leaf directory
    /// entry whose range may hold it (the last entry at or before it, when that is a leaf).
    func entry(for tileID: UInt64) -> PMTilesEntry? {
        var low = 0
        var high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = entries[middle]
            if candidate.tileID == tileID { return candidate }
            if candidate.tileID < tileID {
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        // `high` is now the last entry before `tileID`, or -1.
        guard high >= 0 else { return nil }
        let before = entries[high]
        if before.runLength == 0 { return before }
        return tileID - before.tileID < before.runLength ? before : nil
    }
}

/// Tile ids (spec 4.1): the tiles of every lower zoom, then the position on zoom `z`'s Hilbert
/// curve.
enum PMTilesTileID {
    /// The id of a tile, or `nil` for an address that is no tile (negative, past `2^z`, or a zoom
    /// past ``TileCoordinate/maximumZoom``).
    static func id(_ coordinate: TileCoordinate) -> UInt64? {
        guard coordinate.isValid else { return nil }
        let z = UInt64(coordinate.z)
        // (4^z - 1) / 3 = 1 + 4 + ... + 4^(z-1): the tiles of zooms 0 to z - 1.
        let lowerZooms: UInt64 = ((1 << (2 * z)) - 1) / 3
        return lowerZooms + hilbertIndex(x: UInt64(coordinate.x), y: UInt64(coordinate.y), side: 1 << z)
    }

    /// The classic `xy2d` distance along a Hilbert curve filling a `side` × `side` square (a power
    /// of two), as the PMTiles reference implementations compute it.
    static func hilbertIndex(x: UInt64, y: UInt64, side: UInt64) -> UInt64 {
        var x = x
        var y = y
        var distance: UInt64 = 0
        var s = side / 2
        while s > 0 {
            let rx: UInt64 = x & s != 0 ? 1 : 0
            let ry: UInt64 = y & s != 0 ? 1 : 0
            distance += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so that the curve inside it runs the standard way.
            if ry == 0 {
                if rx == 1 {
                    x = side - 1 - x
                    y = side - 1 - y
                }
                swap(&x, &y)
            }
            s /= 2
        }
        return distance
    }
}
