import Foundation
import Logging
import Synchronization
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
@testable import WorkFeedGateway
import WorkFeedTesting
import WorkFeedWire
import WorkFeedWorker

/// Issue 34: a gateway given two coordinators of one PostgreSQL index (`coordinator.control` and
/// `coordinator.events` as lists) follows both event streams, so that a picture wait is answered
/// whichever coordinator stored the picture; and its requests go on to the next coordinator when
/// the one in use stops.
@Suite(.serialized, .enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct SeveralCoordinatorsGatewayTests {
    /// The other coordinator ("second"), on the same index and cache as the gateway system's ("first").
    final class Second: Sendable {
        let coordinator: Coordinator
        let endpoints: Coordinator.Endpoints
        let configuration: CoordinatorConfiguration
        let context = ZMQContext()
        let logger: Logger

        init(indexURL: String, cache: String) throws {
            var configuration = CoordinatorConfiguration()
            configuration.indexURL = indexURL
            configuration.coordinatorID = "second"
            configuration.cacheDirectory = cache
            GatewaySystem.onLoopback(&configuration)
            var logger = Logger(label: "gateway-test")
            logger.logLevel = .warning
            self.logger = logger
            self.configuration = configuration
            coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
            endpoints = try coordinator.start()
        }

        /// A worker of this coordinator's (the caller stops it).
        func startWorker() throws -> Worker {
            var worker = WorkerConfiguration()
            worker.coordinatorEndpoints = [endpoints.workers]
            worker.cacheDirectory = configuration.cacheDirectory
            worker.renderThreads = 1
            worker.heartbeatIntervalMilliseconds = 200
            worker.name = "second-worker"
            let started = Worker(configuration: worker, context: context, logger: logger)
            try started.start()
            return started
        }
    }

    func start() async throws -> (system: GatewaySystem, second: Second, cache: URL) {
        let server = try PostgresTestServer.shared.get()
        let url = server.socketURL(database: try server.createDatabase())
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-gateway-pg-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let second = try await offPool { try Second(indexURL: url, cache: cache.path) }
        do {
            let system = try await GatewaySystem(
                workers: 0,
                adjust: {
                    $0.controlEndpoints.append(second.endpoints.control)
                    $0.eventsEndpoints.append(second.endpoints.events)
                    // The default wait (GatewaySystem's 2 s is shorter): an UPLOAD on PostgreSQL
                    // is one transaction of the import, its pictures and its feed item, and the
                    // first on a new index, beside the other suites, took more than 2 s.
                    $0.coordinatorTimeoutMilliseconds = 5_000
                },
                adjustCoordinator: {
                    $0.indexURL = url
                    $0.coordinatorID = "first"
                    $0.cacheDirectory = cache.path
                })
            return (system, second, cache)
        } catch {
            await offPool { second.coordinator.stop() }
            throw error
        }
    }

    func stop(_ system: GatewaySystem, _ second: Second, _ cache: URL, worker: Worker?) async {
        if let worker { await offPool { worker.stop() } }
        await system.stop()
        await offPool {
            second.coordinator.stop()
            try? FileManager.default.removeItem(at: cache)
        }
    }

    @Test func aPictureWaitIsAnsweredWhicheverCoordinatorStoredThePicture() async throws {
        let (system, second, cache) = try await start()
        var worker: Worker?
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            #expect(upload.status == 201)
            let id = try #require(upload.uploaded["id"] as? String)
            // The track is read from PostgreSQL's series (TRACK, on a read connection).
            let track = try await system.get("/v1/workouts/\(id)/track", as: "alice")
            #expect(track.status == 200 && track.json["sourcePoints"] as? Int == 42, "\(track.json)")
            #expect(((track.json["heartRate"] as? [String: Any])?["samples"] as? [Any])?.count == 42)
            // No worker anywhere yet: the wait is registered and the picture asked for through the
            // first coordinator (the gateway's first); the second's worker draws it once it comes,
            // and only the second publishes its status.
            async let requested = system.get("/v1/workouts/\(id)/pictures/route/light?wait=10", as: "alice")
            try await Task.sleep(for: .seconds(1))
            worker = try await offPool { try second.startWorker() }
            let reply = try await requested
            // Answered by the event, not by the wait running out: a wait that runs out answers the
            // pending picture it found first (202), and reads nothing again.
            #expect(reply.status == 200, "\(reply.json)")
            #expect((reply.json["picture"] as? [String: Any])?["status"] as? String == "generated", "\(reply.json)")
            #expect(system.gateway.events.received.load(ordering: .relaxed) > 0)
        } catch {
            await stop(system, second, cache, worker: worker)
            throw error
        }
        await stop(system, second, cache, worker: worker)
    }

    @Test func requestsGoOnToTheNextCoordinatorWhenTheFirstStops() async throws {
        let (system, second, cache) = try await start()
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            #expect(upload.status == 201)
            await system.stopCoordinator()
            // The first does not answer: the request goes on to the second, within the two timeouts.
            let feed = try await system.get("/v1/feed", as: "alice")
            #expect(feed.status == 200, "\(feed.json)")
            #expect((feed.json["items"] as? [[String: Any]])?.count == 1)
            // And the clients stay with the second: none of them tries the stopped one again.
            let failovers = system.gateway.clients.failovers.load(ordering: .relaxed)
            #expect(failovers >= 1)
            for _ in 0..<5 { #expect(try await system.get("/v1/feed", as: "alice").status == 200) }
            #expect(system.gateway.clients.failovers.load(ordering: .relaxed) == failovers)
        } catch {
            await stop(system, second, cache, worker: nil)
            throw error
        }
        await stop(system, second, cache, worker: nil)
    }
}
