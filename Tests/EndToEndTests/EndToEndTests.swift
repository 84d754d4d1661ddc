import ArgumentParser
import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire
import WorkFeedWorker
import WorkFeedStyle

/// A coordinator and two workers on loopback, with real sockets, a real index file and a real cache
/// in a temporary directory.
final class RunningSystem {
    let directory: URL
    let context = ZMQContext()
    let coordinator: Coordinator
    let endpoints: Coordinator.Endpoints
    let workers: [Worker]
    let configuration: CoordinatorConfiguration

    /// - Parameters:
    ///   - directory: where the index and cache live; a new temporary directory when `nil` (give
    ///     the one of a stopped system to start again on its index and cache).
    init(
        workers count: Int = 2, directory: URL? = nil, adjust: (inout CoordinatorConfiguration) -> Void = { _ in },
        adjustWorker: (inout WorkerConfiguration) -> Void = { _ in }, workerKeys: (file: String, server: String)? = nil
    ) throws {
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        var configuration = CoordinatorConfiguration()
        configuration.indexPath = self.directory.appendingPathComponent("index.sqlite").path
        configuration.cacheDirectory = self.directory.appendingPathComponent("cache").path
        // A worker refuses a cache it cannot write, a missing one too: the shared directory is made here.
        try FileManager.default.createDirectory(atPath: configuration.cacheDirectory, withIntermediateDirectories: true)
        configuration.workerEndpoint = "tcp://127.0.0.1:*"
        configuration.controlEndpoint = "tcp://127.0.0.1:*"
        configuration.eventsEndpoint = "tcp://127.0.0.1:*"
        configuration.metricsListen = "127.0.0.1:0"
        configuration.heartbeatIntervalMilliseconds = 200
        adjust(&configuration)
        self.configuration = configuration
        var logger = Logger(label: "e2e")
        logger.logLevel = .warning
        let context = self.context
        let coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
        let endpoints = try coordinator.start()
        self.coordinator = coordinator
        self.endpoints = endpoints
        workers = try (0..<count).map { number in
            try Self.startWorker(
                name: "worker-\(number)", endpoint: endpoints.workers, cacheDirectory: configuration.cacheDirectory, context: context,
                logger: logger
            ) { workerConfiguration in
                if let workerKeys {
                    workerConfiguration.keyFile = workerKeys.file
                    workerConfiguration.serverKey = workerKeys.server
                }
                adjustWorker(&workerConfiguration)
            }
        }
    }

    /// Starts one more worker on this system's coordinator and cache (the caller stops it).
    func startWorker(name: String, adjust: (inout WorkerConfiguration) -> Void = { _ in }) throws -> Worker {
        var logger = Logger(label: "e2e")
        logger.logLevel = .warning
        return try Self.startWorker(
            name: name, endpoint: endpoints.workers, cacheDirectory: configuration.cacheDirectory, context: context, logger: logger,
            adjust: adjust)
    }

    private static func startWorker(
        name: String, endpoint: String, cacheDirectory: String, context: ZMQContext, logger: Logger,
        adjust: (inout WorkerConfiguration) -> Void
    ) throws -> Worker {
        var workerConfiguration = WorkerConfiguration()
        workerConfiguration.coordinatorEndpoints = [endpoint]
        workerConfiguration.cacheDirectory = cacheDirectory
        workerConfiguration.renderThreads = 1
        workerConfiguration.heartbeatIntervalMilliseconds = 200
        workerConfiguration.name = name
        adjust(&workerConfiguration)
        let worker = Worker(configuration: workerConfiguration, context: context, logger: logger)
        try worker.start()
        return worker
    }

    func client() throws -> ControlClient {
        try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: 10_000)
    }

    /// Stops the workers and the coordinator, and removes the index and cache unless `keepingFiles`.
    func stop(keepingFiles: Bool = false) {
        for worker in workers { worker.stop() }
        coordinator.stop()
        if !keepingFiles { try? FileManager.default.removeItem(at: directory) }
    }
}

