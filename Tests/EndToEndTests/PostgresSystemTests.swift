import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
@testable import WorkFeedCtl
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire
import WorkFeedWorker

/// Coordinators on the PostgreSQL index (`index.url`), with real sockets, workers, workctl and a
/// real server: the whole path of the SQLite system on it, and two coordinators sharing one
/// index, each with its own workers, each seeing what the other did.
@Suite(.serialized, .enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresSystemTests {
    static let routed = [
        "strava_run_2015_short_gpxtpx-hr.gpx", "garmin-connect_ride_2020_short_ns3-hr.gpx", "apple-watch_run_2025_3seg_partial-hr.gpx",
    ]

    func database() throws -> String {
        let server = try PostgresTestServer.shared.get()
        return server.socketURL(database: try server.createDatabase())
    }

    @Test func aCoordinatorOnPostgreSQLImportsRendersAndReports() throws {
        let url = try database()
        let system = try RunningSystem { $0.indexURL = url }
        defer { system.stop() }
        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", system.endpoints.control] + Self.routed.map(fixture))
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route,heatmap", "--theme", "light,dark", "--wait", "--coordinator", system.endpoints.control,
        ])
        try enqueue.run()

        var client = try system.client()
        let status: StatusReply = try client.request(.status, [String: String]())
        #expect(status.workouts == 3)
        #expect(status.total(.pending) == 0 && status.total(.failedNoRetry) == 0)
        // Route and heatmap in two themes at the configured scales, of three workouts with heart rate.
        #expect(status.total(.generated) == 3 * 2 * 2 * system.configuration.scales.count)
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        #expect(feed.items.count == 3)
        for item in feed.items {
            for picture in item.pictures where picture.status == .generated {
                let key = try #require(picture.cacheKey)
                let path = try #require(CacheLayout.relativePath(forKey: key))
                let file = URL(fileURLWithPath: system.configuration.cacheDirectory).appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: file.path), "\(picture.picture)")
            }
        }
    }

    /// Two coordinators, "first" and "second", on one new database and one cache directory, each
    /// with `workers` workers of its own; `body` runs with them, and everything is removed after.
    func withTwoCoordinators(workers: Int, _ body: (_ first: RunningSystem, _ second: RunningSystem) throws -> Void) throws {
        let url = try database()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-pg-shared-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cache) }
        let first = try RunningSystem(workers: workers) {
            $0.indexURL = url
            $0.coordinatorID = "first"
            $0.cacheDirectory = cache.path
        }
        defer { first.stop() }
        let second = try RunningSystem(workers: workers) {
            $0.indexURL = url
            $0.coordinatorID = "second"
            $0.cacheDirectory = cache.path
        }
        defer { second.stop() }
        try body(first, second)
    }

    @Test func twoCoordinatorsShareOneIndex() throws {
        try withTwoCoordinators(workers: 1) { first, second in try twoCoordinatorsShare(first, second) }
    }

    func twoCoordinatorsShare(_ first: RunningSystem, _ second: RunningSystem) throws {

        // Imported through the first, asked for through the second, drawn by both coordinators' workers.
        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", first.endpoints.control] + Self.routed.map(fixture))
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--coordinator", second.endpoints.control,
        ])
        try enqueue.run()
        let expected = 3 * 2 * first.configuration.scales.count
        let deadline = Date().addingTimeInterval(60)
        var status: StatusReply
        repeat {
            var client = try first.client()
            status = try client.request(.status, [String: String]())
            if status.total(.generated) == expected { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        #expect(status.workouts == 3)
        #expect(status.total(.generated) == expected)
        var other = try second.client()
        let seen: StatusReply = try other.request(.status, [String: String]())
        #expect(seen.total(.generated) == expected && seen.workouts == 3)
        let feed: FeedReply = try other.request(.feed, FeedRequest(limit: 10))
        #expect(feed.items.count == 3)
        // STATUS through either lists both, one of them doing the periodic work.
        var listed: [RunningCoordinator] = []
        let until = Date().addingTimeInterval(10)
        repeat {
            listed = (try other.request(.status, [String: String]()) as StatusReply).coordinators ?? []
            if listed.contains(where: \.leads) { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < until
        #expect(listed.map(\.id) == ["first", "second"])
        #expect(listed.filter(\.leads).count == 1 && listed.allSatisfy { $0.silentSeconds < 5 }, "\(listed)")
        #expect(listed.allSatisfy { $0.endpoints.contains("control tcp://") }, "\(listed)")
        let shown = try other.request(.status, [String: String]()) as StatusReply
        let lines = WorkCtl.Status.view(shown, now: Date())
        #expect(lines.contains { $0.hasPrefix("coordinators: first (") && $0.contains("periodic work") }, "\(lines)")
    }

    /// One of two coordinators does the periodic work; when it stops cleanly it gives back its
    /// term (and its leases), and the other takes the next term at its next turn, not 15 s later.
    @Test func theLeadPassesToTheOtherCoordinatorWhenItsLeaderStops() throws {
        let url = try database()
        let first = try RunningSystem(workers: 0) {
            $0.indexURL = url
            $0.coordinatorID = "first"
        }
        var firstRunning = true
        defer { if firstRunning { first.stop() } }
        let session = try PostgresSession.connect(to: PostgresIndexLocation(url: url), name: "test", logger: Logger(label: "test"))
        defer { session.close() }
        func leader(besides previous: LeadershipTerm? = nil) throws -> LeadershipTerm? {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let term = try PostgresLeader.current(in: session)?.term, term != previous { return term }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }
        let term = try #require(try leader())
        #expect(term.holder == "first", "the only coordinator leads: \(term)")
        let second = try RunningSystem(workers: 0) {
            $0.indexURL = url
            $0.coordinatorID = "second"
        }
        defer { second.stop() }
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try PostgresLeader.current(in: session)?.term == term, "the second coordinator took over a living term")
        let stopped = Date()
        first.stop()
        firstRunning = false
        let next = try #require(try leader(besides: term))
        #expect(next == LeadershipTerm(holder: "second", number: term.number + 1))
        // Taken at the second's next turn (about a second), not when the first's term would have run out.
        #expect(Date().timeIntervalSince(stopped) < PostgresLeader.defaultTermSeconds - 5)
        #expect(try PostgresCoordinators.all(in: session).map(\.id) == ["second"])
    }

    /// PostgreSQL restarted (a fast shutdown, a second down) right after an ENQUEUE was answered,
    /// while workers draw: the coordinator waits for it and goes on; what was acknowledged before
    /// is there after, every picture is drawn, none failed.
    @Test func aPostgreSQLRestartDuringARenderLosesNothingAcknowledged() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let url = server.socketURL(database: try server.createDatabase())
        let system = try RunningSystem { $0.indexURL = url }
        defer { system.stop() }
        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", system.endpoints.control] + Self.routed.map(fixture))
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route,heatmap", "--theme", "light,dark", "--coordinator", system.endpoints.control,
        ])
        try enqueue.run()
        try server.restart(down: .seconds(1))

        let expected = 3 * 2 * 2 * system.configuration.scales.count
        let deadline = Date().addingTimeInterval(90)
        var status: StatusReply?
        while Date() < deadline {
            // A request during the restart may go unanswered: asked again.
            if var client = try? system.client(), let seen: StatusReply = try? client.request(.status, [String: String]()) {
                status = seen
                if seen.total(.generated) == expected { break }
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let final = try #require(status)
        #expect(final.workouts == 3)
        #expect(final.total(.generated) == expected, "\(final.counts)")
        #expect(final.total(.pending) == 0 && final.total(.failedNoRetry) == 0)
    }

    /// Issue 34: a worker given both coordinators' endpoints works for the first, and when the
    /// first stops it works for the second; workctl given both reaches the second once the first
    /// is gone. Every picture is generated.
    @Test func aWorkerGivenBothCoordinatorsKeepsDrawingWhenTheFirstStops() throws {
        try withTwoCoordinators(workers: 0) { first, second in try aWorkerGivenBothKeepsDrawing(first, second) }
    }

    func aWorkerGivenBothKeepsDrawing(_ first: RunningSystem, _ second: RunningSystem) throws {
        let worker = try first.startWorker(name: "both") {
            $0.coordinatorEndpoints = [first.endpoints.workers, second.endpoints.workers]
        }
        defer { worker.stop() }
        let both = first.endpoints.control + "," + second.endpoints.control

        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", both] + Self.routed.map(fixture))
        try importCommand.run()
        var light = try WorkCtl.parseAsRoot(["enqueue", "--all", "--kind", "route", "--theme", "light", "--coordinator", both])
        try light.run()
        let perTheme = 3 * first.configuration.scales.count
        // Drawn through the first: the worker works for the first endpoint of its list.
        let drawn = try Self.waitFor(generated: perTheme, asking: second)
        #expect(drawn.total(.generated) == perTheme)
        var asked = try first.client()
        let firstStatus: StatusReply = try asked.request(.status, StatusRequest())
        #expect(firstStatus.workers.map(\.name) == ["both"])

        first.coordinator.stop()
        // The first is gone: workctl's request goes on to the second, and so does the worker.
        var dark = try WorkCtl.parseAsRoot(["enqueue", "--all", "--kind", "route", "--theme", "dark", "--coordinator", both, "--timeout", "1"])
        try dark.run()
        let status = try Self.waitFor(generated: 2 * perTheme, asking: second)
        #expect(status.total(.generated) == 2 * perTheme && status.total(.pending) == 0)
        #expect(status.workers.map(\.name) == ["both"])
    }

    /// The real `workfeed-worker --connect A,B`: it says which coordinator it works for, moves to
    /// the second when the first stops, draws what is asked through the second, and stops on
    /// SIGTERM with exit 0.
    @Test func aWorkerProcessGivenBothWithConnectMovesToTheSecond() throws {
        try withTwoCoordinators(workers: 0) { first, second in
            let worker = try DaemonProcess(
                "workfeed-worker",
                [
                    "--connect", "\(first.endpoints.workers),\(second.endpoints.workers)", "--cache", first.configuration.cacheDirectory,
                    "--threads", "1", "--name", "listed",
                ],
                environment: ["WORKFEED_HEARTBEAT_INTERVAL_MS": "200"])
            func worksFor(_ endpoint: String) -> Bool {
                worker.log.split(separator: "\n").contains { $0.contains("working for the coordinator") && $0.contains(endpoint) }
            }
            let deadline = Date().addingTimeInterval(30)
            while !worksFor(first.endpoints.workers) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(worksFor(first.endpoints.workers), "\(worker.log)")
            first.coordinator.stop()
            while !worksFor(second.endpoints.workers) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(worksFor(second.endpoints.workers), "\(worker.log)")
            var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", second.endpoints.control] + Self.routed.map(fixture))
            try importCommand.run()
            var enqueue = try WorkCtl.parseAsRoot([
                "enqueue", "--all", "--kind", "route", "--theme", "light", "--wait", "--coordinator", second.endpoints.control,
            ])
            try enqueue.run()
            let status = try Self.waitFor(generated: 3 * second.configuration.scales.count, asking: second)
            #expect(status.workers.map(\.name) == ["listed"])
            #expect(worker.terminate() == 0, "\(worker.log)")
        }
    }

    /// Asks `system` for the index's statuses until `generated` pictures are, for up to 30 s.
    static func waitFor(generated: Int, asking system: RunningSystem) throws -> StatusReply {
        var client = try system.client()
        let deadline = Date().addingTimeInterval(30)
        var status: StatusReply
        repeat {
            status = try client.request(.status, StatusRequest())
            if status.total(.generated) >= generated { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return status
    }

    /// One of two coordinators SIGKILLed during a bulk render: its jobs are leased again by the
    /// other once its leases lapse (`index.lease_seconds`, 3 s here), the worker that drew for it
    /// goes on with the other, and every picture is drawn, none failed, none lost, each stored
    /// under its current key.
    @Test func aCoordinatorKilledDuringABulkRenderLosesNothing() throws {
        let url = try database()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-pg-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cache) }
        let second = try RunningSystem(workers: 1) {
            $0.indexURL = url
            $0.coordinatorID = "second"
            $0.cacheDirectory = cache.path
            $0.leaseSeconds = 3
            $0.heartbeatIntervalMilliseconds = 200
            $0.scales = [1, 2]
        }
        defer { second.stop() }
        let ports = try (0..<3).map { _ in try MotoServer.freePort() }
        let endpoints = ports.map { "tcp://127.0.0.1:\($0)" }
        let first = try DaemonProcess(
            "workfeed-coordinator", [],
            environment: [
                "WORKFEED_INDEX_URL": url, "WORKFEED_COORDINATOR_ID": "first", "WORKFEED_INDEX_LEASE_SECONDS": "3",
                "WORKFEED_CACHE_DIRECTORY": cache.path,
                "WORKFEED_ORIGINALS_DIRECTORY": second.directory.appendingPathComponent("first-originals").path,
                "WORKFEED_LISTEN_WORKERS": endpoints[0], "WORKFEED_LISTEN_CONTROL": endpoints[1], "WORKFEED_LISTEN_EVENTS": endpoints[2],
                "WORKFEED_HEARTBEAT_INTERVAL_MS": "200", "WORKFEED_PICTURES_SCALES": "1,2",
            ])
        #expect(first.waitFor("coordinator listening"), "\(first.log)")
        // A worker of the first coordinator's, given the second as well.
        let worker = try second.startWorker(name: "first's") { $0.coordinatorEndpoints = [endpoints[0], second.endpoints.workers] }
        defer { worker.stop() }

        var importCommand = try WorkCtl.parseAsRoot(["import", "--coordinator", endpoints[1]] + Self.routed.map(fixture))
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route,heatmap", "--theme", "light,dark", "--coordinator", endpoints[1],
        ])
        try enqueue.run()
        var client = try second.client()
        var status: StatusReply = try client.request(.status, [String: String]())
        let expected = status.counts.map(\.count).reduce(0, +)
        #expect(expected >= 24)
        // Killed once drawing is under way, before it is done.
        let started = Date()
        while status.total(.generated) == 0, Date().timeIntervalSince(started) < 30 {
            Thread.sleep(forTimeInterval: 0.01)
            status = try client.request(.status, [String: String]())
        }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let killedAt = status.total(.generated)

        let deadline = Date().addingTimeInterval(60)
        while status.total(.generated) + status.total(.failedNoRetry) < expected, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            status = try client.request(.status, [String: String]())
        }
        #expect(killedAt < expected, "everything was drawn before the kill: the test proves nothing")
        #expect(status.total(.generated) == expected, "\(status.counts)")
        #expect(status.total(.failedNoRetry) == 0 && status.total(.pending) == 0)
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        for item in feed.items {
            for picture in item.pictures where picture.status == .generated {
                let key = try #require(picture.cacheKey)
                let path = try #require(CacheLayout.relativePath(forKey: key))
                #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(path).path), "\(picture.picture)")
            }
        }
    }
}
