import ArgumentParser
import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedImport
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire
import WorkFeedWorker

/// Imports one fixture through the control protocol and returns its id.
func importFixture(_ name: String, into client: inout ControlClient, owner: String? = nil) throws -> WorkoutID {
    let workout = try #require(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: fixture(name))).first)
    let reply: ImportReply = try client.request(
        .importWorkout, ImportRequest(workout, owner: owner), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
    return reply.id
}

/// A worker speaking the protocol by hand, to play the parts real workers must survive.
struct FakeWorker: ~Copyable {
    let socket: ZMQSocket

    init(_ system: RunningSystem, capacity: Int, name: String, curve: CurveClientKeys? = nil) throws {
        let socket = try ZMQSocket(system.context, type: .dealer)
        if let curve { try socket.makeCurveClient(curve) }
        try socket.set(.sendTimeout(milliseconds: 500))
        try socket.connect(system.endpoints.workers)
        // A refused worker cannot even hand in its READY; that is the point of the test that makes one.
        try? socket.send(WorkerMessage.ready(capacity: capacity, rendererVersion: BuildInfo.rendererVersion, name: name, basemap: "").frames)
        self.socket = socket
    }

    /// The next message other than a heartbeat, or nil after `seconds`.
    func next(within seconds: Double, heartbeat: Bool = true) throws -> WorkerMessage? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if heartbeat { try? socket.send(WorkerMessage.heartbeat.frames) }
            guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0], let frames = try socket.receive(dontWait: true) else {
                continue
            }
            let message = try WorkerMessage(frames: frames)
            if message != .heartbeat { return message }
        }
        return nil
    }
}

