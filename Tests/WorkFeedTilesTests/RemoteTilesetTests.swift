import Foundation
import Logging
import Testing
import WorkFeedS3
import WorkFeedStore
import WorkFeedTesting

@testable import WorkFeedTiles

/// PMTiles archives by URL: the committed Liechtenstein archive behind a loopback HTTP server
/// with range requests (WorkFeedTesting's ``RangeHTTPServer``) and in moto's S3, read as the
/// same file from disk reads, never whole; servers that stop, fail, ignore `Range` or change the
/// archive behind the URL.
@Suite(.serialized) struct RemoteTilesetTests {
    static let path = "/liechtenstein.pmtiles"

    static func server() throws -> (RangeHTTPServer, [UInt8]) {
        let bytes = try TestData.bytes(TestData.liechtensteinPMTiles)
        return (try RangeHTTPServer(files: [path: bytes]), bytes)
    }

    /// Quick timeouts: a stopped server costs each read this long.
    static let access = TilesetAccess(timeoutSeconds: 1)

    static func open(_ url: String) throws -> any TileSource {
        try Tileset.open(try Tileset.location(url), access: access)
    }

    /// What the archive says about itself, without its path and identity.
    static func description(_ info: TilesetInfo) -> String {
        "\(info.name) \(info.attribution) \(info.minZoom)-\(info.maxZoom) \(String(describing: info.bounds)) \(info.format) "
            + "\(info.tileCount) \(info.vectorLayers)"
    }

    @Test func anArchiveByURLGivesEveryTileOfTheFileAndIsNeverReadWhole() throws {
        let (server, bytes) = try Self.server()
        defer { server.stop() }
        let local = try PMTilesSource(path: TestData.liechtensteinPMTiles)
        let remote = try Self.open(server.url(Self.path))
        #expect(remote is PMTilesSource)
        #expect(remote.info.path == server.url(Self.path))
        #expect(Self.description(remote.info) == Self.description(local.info))
        // Opening took one request for the first 16 KiB (header, root directory, metadata).
        #expect(server.requests == 1 && server.bytesSent <= 16_384, "\(server.requests) requests, \(server.bytesSent) bytes")
        #expect(server.ranges == ["bytes=0-16383"])

        // The identity comes from the header, root directory, metadata, size and ETag: another
        // one than the file's (whose leaf directories are hashed), the same on every open.
        #expect(remote.info.identity != local.info.identity)
        #expect(try Self.open(server.url(Self.path)).info.identity == remote.info.identity)

        let coordinates = try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates()
        let sample = coordinates.filter { $0.z <= 12 } + coordinates.filter { $0.z == 14 }.prefix(20)
        for coordinate in sample {
            #expect(try remote.tileData(at: coordinate) == local.tileData(at: coordinate), "\(coordinate)")
        }
        #expect(try remote.tileData(at: TileCoordinate(z: 14, x: 0, y: 0)) == nil)
        // Each tile (and leaf directory) one range request of its own bytes: far less than the archive.
        #expect(server.ranges.allSatisfy { $0.hasPrefix("bytes=") })
        #expect(server.bytesSent < bytes.count / 2, "\(server.bytesSent) of \(bytes.count) bytes read for \(sample.count) tiles")
    }

    @Test func theSameArchiveInABucketIsReadThroughTheS3Client() throws {
        guard MotoServer.isInstalled else {
            print("skipped: \(MotoServer.skipReason)")
            return
        }
        let moto = try MotoServer()
        defer { moto.stop() }
        let client = try moto.newBucket()
        try client.put("maps/liechtenstein.pmtiles", try TestData.bytes(TestData.liechtensteinPMTiles), contentType: "application/octet-stream")
        let credentials = try MotoServer.writeCredentialsFile()
        defer { try? FileManager.default.removeItem(at: credentials) }
        let access = TilesetAccess(s3: S3StoreSettings(endpoint: moto.endpoint, credentialsFile: credentials.path), environment: [:])
        let location = "s3://\(client.configuration.bucket)/maps/liechtenstein.pmtiles"

        let remote = try Tileset.open(try TilesetLocation(parsing: location), access: access)
        let local = try PMTilesSource(path: TestData.liechtensteinPMTiles)
        #expect(remote.info.path == location)
        #expect(Self.description(remote.info) == Self.description(local.info))
        for coordinate in try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates().filter({ $0.z <= 12 }) {
            #expect(try remote.tileData(at: coordinate) == local.tileData(at: coordinate), "\(coordinate)")
        }

        // A key that is not there is named with what to check.
        let missing = #expect(throws: TileError.self) {
            try Tileset.open(try TilesetLocation(parsing: "s3://\(client.configuration.bucket)/maps/none.pmtiles"), access: access)
        }
        #expect(missing?.code == .unreadable)
        #expect(missing?.description.contains("no archive there: HTTP 404") == true, "\(String(describing: missing))")
        #expect(missing?.description.contains("store.s3.endpoint (\(moto.endpoint))") == true, "\(String(describing: missing))")

