import ArgumentParser
import Foundation
import Logging
import Prometheus
import Testing
import WorkFeedConfig
import WorkFeedMetrics
import WorkFeedCtl
import WorkFeedModel
import WorkFeedRender
import WorkFeedS3
import WorkFeedStore
import WorkFeedStyle
import WorkFeedTesting
import WorkFeedTiles
import WorkFeedWire
import WorkFeedWorker

/// A coordinator and a real worker drawing maps from a PMTiles archive by URL: the committed
/// Liechtenstein archive behind WorkFeedTesting's loopback ``RangeHTTPServer``, or in moto's S3.
@Suite(.serialized) struct RemoteMapSystemTests {
    static let archive = MapSystemTests.root.appendingPathComponent("Tests/Data/basemap/tilesets/liechtenstein-z10-14.pmtiles").path
    static let urlPath = "/maps/liechtenstein.pmtiles"

    /// A 2 km loop around (`latitude`, `longitude`), inside the Liechtenstein archive.
    static func loop(_ number: Int, latitude: Double, longitude: Double) -> ImportedWorkout {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400)
        let points = (0...60).map { step in
            let angle = Double(step) / 60 * 2 * .pi
            return RoutePoint(
                latitude: latitude + 0.004 * sin(angle), longitude: longitude + 0.006 * cos(angle) * (1 + 0.2 * sin(3 * angle)),
                time: start.addingTimeInterval(Double(step) * 10))
        }
        return ImportedWorkout(
            source: .gpx, sourceID: "liechtenstein-\(number)", activity: .running, route: Route(segments: [points]), start: start,
            end: start.addingTimeInterval(600), origin: "liechtenstein-\(number).gpx")
    }

    /// Six loops in different parts of the archive: each needs tiles of its own.
    static let workouts = [
        (47.141, 9.521), (47.166, 9.509), (47.205, 9.535), (47.090, 9.515), (47.240, 9.560), (47.060, 9.560),
    ].enumerated().map { loop($0.offset, latitude: $0.element.0, longitude: $0.element.1) }

    static func importAll(_ workouts: [ImportedWorkout], _ client: inout ControlClient) throws {
        for workout in workouts {
            let _: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        }
    }

    /// Every route picture of the feed, by workout.sourceID and theme.
    static func pictures(_ client: inout ControlClient) throws -> [(workout: WorkoutRecord, picture: PictureRecord)] {
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 50))
        return feed.items.flatMap { item in item.pictures.map { (item.workout, $0) } }
    }

    /// What a renderer on the same archive read from disk draws for `record` of `workout`: the
    /// same spec as the coordinator's, on the file's basemap, with the job's cache key.
    static func drawnFromDisk(_ record: PictureRecord, of workout: ImportedWorkout, configuration: CoordinatorConfiguration) throws -> [UInt8] {
        let basemap = try Basemap(tilesetLocations: [archive], logger: Logger(label: "test"))
        let look = try #require(configuration.themeStyle(for: record.picture.theme))
        let spec = PictureSpec(
            kind: record.picture.kind, theme: record.picture.theme, width: configuration.pictureWidth, height: configuration.pictureHeight,
            scale: record.picture.scale, style: look.route, heatmap: configuration.heatmap, map: look.map, basemap: basemap.identity.hash)
        // As the index stores the series and a worker receives them.
        let route = try SeriesCodec.decodeRoute(SeriesCodec.encode(workout.route))
        return try Renderer(basemap: basemap).render(spec: spec, route: route, heartRate: [], cacheKey: try #require(record.cacheKey))
    }

    /// Checks every picture is generated with the whole map and is, byte for byte, what the
    /// archive read from disk gives.
    static func expectDrawnAsFromDisk(_ system: RunningSystem, _ client: inout ControlClient, workouts: [ImportedWorkout]) throws {
        let pictures = try Self.pictures(&client)
        #expect(pictures.count == workouts.count * 2)
        for (workout, record) in pictures {
            #expect(record.status == .generated, "\(workout.sourceID) \(record.picture.theme): \(record.reason ?? "")")
            #expect(record.map == .full, "\(workout.sourceID) \(record.picture.theme)")
            let source = try #require(workouts.first { $0.sourceID == workout.sourceID })
            let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + record.relativePath)))
            #expect(
                stored == (try drawnFromDisk(record, of: source, configuration: system.configuration)), "\(workout.sourceID) \(record.picture.theme)")
        }
    }

    @Test func aWorkerDrawsFromAnHTTPArchiveWhatTheFileGives() throws {
        let server = try RangeHTTPServer(files: [Self.urlPath: try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.archive)))])
        defer { server.stop() }
        let url = server.url(Self.urlPath)
        let system = try RunningSystem(workers: 1, adjust: { $0.basemapTilesets = [url] }, adjustWorker: { $0.basemapTilesets = [url] })
        defer { system.stop() }
        var client = try system.client()
        let workouts = Array(Self.workouts.prefix(3))
        try Self.importAll(workouts, &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))
        let done = try MapSystemTests.waitUntilDone(&client, seconds: 30)
        #expect(MapSystemTests.count(done, .generated) == 6)
        try Self.expectDrawnAsFromDisk(system, &client, workouts: workouts)
        // Range requests only, and far less than the archive: the header, directories and tiles these pictures need.
        #expect(server.ranges.allSatisfy { $0.hasPrefix("bytes=") })
        #expect(server.bytesSent < 917_790 / 2, "\(server.bytesSent) bytes sent")
    }

    @Test func aWorkerDrawsFromAnArchiveInABucket() throws {
        guard MotoServer.isInstalled else {
            print("skipped: \(MotoServer.skipReason)")
            return
        }
        let moto = try MotoServer()
        defer { moto.stop() }
        let bucket = try moto.newBucket()
        try bucket.put(
            "maps/liechtenstein.pmtiles", try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.archive))), contentType: "application/octet-stream")
        let credentials = try MotoServer.writeCredentialsFile()
        defer { try? FileManager.default.removeItem(at: credentials) }
        let settings = S3StoreSettings(endpoint: moto.endpoint, credentialsFile: credentials.path)
        let location = "s3://\(bucket.configuration.bucket)/maps/liechtenstein.pmtiles"
        let system = try RunningSystem(
            workers: 1,
            adjust: {
                $0.basemapTilesets = [location]
                $0.s3Store = settings
            },
            adjustWorker: {
                $0.basemapTilesets = [location]
                $0.s3Store = settings
            })
        defer { system.stop() }
        var client = try system.client()
        let workouts = Array(Self.workouts.suffix(2))
        try Self.importAll(workouts, &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))
        #expect(MapSystemTests.count(try MapSystemTests.waitUntilDone(&client, seconds: 30), .generated) == 4)
        try Self.expectDrawnAsFromDisk(system, &client, workouts: workouts)
    }

    /// The server stops while the pictures are drawn: what cannot get its tiles waits as
    /// `pending` (`map-unavailable`), nothing is stored without its map and nothing fails; once
    /// the server is back every picture is drawn, as from the file.
    @Test func picturesWaitForAStoppedServerAndAreDrawnOnceItIsBack() throws {
        let server = try RangeHTTPServer(files: [Self.urlPath: try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.archive)))])
        defer { server.stop() }
        let url = server.url(Self.urlPath)
        let system = try RunningSystem(
            workers: 1,
            adjust: {
                $0.basemapTilesets = [url]
                // Quick retries, so that the test need not wait the default 10 s.
                $0.environmentInitialBackoffSeconds = 0.2
                $0.environmentMaximumBackoffSeconds = 0.4
            }, adjustWorker: { $0.basemapTilesets = [url] })
        defer { system.stop() }
        var client = try system.client()
        try Self.importAll(Self.workouts, &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))
        // Stopped once the first picture is drawn, while the others are being drawn.
        let deadline = Date().addingTimeInterval(20)
        while MapSystemTests.count(try client.request(.status, [String: String]()), .generated) == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        server.stop()
        Thread.sleep(forTimeInterval: 1.5)

        let during = try Self.pictures(&client)
        let waiting = during.filter { $0.picture.status == .pending }
        #expect(!waiting.isEmpty, "every picture was drawn before the server stopped: the test stopped it too late")
        #expect(waiting.contains { $0.picture.reasonCode == FailureCode.mapUnavailable.rawValue }, "\(waiting.map(\.picture.reason))")
        #expect(during.allSatisfy { $0.picture.status != .failedNoRetry })
        for (workout, record) in during where record.status == .generated {
            #expect(record.map == .full, "\(workout.sourceID) \(record.picture.theme) was stored without its whole map")
        }
        // Nothing in the cache but the pictures generated with their map.
        let files = Set(
            (FileManager.default.enumerator(atPath: system.configuration.cacheDirectory)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".png") && !$0.hasPrefix("keys/") })
        let generated = Set(during.filter { $0.picture.status == .generated }.map(\.picture.relativePath))
        #expect(files.isSubset(of: generated), "\(files.subtracting(generated))")
        let scraped = system.workers[0].metrics.registry.emitToString()
        let unavailable = scraped.split(separator: "\n").first { $0.hasPrefix("workfeed_worker_map_tiles_unavailable_total ") }
        #expect(unavailable.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 > 0 } == true, "\(String(describing: unavailable))")

        try server.start()
        let done = try MapSystemTests.waitUntilDone(&client, seconds: 30)
        #expect(MapSystemTests.count(done, .generated) == Self.workouts.count * 2)
        #expect(MapSystemTests.count(done, .failedNoRetry) == 0)
        try Self.expectDrawnAsFromDisk(system, &client, workouts: Self.workouts)
    }

    /// The archive uploaded again behind the same URL (a new ETag): after a restart the basemap's
    /// identity is new, so every map picture is stale and `enqueue --stale` redraws them all, as
    /// for a replaced file; a worker still on the old archive never mixes the two.
    @Test func aChangedArchiveBehindTheSameURLMakesEveryMapPictureStale() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.archive)))
        let server = try RangeHTTPServer(files: [Self.urlPath: bytes])
        defer { server.stop() }
        let url = server.url(Self.urlPath)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let adjust: (inout CoordinatorConfiguration) -> Void = {
            $0.basemapTilesets = [url]
            // Quick retries of the pictures that wait for the map.
            $0.environmentInitialBackoffSeconds = 0.2
            $0.environmentMaximumBackoffSeconds = 0.4
        }
        let first = try RunningSystem(workers: 1, directory: directory, adjust: adjust, adjustWorker: { $0.basemapTilesets = [url] })
        var client = try first.client()
        let workouts = Array(Self.workouts.prefix(2))
        try Self.importAll(workouts, &client)
        let everything = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark])
        let _: EnqueueReply = try client.request(.enqueue, everything)
        #expect(MapSystemTests.count(try MapSystemTests.waitUntilDone(&client, seconds: 30), .generated) == 4)
        let before = try Self.pictures(&client)

        server.serve(bytes, at: Self.urlPath)  // the same bytes uploaded again: the server's ETag is new
        // The running worker reads no tile of the new archive under the old identity: a loop
        // elsewhere (tiles it has not read yet) waits instead of being drawn.
        let elsewhere = Self.workouts[4]
        try Self.importAll([elsewhere], &client)
        let _: EnqueueReply = try client.request(.enqueue, everything)
        Thread.sleep(forTimeInterval: 1)
        let waiting = try Self.pictures(&client).filter { $0.workout.sourceID == elsewhere.sourceID }
        #expect(waiting.count == 2 && waiting.allSatisfy { $0.picture.status == .pending }, "\(waiting.map(\.picture))")
        #expect(
            waiting.allSatisfy { $0.picture.reason?.contains("the archive changed since it was opened") == true }, "\(waiting.map(\.picture.reason))")
        first.stop(keepingFiles: true)

        let second = try RunningSystem(workers: 1, directory: directory, adjust: adjust, adjustWorker: { $0.basemapTilesets = [url] })
        defer { second.stop(keepingFiles: true) }
        var secondClient = try second.client()
        var stale = everything
        stale.existingOnly = true
        let reply: EnqueueReply = try secondClient.request(.enqueue, stale)
        #expect(reply.stale == 4, "\(reply)")
        #expect(reply.current == 0)
        #expect(MapSystemTests.count(try MapSystemTests.waitUntilDone(&secondClient, seconds: 30), .generated) == 6)
        let after = try Self.pictures(&secondClient)
        for (workout, record) in before.map({ ($0.workout, $0.picture) }) {
            let redrawn = try #require(after.first { $0.workout.sourceID == workout.sourceID && $0.picture.picture == record.picture })
            #expect(redrawn.picture.cacheKey != record.cacheKey, "\(workout.sourceID) \(record.picture.theme) is drawn again")
        }
    }

    /// A worker whose tileset URL does not answer at start stops there (exit 69: try again
    /// later), naming the URL, the reason and what to check; one that answers 404 says there is
    /// no archive there (exit 78: the configuration).
    @Test func aTilesetUnreachableAtStartIsNamedWithWhatToCheck() throws {
        let server = try RangeHTTPServer(files: [:])
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let missing = server.url(Self.urlPath)
        let notFound = #expect(throws: WorkerError.self) { _ = try system.startWorker(name: "no-archive") { $0.basemapTilesets = [missing] } }
        #expect(
            notFound?.description.contains("\(missing): no archive there: HTTP 404 Not Found; check the URL, and that its server is up") == true,
            "\(String(describing: notFound))")
        #expect(notFound?.code == .tileset && notFound?.exitCode == 78)
        server.stop()
        let down = #expect(throws: WorkerError.self) { _ = try system.startWorker(name: "no-server") { $0.basemapTilesets = [missing] } }
        #expect(down?.description.contains("\(missing): cannot be reached: no answer") == true, "\(String(describing: down))")
        #expect(down?.description.contains("Connection refused") == true, "\(String(describing: down))")
        #expect(down?.description.contains("start the worker again once the tileset answers") == true)
        #expect(down?.code == .tilesetUnavailable && down?.exitCode == 69)
    }

    /// `workctl render --tileset URL` draws the pixels `--tileset FILE` draws (the PNGs differ
    /// only in the cache key they carry: the two basemaps' identities differ).
    @Test func workctlRenderTakesATilesetByURL() async throws {
        let server = try RangeHTTPServer(files: [Self.urlPath: try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.archive)))])
        defer { server.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-render-url-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let gpx = scratch.appendingPathComponent("vaduz.gpx")
        let points = Self.workouts[0].route.segments[0].map { "<trkpt lat=\"\($0.latitude)\" lon=\"\($0.longitude)\"></trkpt>" }
        try
            ("<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
            + points.joined() + "</trkseg></trk></gpx>").write(to: gpx, atomically: true, encoding: .utf8)
        let clock = ContinuousClock()
        var drawn: [String: [UInt8]] = [:]
        for (name, tileset) in [("file", Self.archive), ("url", server.url(Self.urlPath))] {
            let out = scratch.appendingPathComponent(name)
            let started = clock.now
            var command = try #require(
                try WorkCtl.parseAsRoot(["render", gpx.path, "--tileset", tileset, "--theme", "light,dark", "--scale", "2", "--out", out.path])
                    as? any AsyncParsableCommand)
            try await command.run()
            print("workctl render --tileset \(name): 2 pictures @2x in \(clock.now - started)")
            for theme in ["light", "dark"] {
                let png = try [UInt8](Data(contentsOf: out.appendingPathComponent("vaduz_route_\(theme)@2x.png")))
                drawn["\(name) \(theme)"] = try PNGCodec.decode(png).rgba
            }
        }
        #expect(drawn["url light"] == drawn["file light"])
        #expect(drawn["url dark"] == drawn["file dark"])
        #expect(drawn["url light"] != drawn["url dark"])

        let refused = #expect(throws: (any Error).self) {
            try WorkCtl.parseAsRoot(["render", gpx.path, "--tileset", "ftp://example.org/a.pmtiles", "--out", scratch.path])
        }
        #expect("\(String(describing: refused))".contains("has the scheme 'ftp'"), "\(String(describing: refused))")
    }
}
