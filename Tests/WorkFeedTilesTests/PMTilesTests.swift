import Foundation
import Testing

@testable import WorkFeedTiles

/// PMTiles v3 details: tile ids, directory lookups, leaf directories (in archives this test
/// writes), and damaged archives.
@Suite struct PMTilesTests {
    @Test func tileIDsFollowTheSpecExamples() {
        let examples: [(Int, Int, Int, UInt64)] = [
            (0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5), (12, 3423, 1763, 19_078_479),
        ]
        for (z, x, y, id) in examples {
            #expect(PMTilesTileID.id(TileCoordinate(z: z, x: x, y: y)) == id, "\(z)/\(x)/\(y)")
        }
        // Each zoom's tiles take the ids right after the lower zooms', one each.
        for z in 0...5 {
            let side = 1 << z
            var ids = Set<UInt64>()
            for x in 0..<side {
                for y in 0..<side { ids.insert(PMTilesTileID.id(TileCoordinate(z: z, x: x, y: y)) ?? .max) }
            }
            let first = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
            #expect(ids == Set(first..<(first + UInt64(side * side))), "zoom \(z)")
        }
        #expect(PMTilesTileID.id(TileCoordinate(z: 2, x: 4, y: 0)) == nil)
        #expect(PMTilesTileID.id(TileCoordinate(z: 31, x: 0, y: 0)) == nil)
        #expect(PMTilesTileID.id(TileCoordinate(z: 30, x: (1 << 30) - 1, y: 0)) != nil)
    }

    @Test func directoryLookupFollowsRunsAndLeaves() {
        let directory = PMTilesDirectory(entries: [
            PMTilesEntry(tileID: 5, offset: 0, length: 10, runLength: 3),  // 5, 6, 7
            PMTilesEntry(tileID: 9, offset: 10, length: 4, runLength: 1),
            PMTilesEntry(tileID: 20, offset: 0, length: 50, runLength: 0),  // a leaf from 20 on
        ])
        #expect(directory.entry(for: 4) == nil)
        #expect(directory.entry(for: 5)?.offset == 0)
        #expect(directory.entry(for: 7)?.offset == 0)
        #expect(directory.entry(for: 8) == nil)
        #expect(directory.entry(for: 9)?.offset == 10)
        #expect(directory.entry(for: 10) == nil)
        #expect(directory.entry(for: 20)?.runLength == 0)
        #expect(directory.entry(for: 1_000_000)?.runLength == 0)
    }

