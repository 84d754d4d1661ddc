import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire
import WorkFeedWorker
import WorkFeedStyle

/// Maps through the whole system: a coordinator and workers with tilesets, on loopback.
@Suite(.serialized) struct MapSystemTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let heidelberg = root.appendingPathComponent("deploy/basemap/heidelberg.mbtiles").path
    static let monaco = root.appendingPathComponent("Tests/Data/basemap/tilesets/monaco-z10-14.mbtiles").path
    /// A run with heart rate inside the Heidelberg tileset.
    static let run = root.appendingPathComponent("Tests/Data/tracks-in-map/heidelberg/runpandas_garmin-fr645m_run_2019_hr.fit")

    static func importRun(_ client: inout ControlClient) throws -> WorkoutID {
        let workout = try #require(try WorkoutFileReader.read(contentsOf: run).first)
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        return reply.id
    }

    /// Polls STATUS until no job is pending or `seconds` pass; returns the last counts.
    static func waitUntilDone(_ client: inout ControlClient, seconds: Double = 60) throws -> StatusReply {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let status: StatusReply = try client.request(.status, [String: String]())
            if !status.counts.contains(where: { $0.status == .pending && $0.count > 0 }) || Date() > deadline { return status }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    static func count(_ status: StatusReply, _ jobStatus: JobStatus) -> Int {
        status.counts.filter { $0.status == jobStatus }.reduce(0) { $0 + $1.count }
    }

    /// The run's pictures by (kind, theme).
    static func pictures(_ client: inout ControlClient) throws -> [String: PictureRecord] {
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        let item = try #require(feed.items.first)
        return Dictionary(uniqueKeysWithValues: item.pictures.map { ("\($0.picture.kind.rawValue) \($0.picture.theme.rawValue)", $0) })
    }

    /// A worker whose tilesets differ from the coordinator's is refused at READY and draws
    /// nothing; a worker with the same tilesets then draws the waiting job with the map.
    @Test func aWorkerWithAnotherBasemapIsRefusedAndOneWithTheSameDraws() throws {
        let system = try RunningSystem(
            workers: 1, adjust: { $0.basemapTilesets = [Self.heidelberg] }, adjustWorker: { $0.basemapTilesets = [Self.monaco] })
        defer { system.stop() }
        var client = try system.client()
        _ = try Self.importRun(&client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]))
        Thread.sleep(forTimeInterval: 2)
        let refused: StatusReply = try client.request(.status, [String: String]())
        #expect(Self.count(refused, .pending) == 1, "the job waits: the only worker draws another map")
        #expect(Self.count(refused, .generated) == 0)
        #expect(refused.workers.isEmpty, "the refused worker is not counted as connected")

        let matching = try system.startWorker(name: "same-map") { $0.basemapTilesets = [Self.heidelberg] }
        defer { matching.stop() }
        let done = try Self.waitUntilDone(&client)
        #expect(Self.count(done, .generated) == 1)
        let picture = try #require(try Self.pictures(&client)["route light"])
        #expect(picture.map == .full)
    }

    /// Changing a colour of the dark map makes exactly the dark pictures (route and heatmap) stale:
    /// after a restart with the new style, `enqueue --stale` redraws those two and no other, and the
    /// new dark pictures show the new colour.
    @Test func changingTheDarkMapStyleMakesOnlyDarkPicturesStale() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let withMap: (inout WorkerConfiguration) -> Void = { $0.basemapTilesets = [Self.heidelberg] }
        let first = try RunningSystem(workers: 1, directory: directory, adjust: { $0.basemapTilesets = [Self.heidelberg] }, adjustWorker: withMap)
        var client = try first.client()
        _ = try Self.importRun(&client)
        let everything = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark])
        let _: EnqueueReply = try client.request(.enqueue, everything)
        #expect(Self.count(try Self.waitUntilDone(&client), .generated) == 4)
        let before = try Self.pictures(&client)
        first.stop(keepingFiles: true)

        let land = RGBA(hex: "#3a1f5c")!  // a purple no default style has
        let second = try RunningSystem(
            workers: 1, directory: directory,
            adjust: {
                $0.basemapTilesets = [Self.heidelberg]
                // Land and wood: most of this run's area is forest.
                $0.themeStyles[.dark]?.map.land = land
                $0.themeStyles[.dark]?.map[MapArea.wood] = land
            }, adjustWorker: withMap)
        defer { second.stop(keepingFiles: true) }
        // Its own client, declared after its system: a context is terminated only once every
        // socket on it is closed, so the client must go before the system does.
        var secondClient = try second.client()
        var stale = everything
        stale.existingOnly = true
        let reply: EnqueueReply = try secondClient.request(.enqueue, stale)
        #expect(reply.stale == 2)
        #expect(reply.current == 2)
        #expect(reply.created == 0)
        #expect(Self.count(try Self.waitUntilDone(&secondClient), .generated) == 4)
        let after = try Self.pictures(&secondClient)
        for key in ["route light", "heatmap light"] {
            #expect(after[key]?.cacheKey == before[key]?.cacheKey, "\(key) stays current")
        }
        for key in ["route dark", "heatmap dark"] {
            #expect(after[key]?.cacheKey != before[key]?.cacheKey, "\(key) is drawn again")
            let record = try #require(after[key])
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: second.configuration.cacheDirectory + "/" + record.relativePath)))
            #expect(try PNGCodec.decode(png).count(land, tolerance: 1) > 100, "\(key) shows the new land colour")
        }
    }
}

extension DecodedImage {
    /// How many pixels are within `tolerance` (each channel) of `colour`.
    func count(_ colour: RGBA, tolerance: Int) -> Int {
        var n = 0
        for index in stride(from: 0, to: rgba.count, by: 4)
        where abs(Int(rgba[index]) - Int(colour.red)) <= tolerance && abs(Int(rgba[index + 1]) - Int(colour.green)) <= tolerance
            && abs(Int(rgba[index + 2]) - Int(colour.blue)) <= tolerance
        {
            n += 1
        }
        return n
    }
}
