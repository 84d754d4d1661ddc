import ArgumentParser
import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire
import WorkFeedWorker

/// Issue 34: the real `workctl` given a list of coordinators (`--coordinator A,B`): a request goes
/// to the first that answers, saying so on standard error when one did not; `watch` follows the
/// events of every listed coordinator. (A worker and the gateway given several coordinators of one
/// PostgreSQL index: PostgresSystemTests, GatewayTests' SeveralCoordinatorsGatewayTests.)
@Suite(.serialized) struct SeveralCoordinatorsTests {
    /// Nothing listens there: a request sent to it is never answered.
    static let dead = "tcp://127.0.0.1:1"

    @Test func workctlAsksTheNextCoordinatorWhenOneDoesNotAnswer() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let live = system.endpoints.control
        let listed = ["--coordinator", "\(Self.dead),\(live)", "--timeout", "1"]
        let imported = try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")] + listed)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.errors.contains("coordinator \(Self.dead) did not answer; trying \(live)"), "\(imported.errors)")
        let status = try WorkCtlProcess.run(["status", "--json"] + listed, environment: ["WORKFEED_CONTROL": ""])
        #expect(status.status == 0, "\(status.errors)")
        #expect(try decodeJSON(StatusReply.self, status.output).workouts == 1)
        // The same list from the environment.
        let fromEnvironment = try WorkCtlProcess.run(["status", "--timeout", "1"], environment: ["WORKFEED_CONTROL": "\(Self.dead),\(live)"])
        #expect(fromEnvironment.status == 0 && fromEnvironment.errors.contains("did not answer; trying \(live)"), "\(fromEnvironment.errors)")

        // None answers: each is named, and the exit code is 69 as for one.
        let none = try WorkCtlProcess.run(["status", "--coordinator", "\(Self.dead),tcp://127.0.0.1:2", "--timeout", "1"])
        #expect(none.status == 69, "\(none.errors)")
        #expect(none.errors.contains("no reply from any of the coordinators at \(Self.dead), tcp://127.0.0.1:2"), "\(none.errors)")

        // A bad item is named with the option, before anything is sent.
        let bad = try WorkCtlProcess.run(["status", "--coordinator", "\(live),coordinator-b:5556"])
        #expect(bad.status == 64, "\(bad.errors)")
        #expect(bad.errors.contains("--coordinator (WORKFEED_CONTROL): 'coordinator-b:5556'"), "\(bad.errors)")
        #expect(bad.errors.contains("item 2 of"), "\(bad.errors)")
    }

    @Test func watchFollowsTheEventsOfEveryListedCoordinator() throws {
        let first = try RunningSystem(workers: 0)
        defer { first.stop() }
        let second = try RunningSystem(workers: 0)
        defer { second.stop() }
        // Only control endpoints are given: each coordinator is asked where it publishes.
        let listed = "\(first.endpoints.control),\(Self.dead),\(second.endpoints.control)"
        let watching = OperatorToolTests.Background(
            // Until both imports are seen (a minute at most): a fixed window missed the second
            // import on a loaded machine, whose two workctl starts took longer than the window.
            ["watch", "--count", "2", "--seconds", "60", "--coordinator", listed, "--timeout", "1"], environment: ["WORKFEED_EVENTS": ""])
        Thread.sleep(forTimeInterval: 3)
        #expect(
            try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), "--coordinator", first.endpoints.control])
                .status == 0)
        #expect(
            try WorkCtlProcess.run(["import", try fixture("garmin-connect_ride_2020_short_ns3-hr.gpx"), "--coordinator", second.endpoints.control])
                .status == 0)
        let result = try watching.wait(seconds: 90)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("coordinator \(Self.dead) did not answer; its events are not followed"), "\(result.errors)")
        #expect(result.errors.contains("the events of the coordinators at \(listed)"), "\(result.errors)")
        // One import through each coordinator, each seen.
        #expect(result.output.components(separatedBy: " imported (owner ").count == 3, "\(result.output)")
    }

    /// A worker whose first coordinator is not there: silent past the heartbeat liveness, it
    /// moves to the next at once (the back-off only after every one was tried), says which it
    /// works for, and draws.
    @Test func aWorkerGivenADeadCoordinatorFirstWorksForTheNext() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let lines = LogLines()
        var logger = Logger(label: "worker") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .info
        var configuration = WorkerConfiguration()
        configuration.coordinatorEndpoints = [Self.dead, system.endpoints.workers]
        configuration.cacheDirectory = system.configuration.cacheDirectory
        configuration.renderThreads = 1
        configuration.heartbeatIntervalMilliseconds = 200
        // Waited out before the live coordinator, it would fail the test's bound.
        configuration.reconnectInitialMilliseconds = 20_000
        configuration.name = "listed"
        let worker = Worker(configuration: configuration, context: system.context, logger: logger)
        try worker.start()
        defer { worker.stop() }
        let started = ContinuousClock.now
        let at = ["--coordinator", system.endpoints.control]
        var importCommand = try WorkCtl.parseAsRoot(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")] + at)
        try importCommand.run()
        var enqueue = try WorkCtl.parseAsRoot(["enqueue", "--all", "--kind", "route", "--theme", "light", "--wait"] + at)
        try enqueue.run()
        #expect(ContinuousClock.now - started < .seconds(15))
        var client = try system.client()
        let status: StatusReply = try client.request(.status, StatusRequest())
        #expect(status.total(.generated) == system.configuration.scales.count && status.workers.map(\.name) == ["listed"])
        let log = lines.all
        // Moved on from the dead one without waiting: the back-off comes after a whole round.
        let moved = log.first { $0.hasPrefix("reconnecting to the coordinator") && $0.contains(Self.dead) }
        // (Metadata comes in no fixed order: the value ends with a comma or the closing bracket.)
        #expect(moved.map { $0.contains(#""after_ms": 0,"#) || $0.contains(#""after_ms": 0]"#) } == true, "\(log)")
        #expect(log.contains { $0.hasPrefix("working for the coordinator") && $0.contains(system.endpoints.workers) }, "\(log)")
    }
}