        // Replaced in the bucket: the open archive notices at its next read (If-Match), and a new
        // open has another identity.
        var changed = try TestData.bytes(TestData.liechtensteinPMTiles)
        changed[changed.count - 1] ^= 0xFF
        try client.put("maps/liechtenstein.pmtiles", changed, contentType: "application/octet-stream")
        let unread = try #require(try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates().last)
        let error = #expect(throws: TileError.self) { try remote.tileData(at: unread) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("the archive changed since it was opened") == true, "\(String(describing: error))")
        #expect(try Tileset.open(try TilesetLocation(parsing: location), access: access).info.identity != remote.info.identity)
    }

    /// A server that stops: the tiles it cannot give are `.unavailable`, not broken, and not
    /// remembered; once it is back the same lookups give the tiles.
    @Test func aStoppedServerMakesTilesUnavailableUntilItIsBack() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let remote = try Self.open(server.url(Self.path))
        let local = try PMTilesSource(path: TestData.liechtensteinPMTiles)
        let coordinates = try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates().filter { $0.z == 13 }
        let cache = TileCache<DecodedTile>(sources: [remote], budgetBytes: 64 << 20, logger: Logger(label: "test"))
        server.stop()
        for coordinate in coordinates {
            guard case .unavailable(let error) = cache.tile(source: 0, at: coordinate) else {
                Issue.record("\(coordinate): not unavailable")
                continue
            }
            #expect(error.code == .unavailable)
            #expect(error.path == server.url(Self.path) && error.tile == coordinate)
            #expect(error.message.contains("cannot be fetched: no answer"), "\(error)")
        }
        #expect(cache.statistics.entryCount == 0 && cache.statistics.brokenTiles == 0)
        #expect(cache.statistics.unavailableTiles == coordinates.count)

        try server.start()
        for coordinate in coordinates {
            let lookup = cache.tile(source: 0, at: coordinate)
            guard case .tile = lookup else {
                Issue.record("\(coordinate): not read once the server is back: \(lookup)")
                continue
            }
            #expect(try remote.tileData(at: coordinate) == local.tileData(at: coordinate))
        }
    }

    @Test func failuresAtOpenNameTheURLAndWhatToCheck() throws {
        let (server, _) = try Self.server()
        defer { server.stop() }

        let missing = #expect(throws: TileError.self) { try Self.open(server.url("/none.pmtiles")) }
        #expect(missing?.code == .unreadable)
        #expect(
            missing?.description
                == "\(server.url("/none.pmtiles")): no archive there: HTTP 404 Not Found; check the URL, and that its server is up and answers range requests"
        )

        server.behave(.failing(status: 503))
        let failing = #expect(throws: TileError.self) { try Self.open(server.url(Self.path)) }
        #expect(failing?.code == .unavailable)
        #expect(failing?.message.hasPrefix("cannot be reached: HTTP 503") == true, "\(String(describing: failing))")

        // A server that ignores Range would send the whole archive: it is cut off at 64 KiB, and refused.
        server.behave(.ignoresRange)
        let ignoring = #expect(throws: TileError.self) { try Self.open(server.url(Self.path)) }
        #expect(ignoring?.code == .unreadable)
        #expect(ignoring?.message.contains("it ignores the Range header") == true, "\(String(describing: ignoring))")
        #expect(ignoring?.message.contains("answers range requests (206 Partial Content)") == true)

        // One that starts ignoring Range once the archive is open: a tile's read is cut off and
        // fails as unavailable (the picture waits), never read whole.
        server.behave(.normal)
        let open = try Self.open(server.url(Self.path))
        server.behave(.ignoresRange)
        let coordinate = try #require(try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates().last)
        let cutOff = #expect(throws: TileError.self) { try open.tileData(at: coordinate) }
        #expect(cutOff?.code == .unavailable)
        #expect(cutOff?.message.contains("more than the 65536 bytes taken in") == true, "\(String(describing: cutOff))")

        server.stop()
        let down = #expect(throws: TileError.self) { try Self.open(server.url(Self.path)) }
        #expect(down?.code == .unavailable)
        #expect(down?.description.hasPrefix("\(server.url(Self.path)): cannot be reached: no answer") == true, "\(String(describing: down))")

        let other = #expect(throws: TileError.self) { try Self.open("ftp://example.org/x.pmtiles") }
        #expect(other?.description.contains("has the scheme 'ftp'") == true)
    }

    /// An archive replaced behind the same URL: the open archive refuses to mix the two (its
    /// reads fail `.unavailable` saying it changed), and an archive opened again has another
    /// identity, so that its pictures' cache keys change as for a replaced file.
    @Test func aChangedArchiveBehindTheSameURLIsNoticed() throws {
        let (server, bytes) = try Self.server()
        defer { server.stop() }
        let url = server.url(Self.path)
        let remote = try Self.open(url)
        let coordinate = try #require(try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates().last)

        server.serve(bytes, at: Self.path)  // the same bytes, uploaded again: a new ETag
        let error = #expect(throws: TileError.self) { try remote.tileData(at: coordinate) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("the archive changed since it was opened") == true, "\(String(describing: error))")
        #expect(error?.message.contains("restart the coordinator and the workers") == true)
        let again = try Self.open(url)
        #expect(again.info.identity != remote.info.identity)
        #expect(try again.tileData(at: coordinate) == PMTilesSource(path: TestData.liechtensteinPMTiles).tileData(at: coordinate))

        // Another archive (here: longer, with bytes after its tiles) at the URL: another identity again.
        server.serve(bytes + [UInt8](repeating: 0, count: 16), at: Self.path)
        #expect(try Self.open(url).info.identity != again.info.identity)
    }

    /// Answers that are not what was asked: the reader refuses them without trapping.
    @Test func answersThatAreNotTheAskedRangeAreRefused() {
        let asked: Range<UInt64> = 100..<200
        func problem(_ status: Int, _ contentRange: String?, _ count: Int) -> String? {
            if case .failure(let error) = ByteRange.check(status: status, contentRange: contentRange, bodyCount: count, asked: asked) {
                return error.message
            }
            return nil
        }
        #expect(problem(206, "bytes 100-199/1000", 100) == nil)
        #expect(problem(206, "bytes 100-149/150", 50) == nil, "the archive's end")
        #expect(problem(206, "bytes 101-200/1000", 100)?.contains("starts elsewhere") == true)
        #expect(problem(206, "bytes 100-199/1000", 99)?.contains("a body of 99 bytes") == true)
        #expect(problem(206, "bytes 100-149/1000", 50) != nil, "shorter than asked, not at the end")
        #expect(problem(206, nil, 100)?.contains("without a Content-Range") == true)
        for garbage in [
            "bytes 100-199/*", "bytes 199-100/1000", "bytes 100-1000/1000", "items 100-199/1000", "bytes -1-5/9", "bytes 100-18446744073709551616/2",
        ] {
            #expect(problem(206, garbage, 100) != nil, "\(garbage)")
        }
        #expect(problem(200, nil, 100)?.contains("ignored the Range header") == true)
        #expect(problem(416, nil, 0) != nil)
        // The whole archive, smaller than a first request from 0: a 200 is its whole.
        if case .success(let size) = ByteRange.check(status: 200, contentRange: nil, bodyCount: 70, asked: 0..<16_384) {
            #expect(size == 70)
        } else {
            Issue.record("a whole small archive refused")
        }
    }
}