    @Test func directoryDecodingChecksCountsAndOffsets() throws {
        let entries = [
            PMTilesEntry(tileID: 1, offset: 0, length: 10, runLength: 1),
            PMTilesEntry(tileID: 2, offset: 10, length: 7, runLength: 2),
            PMTilesEntry(tileID: 9, offset: 3, length: 7, runLength: 1),
        ]
        let encoded = PMTilesWriter.encode(entries)
        #expect(try PMTilesDirectory(decoding: encoded, path: "t", name: "root").entries == entries)

        let broken: [([UInt8], String)] = [
            ([0], "0 entries"),
            ([0x80, 0x80, 0x80, 0x80, 0x01, 1, 1, 1, 1], "cannot fit"),
            ([2, 1, 0, 1, 1, 5, 5, 1, 0], "repeats the tile id"),
            ([1, 1, 1, 0, 1], "length 0"),
            ([1, 1, 1, 5, 0], "first entry's offset"),
            ([2, 1, 1, 1, 1, 0x85, 0x01, 5, 1], "runs past the end"),
            ([1, 1, 1, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "longer than 64 bits"),
        ]
        for (bytes, fragment) in broken {
            let error = #expect(throws: TileError.self) { try PMTilesDirectory(decoding: bytes, path: "t.pmtiles", name: "root directory") }
            #expect(error?.code == .malformedTileset)
            #expect(error?.message.contains(fragment) == true, "\(bytes): \(String(describing: error))")
        }
    }

    /// Archives with one and two levels of leaf directories, written here from the Liechtenstein
    /// MBTiles, read back tile for tile.
    @Test(arguments: [1, 2])
    func leafDirectoriesAreFollowed(levels: Int) throws {
        let mbtiles = try MBTilesSource(path: TestData.liechtensteinMBTiles)
        var tiles: [(UInt64, [UInt8])] = []
        var empty: Set<TileCoordinate> = []
        for coordinate in try mbtiles.coordinates() {
            let bytes = try #require(try mbtiles.tileData(at: coordinate))
            // PMTiles entries have a length of 1 or more, and this writer stores tiles uncompressed:
            // a tile that gunzips to nothing is left out.
            guard !bytes.isEmpty else {
                empty.insert(coordinate)
                continue
            }
            tiles.append((try #require(PMTilesTileID.id(coordinate)), bytes))
        }
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/leaves.pmtiles"
        try Data(PMTilesWriter.archive(tiles: tiles, leafSize: 8, levels: levels)).write(to: URL(fileURLWithPath: path))

        let source = try #require(try Tileset.open(path: path) as? PMTilesSource)
        #expect(source.info.tileCount == 170 - empty.count)
        #expect(source.info.name == "written by the test")
        #expect(source.info.vectorLayers == ["x"])
        for coordinate in try mbtiles.coordinates() {
            let expected = empty.contains(coordinate) ? nil : try mbtiles.tileData(at: coordinate)
            #expect(try source.tileData(at: coordinate) == expected, "\(coordinate)")
        }
        // Ids between and around the tiles are absent.
        #expect(try source.tileData(at: TileCoordinate(z: 0, x: 0, y: 0)) == nil)
        #expect(try source.tileData(at: TileCoordinate(z: 14, x: 0, y: 0)) == nil)
        #expect(try source.tileData(at: TileCoordinate(z: 20, x: 5, y: 5)) == nil)
    }

    @Test func aLeafDirectoryPointingAtItselfIsAnErrorNotALoop() throws {
        // The root's leaf entry covers every id from 0; the leaf holds one leaf entry pointing at
        // itself.
        let leaf = PMTilesWriter.encode([PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0)])
        let selfReferring = PMTilesWriter.encode([PMTilesEntry(tileID: 0, offset: 0, length: UInt64(leaf.count), runLength: 0)])
        #expect(selfReferring.count == leaf.count)
        let root = PMTilesWriter.encode([PMTilesEntry(tileID: 0, offset: 0, length: UInt64(selfReferring.count), runLength: 0)])
        let bytes = PMTilesWriter.layout(root: root, metadata: Array("{}".utf8), leaves: selfReferring, tileData: [1], counts: 1)
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/loop.pmtiles"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let source = try PMTilesSource(path: path)
        let error = #expect(throws: TileError.self) { try source.tileData(at: TileCoordinate(z: 3, x: 1, y: 1)) }
        #expect(error?.code == .malformedTileset)
        #expect(error?.tile == TileCoordinate(z: 3, x: 1, y: 1))
        #expect(error?.message.contains("refers back to itself") == true, "\(String(describing: error))")
    }

    @Test func aCorruptedTileIsAMalformedTileNamingItsAddress() throws {
        let original = try PMTilesSource(path: TestData.liechtensteinPMTiles)
        let coordinate = TileCoordinate(z: 14, x: 8625, y: 5755)
        let (offset, length) = try #require(try original.storedRange(of: coordinate))
        var bytes = try TestData.bytes(TestData.liechtensteinPMTiles)
        // Inside the deflate data, past the 10-byte gzip header: the CRC or the codes catch it.
        bytes[Int(offset) + length / 2] ^= 0x55
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/corrupt.pmtiles"
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let source = try Tileset.open(path: path)
        let error = #expect(throws: TileError.self) { try source.tileData(at: coordinate) }
        #expect(error?.code == .malformedTile)
        #expect(error?.tile == coordinate)
        #expect(error?.path == path)
        #expect(error?.description.contains("tile 14/8625/5755: gzip: ") == true, "\(String(describing: error))")
        // Its neighbours still read.
        let mbtiles = try MBTilesSource(path: TestData.liechtensteinMBTiles)
        for other in try mbtiles.coordinates() where other != coordinate {
            #expect(try source.tileData(at: other) != nil)
        }
    }

    @Test func headersThatBreakTheSpecAreRefused() throws {
        let good = try TestData.bytes(TestData.liechtensteinPMTiles)
        func patched(_ offset: Int, _ values: [UInt8]) -> [UInt8] {
            var bytes = good
            bytes.replaceSubrange(offset..<(offset + values.count), with: values)
            return bytes
        }
        let cases: [([UInt8], TileError.Code, String)] = [
            (Array(good.prefix(100)), .malformedTileset, "too short"),
            (patched(7, [2]), .malformedTileset, "version 2"),
            (patched(16, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), .malformedTileset, "root directory at bytes"),
            (patched(56, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00]), .malformedTileset, "tile data at bytes"),
            (patched(97, [3]), .unreadable, "brotli"),
            (patched(98, [9]), .malformedTileset, "tile compression 9"),
            (patched(100, [15, 14]), .malformedTileset, "min zoom 15"),
            (patched(127, [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF, 0x55]), .malformedTileset, "root directory: gzip"),
        ]
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (index, (bytes, code, fragment)) in cases.enumerated() {
            let path = directory + "/case\(index).pmtiles"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: TileError.self) { try PMTilesSource(path: path) }
            #expect(error?.code == code, "case \(index): \(String(describing: error))")
            #expect(error?.path == path)
            #expect(error?.message.contains(fragment) == true, "case \(index): \(String(describing: error))")
        }
    }

