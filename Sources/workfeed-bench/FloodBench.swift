import Foundation
import Logging
import Synchronization
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// The "flood" group: one client floods the control socket while a bulk render runs (issue 13,
/// finding 2: 2,000 FEEDs of 1,000 and 100 STATUS from one client stopped dispatch for ten minutes).
///
/// A real ``Coordinator`` with an index of WORKFEED_BENCH_FLOOD_WORKOUTS (50,000) two-point
/// workouts x route, heatmap x light, dark (200,000 jobs), fake workers answering every JOB after
/// WORKFEED_BENCH_FLOOD_RENDER_US (500) µs each, and a second client sending PING every 10 ms. The
/// dispatch rate (jobs answered a second) is measured undisturbed, then during two floods from one
/// client: a burst (every request sent at once, without waiting for a reply), and a sustained
/// flood (as many in flight as the coordinator admits, until 2,000 FEEDs and 100 STATUS have been
/// answered, or WORKFEED_BENCH_FLOOD_SECONDS (60) have passed). A burst's replies beyond what
/// the coordinator queues for a client that is not reading (twice `control.max_in_flight`) are
/// dropped: they are counted as unanswered. Printed: the rates, how the flood
/// was answered, PING latencies, and the process's resident memory.
enum FloodBench {
    struct Settings {
        var workouts = 50_000
        var feeds = 2_000
        var statuses = 100
        var feedLimit = 1_000
        var workers = 4
        var capacity = 8
        var renderMicroseconds = 500
        var undisturbedSeconds = 8.0
        var floodSeconds = 60.0

        init(environment: [String: String]) {
            func number(_ key: String) -> Double? { environment["WORKFEED_BENCH_FLOOD_" + key].flatMap(Double.init) }
            workouts = number("WORKOUTS").map(Int.init) ?? workouts
            feeds = number("FEEDS").map(Int.init) ?? feeds
            statuses = number("STATUS").map(Int.init) ?? statuses
            feedLimit = number("FEED_LIMIT").map(Int.init) ?? feedLimit
            workers = number("WORKERS").map(Int.init) ?? workers
            capacity = number("CAPACITY").map(Int.init) ?? capacity
            renderMicroseconds = number("RENDER_US").map(Int.init) ?? renderMicroseconds
            undisturbedSeconds = number("UNDISTURBED_SECONDS") ?? undisturbedSeconds
            floodSeconds = number("SECONDS") ?? floodSeconds
        }
    }

    static func run(options: BenchOptions) throws {
        let settings = Settings(environment: ProcessInfo.processInfo.environment)
        let jobs = settings.workouts * 4
        print(
            "## flood (\(jobs) jobs: \(settings.workouts) two-point workouts x route, heatmap x light, dark; \(settings.workers) fake workers x "
                + "\(settings.capacity) slots, \(settings.renderMicroseconds) µs a job; one client sends \(settings.feeds) FEED {limit: "
                + "\(settings.feedLimit)} and \(settings.statuses) STATUS; another PINGs every 10 ms; \(ProcessInfo.processInfo.activeProcessorCount) cores)"
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-flood-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = DispatchBench.benchConfiguration(directory: directory)
        var logger = Logger(label: "workfeed.bench.flood")
        logger.logLevel = ProcessInfo.processInfo.environment["WORKFEED_BENCH_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        let context = ZMQContext()
        let coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
        let endpoints = try coordinator.start()
        defer { coordinator.stop() }

        let importStarted = ContinuousClock.now
        try DispatchBench.importTinyWorkouts(settings.workouts, context: context, endpoint: endpoints.control)
        var client = try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: 600_000)
        let enqueued: EnqueueReply = try client.request(
            .enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1]))
        guard enqueued.created == jobs else { throw BenchError("ENQUEUE created \(enqueued.created) jobs, expected \(jobs)") }
        print(
            "index: \(jobs) jobs pending after \(Measure.format(DispatchBench.seconds(ContinuousClock.now - importStarted), 1)) s of import and enqueue"
        )

