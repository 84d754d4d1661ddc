import Foundation
import Logging
import Synchronization
import Testing
@testable import WorkFeedCoordinator
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

/// Fair service (issue 13, finding 2): one client's flood costs that client, not dispatch and not
/// the other clients. The smaller form of `workfeed-bench --only flood`; figures are printed, and
/// only generous liveness is asserted.
@Suite(.serialized) struct FairServiceTests {
    /// Answers every JOB at once on a thread of its own, counting them.
    final class InstantWorker: Sendable {
        let answered = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(context: ZMQContext, endpoint: String) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let socket = try? ZMQSocket(context, type: .dealer), (try? socket.connect(endpoint)) != nil else { return }
                try? socket.send(WorkerMessage.ready(capacity: 8, rendererVersion: BuildInfo.rendererVersion, name: "instant", basemap: "").frames)
                var lastSent = ContinuousClock.now
                while !stopping.load(ordering: .relaxed) {
                    guard (try? ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 50))?[0] == true else {
                        if ContinuousClock.now - lastSent > .milliseconds(100) {
                            try? socket.send(WorkerMessage.heartbeat.frames)
                            lastSent = .now
                        }
                        continue
                    }
                    while let frames = try? socket.receive(dontWait: true) {
                        guard case .job(let job)? = try? WorkerMessage(frames: frames) else { continue }
                        try? socket.send(
                            WorkerMessage.status(JobReport(lease: job.lease, outcome: .generated, detail: job.cacheKey, renderMicroseconds: 1)).frames
                        )
                        answered.add(1, ordering: .relaxed)
                        lastSent = .now
                    }
                }
            }
            thread.start()
        }

        func stop() {
            stopping.store(true, ordering: .relaxed)
            done.wait()
        }
    }

    @Test func aFloodFromOneClientStopsNeitherDispatchNorAnotherClient() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        // 500 workouts x route, heatmap x light, dark = 2,000 jobs.
        var client = try system.client()
        for number in 0..<500 {
            let workout = ImportedWorkout.twoPointWithHeartRate(number)
            let _: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        }
        let worker = InstantWorker(context: system.context, endpoint: system.endpoints.workers)
        defer { worker.stop() }
        let _: EnqueueReply = try client.request(
            .enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1]))

        // The flood: 300 FEEDs of 1,000 and 20 STATUS, all sent at once, from one client.
        let flood = try ZMQSocket(system.context, type: .dealer)
        try flood.connect(system.endpoints.control)
        let before = worker.answered.load(ordering: .relaxed)
        let floodStarted = ContinuousClock.now
        for number in 0..<320 {
            let command: ControlCommand = number % 16 == 15 ? .status : .feed
            try flood.send(
                ControlRequest(id: UInt64(number + 1), command: command, body: Array((command == .feed ? #"{"limit":1000}"# : "{}").utf8)).frames)
        }
        // Meanwhile another client is answered: PING, STATUS and a FEED page.
        var other = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 10_000)
        var pings: [Double] = []
        for _ in 0..<30 {
            let started = ContinuousClock.now
            let pong: [String: Bool] = try other.request(.ping, [String: String]())
            #expect(pong["pong"] == true)
            pings.append(
                Double((ContinuousClock.now - started).components.attoseconds) / 1e15 + Double((ContinuousClock.now - started).components.seconds)
                    * 1000)
            Thread.sleep(forTimeInterval: 0.01)
        }
        let status: StatusReply = try other.request(.status, [String: String]())
        #expect(status.workouts == 500)
        let page: FeedReply = try other.request(.feed, FeedRequest(limit: 10))
        #expect(page.items.count == 10)
        let duringFlood = worker.answered.load(ordering: .relaxed) - before

        // The flood is answered too: what was admitted with its reply, the rest at once with "busy".
        var ok = 0
        var busy = 0
        var lastReply = ContinuousClock.now
        while ContinuousClock.now - lastReply < .seconds(3) {
            guard try ZMQPoll.poll([flood.pollItem()], timeoutMilliseconds: 200)[0] else { continue }
            while let frames = try flood.receive(dontWait: true) {
                lastReply = .now
                let reply = try ControlReply(frames: frames)
                if reply.ok { ok += 1 } else if String(decoding: reply.body, as: UTF8.self).contains("busy") { busy += 1 }
            }
        }
        let floodSeconds = Double((lastReply - floodStarted).components.seconds) + Double((lastReply - floodStarted).components.attoseconds) / 1e18
        pings.sort()
        print(
            "fair service: flood of 320 answered \(ok) OK, \(busy) busy, \(320 - ok - busy) dropped (not read in time) over \(String(format: "%.1f", floodSeconds)) s; "
                + "\(duringFlood) jobs dispatched while another client sent 30 PINGs (p50 \(String(format: "%.1f", pings[15])) ms, max \(String(format: "%.1f", pings[29])) ms)"
        )
        #expect(ok > 0 && busy > 0, "the flood was neither served nor refused: \(ok) OK, \(busy) busy")
        #expect(duringFlood > 0, "no job was dispatched during the flood")

        // Everything is done in the end.
        for _ in 0..<600 where worker.answered.load(ordering: .relaxed) < 2_000 { Thread.sleep(forTimeInterval: 0.05) }
        let final: StatusReply = try other.request(.status, [String: String]())
        #expect(final.total(.generated) == 2_000, "\(final.counts)")
    }

    /// A FEED page stops before its reply passes the budget, and its `next` goes on from there:
    /// paging through gives every workout once.
    @Test func feedPagesStayWithinTheirBudgetAndLoseNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-budget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        try index.write { transaction in
            for number in 0..<120 { _ = try transaction.importWorkout(ImportedWorkout.twoPointWithHeartRate(number)) }
            _ = try transaction.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]), scales: [1]) { _, _ in "k"
            }
        }
        let reader = try WorkoutIndex(readingFrom: path, logger: Logger(label: "test"))
        let answers = ReadAnswers(
            index: reader, dispatch: DispatchState(), pictureSize: PictureSize(width: 600, height: 400), scales: [1], themes: Theme.shipped,
            onRequestThemes: Theme.shippedOnRequest,
            eventsEndpoint: "",
            feedBudgetBytes: 8_000, summaryZoneDefaults: .standard, logger: Logger(label: "test"))
        var seen: [WorkoutID] = []
        var cursor: String?
        var pages = 0
        repeat {
            let request = ControlRequest(id: 1, command: .feed, body: try ControlCodec.encode(FeedRequest(limit: 1000, cursor: cursor)))
            let answer = answers.answer(request)
            #expect(answer.ok)
            #expect(answer.body.count < 8_000 + 4_000, "a page of \(answer.body.count) bytes")
            let page = try ControlCodec.decode(FeedReply.self, from: answer.body)
            seen += page.items.map(\.workout.id)
            #expect(page.items.allSatisfy { $0.pictures.count == 4 })
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 200
        #expect(seen.count == 120 && Set(seen).count == 120)
        #expect(pages > 2)
    }

    @Test func eachClientIsBoundedAndWriteRequestsAreTakenInTurn() {
        var loads = ClientLoads(maximumRequests: 2, maximumBytes: 100)
        let a: [UInt8] = [1]
        let b: [UInt8] = [2]
        #expect(loads.admit(a, bytes: 500) == nil)  // nothing in flight: always let in
        #expect(loads.admit(a, bytes: 1)?.contains("MiB") == true)
        loads.answered(a, bytes: 500)
        #expect(loads.admit(a, bytes: 10) == nil)
        #expect(loads.admit(a, bytes: 10) == nil)
        #expect(loads.admit(a, bytes: 10)?.contains("2 requests") == true)
        #expect(loads.admit(b, bytes: 10) == nil)
        #expect(loads.total == 3)

        let request = ControlRequest(id: 1, command: .enqueue, body: [])
        let works =
            (0..<10).map { ControlWork(identity: a, request: request, role: nil, bytes: $0) }
            + (0..<2).map { ControlWork(identity: b, request: request, role: nil, bytes: 100 + $0) }
        let (taken, left) = Inbox.fairShare(works, limit: 4)
        #expect(taken.map(\.bytes) == [0, 1, 100, 101])
        #expect(left.map(\.bytes) == [2, 3, 4, 5, 6, 7, 8, 9])
    }

    @Test func repeatedRefusalsAreLoggedOnceASecondWithACount() {
        let lines = LogLines()
        var logger = Logger(label: "throttle") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .trace
        var throttle = LogThrottle()
        let start = ContinuousClock.now
        for step in 0..<3_000 {
            throttle.log("refused", "connection refused", logger: logger, now: start + .milliseconds(step / 3))
        }
        throttle.flush(logger: logger, now: start + .seconds(5))
        let logged = lines.all
        #expect(logged.count <= 3, "\(logged)")
        #expect(logged.last?.contains("suppressed") == true, "\(logged)")
    }
}

extension ImportedWorkout {
    /// ``twoPoint(_:)`` with two heart-rate samples, so that it has heatmaps too.
    static func twoPointWithHeartRate(_ number: Int) -> ImportedWorkout {
        var workout = ImportedWorkout.twoPoint(number)
        let start = workout.start ?? Date(timeIntervalSince1970: 0)
        workout.heartRate = [HeartRateSample(time: start, bpm: 120), HeartRateSample(time: start.addingTimeInterval(30), bpm: 130)]
        return workout
    }
}
