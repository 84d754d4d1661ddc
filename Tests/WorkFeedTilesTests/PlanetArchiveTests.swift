import Foundation
import Testing
import WorkFeedTesting

@testable import WorkFeedTiles

/// deploy/make-planet.py, the planet-shaped archive of docs/benchmarks.md, at a few MB (a land
/// square of 2 × 2 z10 tiles over Heidelberg, leaf directories of 256 entries) and read back by
/// ``PMTilesSource``.
@Suite struct PlanetArchiveTests {
    @Test func theGeneratorWritesAPlanetShapedArchiveThatTheReaderReads() throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/planet.pmtiles"
        // SpawnedProcess rather than Foundation's Process (which crashes at random on Linux here).
        let log = directory + "/make-planet.log"
        let ended = try SpawnedProcess.run(
            "/usr/bin/python3", [TestData.path("deploy/make-planet.py"), path, "--land-side", "2", "--leaf-size", "256"], output: log)
        #expect(ended == .exited(0), "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")

        let planet = try PMTilesSource(path: path)
        // Every tile of z0-10, and z11-14 under the 2 × 2 land square.
        #expect(planet.info.tileCount == 1_398_101 + 4 * (4 + 16 + 64 + 256))
        #expect(planet.info.minZoom == 0 && planet.info.maxZoom == 14)
        #expect(planet.info.attribution == "© OpenStreetMap contributors")

        let header = try TestData.bytes(path).prefix(PMTilesHeader.size)
        func u64(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[offset + $1]) << (8 * $1) } }
        #expect(u64(48) > 0, "a leaf directories section")
        #expect(u64(80) > 256, "more entries than one leaf holds")
        #expect(header[96] == 1 && header[97] == 2 && header[98] == 2, "clustered, gzip directories and tiles")

        // The sea: tiles of any zoom up to 10 far from the land are one stored tile.
        let seaAtZ3 = try #require(try planet.storedRange(of: TileCoordinate(z: 3, x: 0, y: 0)))
        let seaAtZ10 = try #require(try planet.storedRange(of: TileCoordinate(z: 10, x: 1023, y: 1023)))
        #expect(seaAtZ3.offset == seaAtZ10.offset)
        // Land tiles are copies of their own, and there is nothing past z10 outside the land.
        let land = try #require(try planet.storedRange(of: TileCoordinate(z: 14, x: 535 << 4, y: 349 << 4)))
        let nextLand = try #require(try planet.storedRange(of: TileCoordinate(z: 14, x: (535 << 4) + 1, y: 349 << 4)))
        #expect(land.offset != nextLand.offset && land.offset != seaAtZ3.offset)
        #expect(try planet.tileData(at: TileCoordinate(z: 11, x: 0, y: 0)) == nil)

        // The real Heidelberg tiles under the land square, where they are in the small tileset.
        let heidelberg = try MBTilesSource(path: TestData.heidelbergMBTiles)
        var compared = 0
        for coordinate in try heidelberg.coordinates() {
            let shift = coordinate.z - 10
            guard (535...536).contains(coordinate.x >> shift), (349...350).contains(coordinate.y >> shift) else { continue }
            let real = try #require(try heidelberg.tileData(at: coordinate))
            #expect(try planet.tileData(at: coordinate) == real, "\(coordinate)")
            compared += 1
        }
        #expect(compared > 100)
    }
}