        let fakeContext = ZMQContext()
        let fakes = FakeWorker.started(
            settings.workers, capacity: settings.capacity, endpoint: endpoints.workers, context: fakeContext,
            renderMicroseconds: settings.renderMicroseconds)
        defer { for fake in fakes { fake.stop() } }
        func answered() -> Int { fakes.reduce(0) { $0 + $1.answered.load(ordering: .relaxed) } }
        let memory = MemorySampler()
        let prober = Prober(context: context, endpoint: endpoints.control)
        prober.start()
        defer { prober.stop() }

        // Undisturbed.
        Thread.sleep(forTimeInterval: 1)
        var mark = (answered(), ContinuousClock.now)
        Thread.sleep(forTimeInterval: settings.undisturbedSeconds)
        let undisturbed = Double(answered() - mark.0) / DispatchBench.seconds(ContinuousClock.now - mark.1)
        let undisturbedPings = prober.take()
        let residentBefore = memory.current()
        print(
            "undisturbed: \(Measure.format(undisturbed, 0)) jobs/s; PING p50 \(Prober.format(undisturbedPings, 0.5)) p99 \(Prober.format(undisturbedPings, 0.99)) "
                + "max \(Prober.format(undisturbedPings, 1)) ms (\(undisturbedPings.count) PINGs); resident \(Measure.format(residentBefore, 1)) MiB")