@Suite(.serialized) struct DispatchTests {
    @Test func aJobPastItsDeadlineIsLeasedAgainEvenIfItsWorkerStaysAlive() throws {
        // Liveness so long that only the deadline can take the job back.
        let system = try RunningSystem(
            workers: 0,
            adjust: {
                $0.jobDeadlineSeconds = 1; $0.heartbeatLiveness = 100
            })
        defer { system.stop() }
        var client = try system.client()
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]))
        let stuck = try FakeWorker(system, capacity: 1, name: "stuck")
        guard case .job(let first) = try #require(try stuck.next(within: 5)) else { Issue.record("expected a JOB"); return }
        // It keeps sending heartbeats but never reports: the same job comes again under a new lease.
        let other = try FakeWorker(system, capacity: 1, name: "other")
        guard case .job(let second) = try #require(try other.next(within: 10)) else { Issue.record("expected the JOB again"); return }
        #expect(second.workoutID == first.workoutID)
        #expect(second.lease != first.lease)
        // The stuck worker's late report is ignored; the second one counts.
        try stuck.socket.send(
            WorkerMessage.status(JobReport(lease: first.lease, outcome: .failedNoRetry, detail: "late", renderMicroseconds: 1)).frames)
        try other.socket.send(
            WorkerMessage.status(JobReport(lease: second.lease, outcome: .generated, detail: second.cacheKey, renderMicroseconds: 1)).frames)
        var picture: PictureRecord?
        for _ in 0..<50 {
            let show: ShowReply = try client.request(.show, ShowRequest(id: id))
            picture = show.item.pictures.first
            if picture?.status == .generated { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(picture?.status == .generated)
        #expect(picture?.cacheKey == second.cacheKey)
    }

    @Test func aJobThatCannotReachItsWorkerGoesToAnotherAtOnceWithoutCountingAnAttempt() throws {
        // Liveness so long that only the failed send can take the job back in time.
        let system = try RunningSystem(workers: 0, adjust: { $0.heartbeatLiveness = 100 })
        defer { system.stop() }
        var client = try system.client()
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        do {
            // Says READY, then vanishes without a word.
            let vanishing = try FakeWorker(system, capacity: 1, name: "vanishing")
            _ = try vanishing.next(within: 0.3)
        }
        Thread.sleep(forTimeInterval: 0.3)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]))
        let other = try FakeWorker(system, capacity: 1, name: "other")
        guard case .job(let job) = try #require(try other.next(within: 3)) else { Issue.record("expected the JOB"); return }
        #expect(job.workoutID == id)
        let show: ShowReply = try client.request(.show, ShowRequest(id: id))
        #expect(show.item.pictures.first?.attempts == 0)
        let status: StatusReply = try client.request(.status, [String: String]())
        #expect(status.workers.map(\.name) == ["other"])
    }

    @Test func heartbeatsKeepFlowingWhileALongTransactionRuns() throws {
        // 16,000 workouts and one ENQUEUE of 12 pictures each: a 192,000-job transaction, which in a
        // debug build takes most of a second. Workers must not lose the coordinator meanwhile.
        let system = try RunningSystem(
            workers: 0,
            adjust: { configuration in
                configuration.heartbeatIntervalMilliseconds = 50
                let index = try! WorkoutIndex(path: configuration.indexPath, logger: Logger(label: "test"))
                try! index.write { transaction in
                    for number in 0..<16_000 { _ = try transaction.importWorkout(ImportedWorkout.twoPoint(number)) }
                }
            })
        defer { system.stop() }
        let worker = try FakeWorker(system, capacity: 1, name: "listener")
        _ = try worker.next(within: 0.3)
        let client = try ZMQSocket(system.context, type: .dealer)
        try client.connect(system.endpoints.control)
        let request = ControlRequest(
            id: 1, command: .enqueue,
            body: try ControlCodec.encode(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1, 2, 3])))
        let started = Date()
        try client.send(request.frames)
        var lastHeard = Date()
        var longestSilence = 0.0
        while true {
            let ready = try ZMQPoll.poll([client.pollItem(), worker.socket.pollItem()], timeoutMilliseconds: 50)
            if ready[1], try worker.socket.receive(dontWait: true) != nil {
                longestSilence = max(longestSilence, Date().timeIntervalSince(lastHeard))
                lastHeard = Date()
            }
            if ready[0], let frames = try client.receive(dontWait: true) {
                #expect(try ControlReply(frames: frames).ok)
                break
            }
            try worker.socket.send(WorkerMessage.heartbeat.frames)
            try #require(Date().timeIntervalSince(started) < 60, "no ENQUEUE reply in 60 s")
        }
        let took = Date().timeIntervalSince(started)
        try #require(took > 0.4, "the ENQUEUE took \(took) s: too quick to show whether heartbeats wait for it")
        #expect(longestSilence < 0.25, "the worker heard nothing for \(longestSilence) s while a \(took)-s transaction ran")
    }

    @Test func interactiveRequestsGoAheadOfBulkWork() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let bulk = try importFixture("garmin-connect_ride_2020_short_ns3-hr.gpx", into: &client)
        let visible = try importFixture("apple-watch_run_2025_3seg_partial-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))
        var request = try WorkCtl.parseAsRoot(["request", visible.description, "--theme", "dark", "--coordinator", system.endpoints.control])
        try request.run()
        let worker = try FakeWorker(system, capacity: 1, name: "one-slot")
        guard case .job(let job) = try #require(try worker.next(within: 5)) else { Issue.record("expected a JOB"); return }
        #expect(job.workoutID == visible)
        #expect(String(decoding: job.spec, as: UTF8.self).contains("\"theme\":\"dark\""))
        _ = bulk
    }

    @Test func statusChangesArePublishedOnTheEventStream() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let subscriber = try ZMQSocket(system.context, type: .sub)
        try subscriber.subscribe("status")
        try subscriber.connect(system.endpoints.events)
        Thread.sleep(forTimeInterval: 0.3)  // let the subscription reach the publisher
        var client = try system.client()
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]))
        #expect(try ZMQPoll.poll([subscriber.pollItem()], timeoutMilliseconds: 15_000) == [true])
        let frames = try #require(try subscriber.receive())
        #expect(frames[0] == Array("status".utf8))
        let event = try ControlCodec.decode(StatusEvent.self, from: frames[1])
        #expect(event.workoutID == id)
        #expect(event.status == .generated)
    }
}

@Suite struct LoopbackOnlyTests {
    @Test(arguments: ["tcp://0.0.0.0:5555", "tcp://10.1.2.3:5555"])
    func withoutKeysTheCoordinatorRefusesToListenBeyondLoopback(endpoint: String) async throws {
        do {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: ["WORKFEED_LISTEN_WORKERS": endpoint])
            Issue.record("accepted \(endpoint) without keys")
        } catch {
            #expect(error.key == "listen.workers")
            #expect(error.description.contains("loopback only"))
        }
    }
}