    /// Every byte of the header, root directory and metadata flipped in turn: opening and reading
    /// give values or errors, never a trap.
    @Test func damagedArchivesNeverTrap() throws {
        let good = try TestData.bytes(TestData.liechtensteinPMTiles)
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/damaged.pmtiles"
        try Data(good).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var opened = 0
        let probes = [
            TileCoordinate(z: 10, x: 538, y: 359), TileCoordinate(z: 14, x: 8625, y: 5755), TileCoordinate(z: 12, x: 2156, y: 1438),
        ]
        for position in 0..<1178 {
            try handle.seek(toOffset: UInt64(position))
            try handle.write(contentsOf: [good[position] ^ 0xA5])
            if let source = try? PMTilesSource(path: path) {
                opened += 1
                for probe in probes { _ = try? source.tileData(at: probe) }
            }
            try handle.seek(toOffset: UInt64(position))
            try handle.write(contentsOf: [good[position]])
        }
        print("PMTiles damage: 1178 single-byte changes, \(opened) still opened")
    }
}

/// Writes PMTiles v3 archives for the tests: no internal compression, tiles stored as given.
enum PMTilesWriter {
    static func varint(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Spec appendix A.1.
    static func encode(_ entries: [PMTilesEntry]) -> [UInt8] {
        var bytes: [UInt8] = []
        varint(UInt64(entries.count), into: &bytes)
        var last: UInt64 = 0
        for entry in entries {
            varint(entry.tileID - last, into: &bytes)
            last = entry.tileID
        }
        for entry in entries { varint(entry.runLength, into: &bytes) }
        for entry in entries { varint(entry.length, into: &bytes) }
        for (index, entry) in entries.enumerated() {
            let previous = index > 0 ? entries[index - 1] : nil
            varint(previous.map { $0.offset + $0.length } == entry.offset ? 0 : entry.offset + 1, into: &bytes)
        }
        return bytes
    }

    /// Tiles sorted by id, `leafSize` to a leaf directory, with `levels` levels of leaves.
    static func archive(tiles: [(UInt64, [UInt8])], leafSize: Int, levels: Int) -> [UInt8] {
        var tileData: [UInt8] = []
        var entries: [PMTilesEntry] = []
        for (id, bytes) in tiles.sorted(by: { $0.0 < $1.0 }) {
            entries.append(PMTilesEntry(tileID: id, offset: UInt64(tileData.count), length: UInt64(bytes.count), runLength: 1))
            tileData += bytes
        }
        var leaves: [UInt8] = []
        for _ in 0..<levels {
            var parents: [PMTilesEntry] = []
            for start in stride(from: 0, to: entries.count, by: leafSize) {
                let chunk = Array(entries[start..<min(entries.count, start + leafSize)])
                let encoded = encode(chunk)
                parents.append(
                    PMTilesEntry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt64(encoded.count), runLength: 0))
                leaves += encoded
            }
            entries = parents
        }
        let metadata = Array(#"{"name": "written by the test", "attribution": "test", "vector_layers": [{"id": "x"}]}"#.utf8)
        return layout(root: encode(entries), metadata: metadata, leaves: leaves, tileData: tileData, counts: UInt64(tiles.count))
    }

    static func layout(root: [UInt8], metadata: [UInt8], leaves: [UInt8], tileData: [UInt8], counts: UInt64) -> [UInt8] {
        var header = Array("PMTiles".utf8) + [3]
        func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        func i32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        let rootOffset = UInt64(127)
        let metadataOffset = rootOffset + UInt64(root.count)
        let leavesOffset = metadataOffset + UInt64(metadata.count)
        let tilesOffset = leavesOffset + UInt64(leaves.count)
        for value in [rootOffset, UInt64(root.count), metadataOffset, UInt64(metadata.count), leavesOffset, UInt64(leaves.count)] {
            u64(value)
        }
        for value in [tilesOffset, UInt64(tileData.count), counts, counts, counts] { u64(value) }
        // Clustered, internal compression none, tile compression none, MVT, zooms 0-14.
        header += [1, 1, 1, 1, 0, 14]
        for value: Int32 in [94_710_780, 470_477_400, 96_362_170, 472_712_800] { i32(value) }
        header += [12]
        for value: Int32 in [95_536_480, 471_595_100] { i32(value) }
        return header + root + metadata + leaves + tileData
    }
}
