import Foundation
import Testing

@testable import WorkFeedTiles

/// MBTiles and PMTiles readers against the test tilesets (`Tests/Data/basemap/tilesets`, the
/// demo's `deploy/basemap/heidelberg.mbtiles`), and ``Tileset/open(path:)`` on files that are not
/// tilesets.
@Suite struct TilesetTests {
    @Test func liechtensteinPMTilesHoldsTheSameTilesAsItsMBTiles() throws {
        let mbtiles = try #require(try Tileset.open(path: TestData.liechtensteinMBTiles) as? MBTilesSource)
        let pmtiles = try #require(try Tileset.open(path: TestData.liechtensteinPMTiles) as? PMTilesSource)
        let coordinates = try mbtiles.coordinates()
        #expect(coordinates.count == 170)
        #expect(mbtiles.info.tileCount == 170 && pmtiles.info.tileCount == 170)
        var layers = Set<String>()
        for coordinate in coordinates {
            let fromMBTiles = try #require(try mbtiles.tileData(at: coordinate), "\(coordinate)")
            let fromPMTiles = try #require(try pmtiles.tileData(at: coordinate), "\(coordinate)")
            #expect(fromMBTiles == fromPMTiles, "\(coordinate)")
            #expect(Tileset.sniff(fromMBTiles) == .vector)
            let tile = try VectorTile(decoding: fromPMTiles)
            layers.formUnion(tile.layers.map(\.name))
        }
        #expect(layers.isSuperset(of: ["transportation", "building", "water", "landuse", "place"]), "\(layers.sorted())")

        for info in [mbtiles.info, pmtiles.info] {
            #expect(info.minZoom == 10 && info.maxZoom == 14)
            #expect(info.attribution == "© OpenStreetMap contributors")
            #expect(info.name == "Liechtenstein (OpenStreetMap, OpenMapTiles schema)")
            #expect(info.format == "pbf")
            #expect(info.vectorLayers.contains("transportation") && info.vectorLayers.first == "place")
            let bounds = try #require(info.bounds)
            #expect(abs(bounds.west - 9.471078) < 1e-6 && abs(bounds.south - 47.04774) < 1e-6)
            #expect(abs(bounds.east - 9.636217) < 1e-6 && abs(bounds.north - 47.27128) < 1e-6)
            #expect(info.identity.count == 64)
        }
        #expect(mbtiles.info.vectorLayers == pmtiles.info.vectorLayers)
        #expect(mbtiles.info.identity != pmtiles.info.identity)
    }

    @Test func mbtilesRowsAreTMS() throws {
        let source = try MBTilesSource(path: TestData.liechtensteinMBTiles)
        // The database row (zoom 10, column 538, TMS row 664) is XYZ y = 2^10 - 1 - 664 = 359.
        let tile = try #require(try source.tileData(at: TileCoordinate(z: 10, x: 538, y: 359)))
        #expect(try VectorTile(decoding: tile).layers.contains { $0.name == "boundary" || $0.name == "place" })
        #expect(try source.tileData(at: TileCoordinate(z: 10, x: 538, y: 664)) == nil)
        #expect(try source.coordinates().first == TileCoordinate(z: 10, x: 538, y: 359))
        // Addresses that are no tile are absent, not errors.
        for coordinate in [TileCoordinate(z: -1, x: 0, y: 0), TileCoordinate(z: 10, x: 1024, y: 0), TileCoordinate(z: 40, x: 0, y: 0)] {
            #expect(try source.tileData(at: coordinate) == nil)
        }
    }

    @Test func heidelbergOpensWithItsMetadata() throws {
        let (source, opening) = try measure { try Tileset.open(path: TestData.heidelbergMBTiles) }
        #expect(source is MBTilesSource)
        #expect(source.info.maxZoom == 14 && source.info.minZoom == 10)
        #expect(source.info.attribution == "© OpenStreetMap contributors")
        #expect(source.info.tileCount == 357)
        #expect(source.info.name.hasPrefix("Heidelberg"))
        #expect(opening < .milliseconds(50), "opening and hashing took \(opening)")

        let coordinate = TileCoordinate(z: 14, x: 8587, y: 5598)
        let bytes = try #require(try source.tileData(at: coordinate))
        let (tile, decoding) = try measure { try VectorTile(decoding: bytes) }
        let features = tile.layers.reduce(0) { $0 + $1.features.count }
        print(
            "Heidelberg: opened with identity in \(opening); z14 tile \(coordinate), \(bytes.count) bytes, \(features) features, "
                + "decoded in \(decoding)"
        )
        #expect(features > 100)
        #expect(tile.layers.contains { $0.name == "building" })
    }