        let flood = Flood(context: context, endpoint: endpoints.control, feedLimit: settings.feedLimit)
        for sustained in [false, true] {
            memory.resetPeak()
            mark = (answered(), ContinuousClock.now)
            let outcome = try flood.run(feeds: settings.feeds, statuses: settings.statuses, sustained: sustained, seconds: settings.floodSeconds)
            let elapsed = DispatchBench.seconds(ContinuousClock.now - mark.1)
            let rate = Double(answered() - mark.0) / elapsed
            let pings = prober.take()
            print(
                "\(sustained ? "sustained" : "burst")  flood: \(Measure.format(rate, 0)) jobs/s (\(Measure.format(100 * rate / undisturbed, 0)) % of undisturbed) over "
                    + "\(Measure.format(elapsed, 1)) s; flood answered \(outcome.ok) OK (\(outcome.feeds) FEED, \(outcome.statuses) STATUS, "
                    + "\(Measure.format(Double(outcome.bytes) / 1e6, 0)) MB), \(outcome.busy) busy, \(outcome.otherErrors) other ERROR, "
                    + "\(outcome.unanswered) unanswered; PING p50 \(Prober.format(pings, 0.5)) p99 \(Prober.format(pings, 0.99)) max "
                    + "\(Prober.format(pings, 1)) ms (\(pings.count) PINGs, \(prober.lost.load(ordering: .relaxed)) lost); resident peak "
                    + "\(Measure.format(memory.peak(), 1)) MiB")
        }
        let after = answered()
        print("dispatch went on: \(after) of \(jobs) jobs answered by the end")
    }

    /// How one flood was answered.
    struct Outcome {
        var ok = 0
        var feeds = 0
        var statuses = 0
        var busy = 0
        var otherErrors = 0
        var unanswered = 0
        var bytes = 0
    }

    /// One client's flood: FEEDs of the first page (all the same, as the finding's were) and STATUS.
    struct Flood {
        let context: ZMQContext
        let endpoint: String
        let feedLimit: Int

        /// - Parameter sustained: keep sending as replies come (busy ones are sent again) until
        ///   every request was answered OK; otherwise send everything at once and count replies.
        func run(feeds: Int, statuses: Int, sustained: Bool, seconds: Double) throws -> Outcome {
            let socket = try ZMQSocket(context, type: .dealer)
            try socket.connect(endpoint)
            let feed = Array("{\"limit\":\(feedLimit)}".utf8)
            // The commands in the order sent: a STATUS after every 20 FEEDs.
            var plan: [ControlCommand] = []
            for number in 0..<(feeds + statuses) {
                plan.append(number % 21 == 20 && plan.filter { $0 == .status }.count < statuses ? .status : .feed)
            }
            while plan.filter({ $0 == .status }).count < statuses { plan.append(.status) }
            plan = Array(plan.prefix(feeds + statuses))
            var outcome = Outcome()
            var waiting: [UInt64: ControlCommand] = [:]
            var next = 0
            var nextID: UInt64 = 1
            var again: [ControlCommand] = []
            func send(_ command: ControlCommand) throws {
                let id = nextID
                nextID += 1
                try socket.send(ControlRequest(id: id, command: command, body: command == .feed ? feed : Array("{}".utf8)).frames)
                waiting[id] = command
            }
            if !sustained {
                for command in plan { try send(command) }
                next = plan.count
            }
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            var lastReply = ContinuousClock.now
            while ContinuousClock.now < deadline {
                // A burst's replies beyond what the coordinator queues for a client that is not
                // reading are dropped: after 2 s without one, the rest are not coming.
                if !sustained && ContinuousClock.now - lastReply > .seconds(2) { break }
                if sustained {
                    // Keep as many in flight as the coordinator admits; what it refused goes again.
                    while waiting.count < ControlLimits.defaultRequestsInFlight, next < plan.count || !again.isEmpty {
                        if let command = again.popLast() {
                            try send(command)
                        } else {
                            try send(plan[next])
                            next += 1
                        }
                    }
                    if next >= plan.count && again.isEmpty && waiting.isEmpty { break }
                } else if waiting.isEmpty {
                    break
                }
                guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0] else { continue }
                while let frames = try socket.receive(dontWait: true) {
                    lastReply = .now
                    guard let reply = try? ControlReply(frames: frames), let command = waiting.removeValue(forKey: reply.id) else { continue }
                    if reply.ok {
                        outcome.ok += 1
                        outcome.bytes += reply.body.count
                        if command == .feed { outcome.feeds += 1 } else { outcome.statuses += 1 }
                    } else if String(decoding: reply.body, as: UTF8.self).contains("busy") {
                        outcome.busy += 1
                        if sustained { again.append(command) }
                    } else {
                        outcome.otherErrors += 1
                    }
                }
            }
            outcome.unanswered = waiting.count + (plan.count - next) + again.count
            return outcome
        }
    }

    /// A second client that sends PING every 10 ms and records how long each answer took.
    final class Prober: Sendable {
        let context: ZMQContext
        let endpoint: String
        private let latencies = Mutex<[Double]>([])
        private let stopping = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)
        /// PINGs without an answer within 10 s.
        let lost = Atomic<Int>(0)

        init(context: ZMQContext, endpoint: String) {
            self.context = context
            self.endpoint = endpoint
        }

        func start() {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard var client = try? ControlClient(context: context, endpoint: endpoint, timeoutMilliseconds: 10_000) else { return }
                while !stopping.load(ordering: .relaxed) {
                    let started = ContinuousClock.now
                    do {
                        let _: [String: Bool] = try client.request(.ping, [String: String]())
                        let elapsed = Measure.milliseconds(ContinuousClock.now - started)
                        latencies.withLock { $0.append(elapsed) }
                    } catch {
                        lost.add(1, ordering: .relaxed)
                    }
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
            thread.name = "ping-prober"
            thread.start()
        }

        func stop() {
            stopping.store(true, ordering: .relaxed)
            done.wait()
        }

        /// The latencies recorded since the last take.
        func take() -> [Double] {
            latencies.withLock { latencies in
                defer { latencies = [] }; return latencies.sorted()
            }
        }

        static func format(_ sorted: [Double], _ quantile: Double) -> String {
            guard !sorted.isEmpty else { return "-" }
            return Measure.format(sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))], 1)
        }
    }

    /// Samples this process's resident memory every 50 ms on a thread of its own.
    final class MemorySampler: Sendable {
        private let peakMiB = Mutex<Double>(0)
        private let stopping = Atomic<Bool>(false)

        init() {
            let thread = Thread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    let now = current()
                    peakMiB.withLock { $0 = max($0, now) }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            thread.start()
        }

        deinit { stopping.store(true, ordering: .relaxed) }

        func current() -> Double {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
            for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
                return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
            }
            return 0
        }

        func peak() -> Double { peakMiB.withLock { $0 } }
        func resetPeak() { peakMiB.withLock { $0 = current() } }
    }
}