func fixture(_ name: String) throws -> String {
    try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")).path
}

@Suite(.serialized) struct EndToEndTests {
    @Test func importRenderAndReportStatusesThroughTheWholeSystem() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        let routed = [
            "strava_run_2015_short_gpxtpx-hr.gpx", "garmin-connect_ride_2020_short_ns3-hr.gpx", "apple-watch_run_2025_3seg_partial-hr.gpx",
        ]
        let waypointOnly = "runkeeper_hr-on-waypoint.gpx"

        // Import through workctl itself, as an operator would.
        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", system.endpoints.control] + (routed + [waypointOnly]).map(fixture))
        try importCommand.run()

        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait", "--coordinator", system.endpoints.control,
        ])
        // The waypoint-only file's two pictures fail: done, with exit code 2.
        #expect(throws: ExitCode(2)) { try enqueue.run() }

        var client = try system.client()
        let status: StatusReply = try client.request(.status, [String: String]())
        #expect(status.workouts == 4)
        #expect(status.total(.pending) == 0)
        #expect(status.total(.generated) == 6)
        #expect(status.total(.failedNoRetry) == 2)
        #expect(status.workers.count == 2)

        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        #expect(feed.items.count == 4)
        var checkedPictures = 0
        for item in feed.items {
            #expect(item.pictures.count == 2)
            if item.workout.pointCount == 0 {
                // The waypoint-only file: stored, but nothing to draw.
                for picture in item.pictures {
                    #expect(picture.status == .failedNoRetry)
                    #expect(picture.reason == "no route")
                }
                continue
            }
            for picture in item.pictures {
                #expect(picture.status == .generated)
                let path = system.configuration.cacheDirectory + "/" + picture.relativePath
                let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let image = try PNGCodec.decode(png)
                #expect(image.width == 512 && image.height == 512)
                #expect(PNGCodec.textChunks(png)["workfeed:cache-key"] == picture.cacheKey)
                let style = try #require(ThemeStyle.shipped[picture.picture.theme]).route
                // Background at the corners (inside the padding), the line colour where the route runs.
                #expect(image.pixel(x: 2, y: 2) == style.background)
                #expect(image.pixel(x: 509, y: 509) == style.background)
                var lineColoured = 0
                for y in stride(from: 0, to: 512, by: 1) {
                    for x in stride(from: 0, to: 512, by: 1) where image.pixel(x: x, y: y) == style.line { lineColoured += 1 }
                }
                #expect(lineColoured > 50, "only \(lineColoured) pixels of the line colour in \(path)")
                checkedPictures += 1
            }
        }
        #expect(checkedPictures == 6)

        // Nothing half-written is left in the cache.
        let leftovers =
            FileManager.default.enumerator(atPath: system.configuration.cacheDirectory)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".tmp") } ?? []
        #expect(leftovers.isEmpty)

        // Re-importing the same files stores nothing twice, and enqueueing again finds everything current.
        var again = try WorkCtl.parseAsRoot(["import", "--coordinator", system.endpoints.control] + routed.map(fixture))
        try again.run()
        let second: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))
        #expect(second == EnqueueReply(created: 0, stale: 0, alreadyPending: 0, current: 6, failed: 2))
        let after: StatusReply = try client.request(.status, [String: String]())
        #expect(after.workouts == 4)

        // Deleting a workout removes its pictures from the cache; the change log says so.
        let victim = try #require(feed.items.first { $0.workout.pointCount > 0 })
        let files = victim.pictures.map { system.configuration.cacheDirectory + "/" + $0.relativePath }
        #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        let anchor = try #require(feed.items.map(\.workout.anchor).max())
        var delete = try WorkCtl.parseAsRoot(["delete", victim.workout.id.description, "--coordinator", system.endpoints.control])
        try delete.run()
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        let changes: ChangesReply = try client.request(.changes, ChangesRequest(since: anchor, limit: 100))
        #expect(changes.changes.contains(WorkoutChange(anchor: changes.anchor, id: victim.workout.id, change: .deleted)))
        let final: StatusReply = try client.request(.status, [String: String]())
        #expect(final.workouts == 3)
    }

    @Test func heatmapsGoThroughTheSystemToTheirCachePaths() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        let files = ["garmin-connect_ride_2020_short_ns3-hr.gpx", "runkeeper_hr-on-waypoint.gpx"]
        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", system.endpoints.control] + files.map(fixture))
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "heatmap", "--theme", "dark", "--scale", "2", "--wait", "--coordinator", system.endpoints.control,
        ])
        #expect(throws: ExitCode(2)) { try enqueue.run() }
        var client = try system.client()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        let ride = try #require(feed.items.first { $0.workout.pointCount > 0 })
        let picture = try #require(ride.pictures.first)
        #expect(picture.status == .generated)
        #expect(picture.relativePath.hasPrefix("heatmap/"))
        #expect(picture.relativePath.hasSuffix("_heartrate_dark@2x.png"))
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + picture.relativePath)))
        let image = try PNGCodec.decode(png)
        #expect(image.width == 1024 && image.height == 1024)
        let waypoint = try #require(feed.items.first { $0.workout.pointCount == 0 })
        #expect(waypoint.pictures.first?.status == .failedNoRetry)
    }

    @Test func workctlRenderDrawsFilesLocally() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-render-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var command = try WorkCtl.parseAsRoot([
            "render", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), try fixture("runkeeper_hr-on-waypoint.gpx"),
            "--kind", "route", "--theme", "light,dark", "--size", "256x128", "--out", out.path,
        ])
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Issue.record("expected exit code 2: the waypoint-only file has no route")
        } catch let exit as ExitCode {
            #expect(exit == ExitCode(2))
        }
        let light = try [UInt8](Data(contentsOf: out.appendingPathComponent("strava_run_2015_short_gpxtpx-hr_route_light.png")))
        let image = try PNGCodec.decode(light)
        #expect(image.width == 256 && image.height == 128)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("strava_run_2015_short_gpxtpx-hr_route_dark.png").path))
    }

    @Test func aWorkerThatDiesLosesNoJob() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let workout = try #require(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: fixture("strava_run_2015_short_gpxtpx-hr.gpx"))).first)
        let imported: ImportReply = try client.request(
            .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: [imported.id], kinds: [.route], themes: [.light]))

        // A fake worker takes the job and then goes silent without answering.
        let silent = try ZMQSocket(system.context, type: .dealer)
        try silent.connect(system.endpoints.workers)
        try silent.send(WorkerMessage.ready(capacity: 1, rendererVersion: BuildInfo.rendererVersion, name: "silent", basemap: "").frames)
        #expect(try ZMQPoll.poll([silent.pollItem()], timeoutMilliseconds: 5_000) == [true])
        guard case .job = try WorkerMessage(frames: try #require(try silent.receive())) else {
            Issue.record("expected a JOB")
            return
        }

        // A real worker arrives; once the silent one expires, the job is leased again and generated.
        var configuration = WorkerConfiguration()
        configuration.coordinatorEndpoints = [system.endpoints.workers]
        configuration.cacheDirectory = system.configuration.cacheDirectory
        configuration.renderThreads = 1
        configuration.heartbeatIntervalMilliseconds = 200
        let worker = Worker(configuration: configuration, context: system.context, logger: Logger(label: "e2e"))
        try worker.start()
        defer { worker.stop() }
        let deadline = Date().addingTimeInterval(20)
        var show: ShowReply
        repeat {
            Thread.sleep(forTimeInterval: 0.1)
            show = try client.request(.show, ShowRequest(id: imported.id))
        } while show.item.pictures.first?.status != .generated && Date() < deadline
        #expect(show.item.pictures.first?.status == .generated)
        #expect(show.item.pictures.first?.attempts == 0)
    }
}