    @Test func everyTileOfEveryTestTilesetDecodes() throws {
        for path in [TestData.heidelbergMBTiles, TestData.monacoMBTiles] {
            let source = try MBTilesSource(path: path)
            let coordinates = try source.coordinates()
            #expect(coordinates.count == source.info.tileCount)
            let clock = ContinuousClock()
            let start = clock.now
            var bytes = 0
            for coordinate in coordinates {
                let data = try #require(try source.tileData(at: coordinate))
                bytes += data.count
                let tile = try VectorTile(decoding: data)
                #expect(tile.skippedLayers == 0)
                #expect(tile.layers.allSatisfy { $0.skippedFeatures == 0 }, "\(coordinate)")
            }
            print(
                "\(path.split(separator: "/").last ?? ""): \(coordinates.count) tiles, \(bytes) bytes read, gunzipped and decoded in "
                    + "\(clock.now - start)"
            )
        }
    }

    @Test func identityIsTheContentNotThePath() throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for original in [TestData.liechtensteinMBTiles, TestData.liechtensteinPMTiles] {
            let copy = directory + "/copy-" + (original.split(separator: "/").last.map(String.init) ?? "")
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            let (first, duration) = try measure { try Tileset.open(path: original) }
            let second = try Tileset.open(path: copy)
            #expect(first.info.identity == second.info.identity)
            #expect(second.info.path == copy)
            print("\(original.split(separator: "/").last ?? ""): opened with identity in \(duration)")
            #expect(duration < .milliseconds(50))
        }
    }

    // MARK: - Not tilesets

    @Test func openingWhatIsNotATilesetNamesThePath() throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = directory + "/notes.txt"
        try Data("GIF89a is what this text starts with".utf8).write(to: URL(fileURLWithPath: text))
        let empty = directory + "/empty.mbtiles"
        try Data().write(to: URL(fileURLWithPath: empty))
        let noTiles = directory + "/no-tiles.mbtiles"
        try Self.sqliteWithoutTiles.write(to: URL(fileURLWithPath: noTiles))
        let pmtilesV2 = directory + "/old.pmtiles"
        try Data([0x50, 0x4D, 0x02, 0x00] + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: pmtilesV2))
        let missing = directory + "/missing.pmtiles"

        let cases: [(String, TileError.Code, String)] = [
            (text, .notATileset, "starts with 'GIF8', not an SQLite database (MBTiles) or a PMTiles archive"),
            (empty, .notATileset, "an empty file"),
            (noTiles, .notATileset, "without a 'tiles' table"),
            (pmtilesV2, .notATileset, "PMTiles version 2"),
            (missing, .unreadable, "No such file"),
            (directory, .unreadable, "directory"),
        ]
        for (path, code, fragment) in cases {
            let error = #expect(throws: TileError.self) { try Tileset.open(path: path) }
            #expect(error?.code == code, "\(path): \(String(describing: error))")
            #expect(error?.path == path)
            #expect(error?.description.hasPrefix(path + ": ") == true)
            #expect(error?.message.contains(fragment) == true, "\(String(describing: error))")
        }
    }

    @Test func sniffsTileFormats() {
        #expect(Tileset.sniff([]) == .vector)
        #expect(Tileset.sniff([0x1A, 0x05]) == .vector)
        #expect(Tileset.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(Tileset.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(Tileset.sniff(Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8)) == .webp)
        #expect(Tileset.sniff(Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WAVE".utf8)) == nil)
        #expect(Tileset.sniff(Array("GIF89a".utf8)) == nil)
        #expect(Tileset.sniff([0x1F, 0x8B, 0x08]) == nil)
    }

    /// An SQLite database of 1,024 bytes (page size 512) with one table, `notes`, made with
    /// Python's sqlite3: its non-zero runs by offset.
    static let sqliteWithoutTiles: Data = {
        let runs: [(Int, String)] = [
            (0, "U1FMaXRlIGZvcm1hdCAzAAIAAQEAQCAgAAAAAwAAAAI="), (43, "AgAAAAQ="), (59, "AQ=="), (95, "AwAuYwENAAAAAQHKAAHK"),
            (458, "NAEGFxcXAUl0YWJsZW5vdGVzbm90ZXMCQ1JFQVRFIFRBQkxFIG5vdGVzICh0ZXh0IHRleHQpDQAAAAEB7wAB7w=="),
            (1007, "DwECJ25vdCBhIHRpbGVzZXQ="),
        ]
        var bytes = [UInt8](repeating: 0, count: 1024)
        for (offset, base64) in runs {
            let run = [UInt8](Data(base64Encoded: base64) ?? Data())
            bytes.replaceSubrange(offset..<(offset + run.count), with: run)
        }
        return Data(bytes)
    }()
}
