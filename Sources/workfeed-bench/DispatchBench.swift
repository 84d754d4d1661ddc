import Foundation
import Logging
import Synchronization
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire
import WorkFeedStyle
import WorkFeedTesting

/// The "dispatch" group: how many jobs a second the coordinator hands out and records when
/// rendering costs nothing.
///
/// A real ``Coordinator`` (its loop, index and read threads, a temporary SQLite index at the
/// durability under test) and fake workers on real loopback sockets that answer every JOB at once
/// with `STATUS generated <cache key>`. 20,000 two-point workouts are imported through IMPORT, then one
/// ENQUEUE (route, light, @1x) makes 20,000 jobs; the time runs from sending the ENQUEUE until a
/// STATUS reply shows none pending, so every status is in the index, committed.
///
/// Then the same work without sockets, straight on the index, one transaction per simulated loop
/// turn, to say where the time goes.
///
/// The same on the PostgreSQL index (`_INDEX=sqlite,postgres`): a server of its own with
/// PostgreSQL's defaults (every commit flushed), one or more coordinators on it (`_COORDINATORS`),
/// each with its own fake workers (`_WORKERS` each); the imports and the ENQUEUE go through the
/// first.
///
/// Settings (environment): WORKFEED_BENCH_DISPATCH_WORKOUTS (20000), _WORKERS (1,2),
/// _CAPACITIES (8,64), _DURABILITY (full,normal: SQLite's), _INDEX (sqlite), _COORDINATORS (1,2:
/// PostgreSQL's), _RUNS (1; the median is shown), _PHASES (0: skip the index-only breakdown);
/// WORKFEED_BENCH_LOG=info shows the coordinator's log.
enum DispatchBench {
    struct Settings {
        var workouts = 20_000
        var workerCounts = [1, 2]
        var capacities = [8, 64]
        var durabilities = ["full", "normal"]
        var indexes = ["sqlite"]
        var coordinatorCounts = [1, 2]
        var runs = 1
        /// Whether to run the index-only breakdown after the measurements.
        var phases = true

        init(environment: [String: String]) {
            func ints(_ key: String) -> [Int]? {
                environment[key].map { $0.split(separator: ",").compactMap { Int($0) } }.flatMap { $0.isEmpty ? nil : $0 }
            }
            workouts = ints("WORKFEED_BENCH_DISPATCH_WORKOUTS")?.first ?? workouts
            workerCounts = ints("WORKFEED_BENCH_DISPATCH_WORKERS") ?? workerCounts
            capacities = ints("WORKFEED_BENCH_DISPATCH_CAPACITIES") ?? capacities
            durabilities = environment["WORKFEED_BENCH_DISPATCH_DURABILITY"].map { $0.split(separator: ",").map(String.init) } ?? durabilities
            indexes = environment["WORKFEED_BENCH_DISPATCH_INDEX"].map { $0.split(separator: ",").map(String.init) } ?? indexes
            coordinatorCounts = ints("WORKFEED_BENCH_DISPATCH_COORDINATORS") ?? coordinatorCounts
            runs = ints("WORKFEED_BENCH_DISPATCH_RUNS")?.first ?? runs
            phases = environment["WORKFEED_BENCH_DISPATCH_PHASES"] != "0"
        }
    }

    static func run(options: BenchOptions) throws {
        let settings = Settings(environment: ProcessInfo.processInfo.environment)
        print(
            "## dispatch (\(settings.workouts) jobs: route light @1x of 2-point workouts; fake workers answer each JOB at once; \(ProcessInfo.processInfo.activeProcessorCount) cores)"
        )
        print("time from sending ENQUEUE until STATUS shows 0 pending; median of \(settings.runs) run(s); cpu = this process over that time")
        print("index              workers  capacity  import/s  enqueue ms  dispatch s  jobs/s   jobs/wake  cpu s (fakes)")
        var indexes: [IndexUnderTest] = []
        for index in settings.indexes {
            switch index {
            case "sqlite": indexes += settings.durabilities.map { .sqlite(durability: $0) }
            case "postgres": indexes += settings.coordinatorCounts.map { .postgres(coordinators: $0) }
            default: throw BenchError("WORKFEED_BENCH_DISPATCH_INDEX: '\(index)' is not sqlite or postgres")
            }
        }
        for index in indexes {
            for workers in settings.workerCounts {
                for capacity in settings.capacities {
                    var results: [Result] = []
                    for _ in 0..<settings.runs {
                        results.append(try measure(workouts: settings.workouts, workers: workers, capacity: capacity, index: index))
                    }
                    let result = results.sorted { $0.jobsPerSecond < $1.jobsPerSecond }[results.count / 2]
                    print(
                        RenderBench.pad(index.description, 19) + RenderBench.pad("\(workers)", 9) + RenderBench.pad("\(capacity)", 10)
                            + RenderBench.pad(Measure.format(result.importsPerSecond, 0), 10)
                            + RenderBench.pad(Measure.format(result.enqueueMilliseconds, 0), 12)
                            + RenderBench.pad(Measure.format(result.dispatchSeconds, 2), 12)
                            + RenderBench.pad(Measure.format(result.jobsPerSecond, 0), 9)
                            + RenderBench.pad(Measure.format(result.jobsPerWake, 1), 11)
                            + Measure.format(result.processCPUSeconds, 2) + " (" + Measure.format(result.fakeCPUSeconds, 2) + ")")
                }
            }
        }
        print("")
        if settings.phases { try phases(settings: settings) }
    }

    /// The index one measurement runs on.
    enum IndexUnderTest: CustomStringConvertible {
        /// The embedded file at `index.durability`.
        case sqlite(durability: String)
        /// A PostgreSQL server of its own with its defaults, `coordinators` on it.
        case postgres(coordinators: Int)

        var description: String {
            switch self {
            case .sqlite(let durability): "sqlite \(durability)"
            case .postgres(let coordinators): "postgres \(coordinators) coord."
            }
        }
    }

    struct Result {
        var importsPerSecond: Double
        var enqueueMilliseconds: Double
        var dispatchSeconds: Double
        var jobsPerSecond: Double
        /// JOBs a fake worker found waiting each time it woke: how many jobs the coordinator's turns
        /// hand out at once.
        var jobsPerWake: Double
        var processCPUSeconds: Double
        var fakeCPUSeconds: Double
    }

    // MARK: Through the coordinator

    static func measure(workouts: Int, workers workerCount: Int, capacity: Int, index: IndexUnderTest) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-dispatch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configurations: [CoordinatorConfiguration] = []
        var server: PostgresTestServer?
        defer { server?.stop() }
        switch index {
        case .sqlite(let durability):
            var configuration = benchConfiguration(directory: directory)
            configuration.durability = CoordinatorConfiguration.Durability(rawValue: durability) ?? .full
            configurations = [configuration]
        case .postgres(let coordinators):
            let started = try PostgresTestServer(durable: true)
            server = started
            let url = started.socketURL(database: try started.createDatabase())
            configurations = (0..<coordinators).map { number in
                var configuration = benchConfiguration(directory: directory.appendingPathComponent("coordinator-\(number)"))
                configuration.indexURL = url
                configuration.coordinatorID = "bench-\(number)"
                return configuration
            }
        }
        var logger = Logger(label: "workfeed.bench.dispatch")
        logger.logLevel = (ProcessInfo.processInfo.environment["WORKFEED_BENCH_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error)
        let context = ZMQContext()
        let coordinators = configurations.map { Coordinator(configuration: $0, context: context, logger: logger) }
        defer { for coordinator in coordinators { coordinator.stop() } }
        var allEndpoints: [Coordinator.Endpoints] = []
        for coordinator in coordinators { allEndpoints.append(try coordinator.start()) }
        let endpoints = allEndpoints[0]

        let importStarted = ContinuousClock.now
        try importTinyWorkouts(workouts, context: context, endpoint: endpoints.control)
        let importSeconds = seconds(ContinuousClock.now - importStarted)

        let fakeContext = ZMQContext()
        let fakes = allEndpoints.enumerated().flatMap { coordinator, endpoints in
            (0..<workerCount).map {
                FakeWorker(name: "fake-\(coordinator)-\($0)", capacity: capacity, endpoint: endpoints.workers, context: fakeContext)
            }
        }
        for fake in fakes { fake.start() }
        defer { for fake in fakes { fake.stop() } }
        for endpoints in allEndpoints {
            var client = try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: 120_000)
            while true {
                let status: StatusReply = try client.request(.status, [String: String]())
                if status.workers.count == workerCount { break }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        var client = try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: 120_000)

        let cpuStarted = processCPUTime()
        let started = ContinuousClock.now
        let enqueued: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], scales: [1]))
        let enqueueMilliseconds = Measure.milliseconds(ContinuousClock.now - started)
        guard enqueued.created == workouts else { throw BenchError("ENQUEUE created \(enqueued.created) jobs, expected \(workouts)") }
        // Wait cheaply until the fakes have answered every job, then ask STATUS until it shows the
        // last statuses committed. (STATUS counts every job: asking often would slow the loop.)
        let deadline = ContinuousClock.now + .seconds(600)
        var lastCheck = ContinuousClock.now
        while fakes.reduce(0, { $0 + $1.answered.load(ordering: .relaxed) }) < workouts {
            guard ContinuousClock.now < deadline else { throw BenchError("dispatch did not finish in 600 s") }
            Thread.sleep(forTimeInterval: 0.002)
            if ContinuousClock.now - lastCheck > .seconds(5) {
                lastCheck = .now
                let status: StatusReply = try client.request(.status, [String: String]())
                if status.total(.pending) == 0 { break }
            }
        }
        var final: StatusReply
        while true {
            final = try client.request(.status, [String: String]())
            if final.total(.pending) == 0 { break }
            guard ContinuousClock.now < deadline else { throw BenchError("dispatch did not finish in 600 s") }
            Thread.sleep(forTimeInterval: 0.001)
        }
        let elapsed = seconds(ContinuousClock.now - started)
        guard final.total(.generated) == workouts else {
            throw BenchError("\(final.total(.generated)) jobs generated at the end, expected \(workouts)")
        }
        let cpu = seconds(processCPUTime() - cpuStarted)
        for fake in fakes { fake.stop() }
        let wakes = fakes.reduce(0) { $0 + $1.batches.load(ordering: .relaxed) }
        let answered = fakes.reduce(0) { $0 + $1.answered.load(ordering: .relaxed) }
        return Result(
            importsPerSecond: Double(workouts) / importSeconds, enqueueMilliseconds: enqueueMilliseconds, dispatchSeconds: elapsed,
            jobsPerSecond: Double(workouts) / elapsed, jobsPerWake: Double(answered) / Double(max(wakes, 1)), processCPUSeconds: cpu,
            fakeCPUSeconds: fakes.reduce(0) { $0 + $1.cpuSeconds() })
    }

    /// IMPORTs through the control socket, as many in flight as the coordinator lets one client
    /// have (`control.max_in_flight`, 32 by default; one at a time would measure round trips and
    /// commits per request, not the coordinator).
    static func importTinyWorkouts(_ count: Int, context: ZMQContext, endpoint: String) throws {
        let socket = try ZMQSocket(context, type: .dealer)
        try socket.connect(endpoint)
        var sent = 0
        var answered = 0
        while answered < count {
            while sent < count && sent - answered < ControlLimits.defaultRequestsInFlight {
                let workout = ImportedWorkout.twoPoint(sent)
                let request = ControlRequest(
                    id: UInt64(sent + 1), command: .importWorkout, body: try ControlCodec.encode(ImportRequest(workout)),
                    attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
                try socket.send(request.frames)
                sent += 1
            }
            guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 60_000)[0] else { throw BenchError("IMPORT: no reply in 60 s") }
            while let frames = try socket.receive(dontWait: true) {
                let reply = try ControlReply(frames: frames)
                guard reply.ok else { throw BenchError("IMPORT refused: \(String(decoding: reply.body, as: UTF8.self))") }
                answered += 1
            }
        }
    }

    // MARK: Where the time goes

    /// The coordinator's per-turn index work without sockets: each turn records the statuses of the
    /// previous turn's batch and leases the next batch, in one transaction, as the loop does. Also
    /// the per-job costs outside the index (cache key, JOB frames, STATUS parsing).
    static func phases(settings: Settings) throws {
        print("## dispatch phases (the same \(settings.workouts) jobs straight on the index, no sockets: one transaction per turn)")
        print("durability  jobs/turn  complete µs/job  lease µs/job  commit ms/turn  total µs/job  index-only jobs/s")
        var logger = Logger(label: "workfeed.bench.dispatch")
        logger.logLevel = .error
        for durability in settings.durabilities {
            for batch in [8, 64, 128] {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-dispatch-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: directory) }
                let index = try WorkoutIndex(
                    path: directory.appendingPathComponent("index.sqlite").path,
                    durability: WorkoutIndex.Durability(rawValue: durability) ?? .full, logger: logger)
                let configuration = CoordinatorConfiguration()
                let spec = PictureSpec(
                    kind: .route, theme: .light, width: configuration.pictureWidth, height: configuration.pictureHeight, scale: 1,
                    style: RouteStyle.light, heatmap: configuration.heatmap
                ).encoded()
                try index.write { transaction in
                    for number in 0..<settings.workouts { _ = try transaction.importWorkout(ImportedWorkout.twoPoint(number)) }
                    _ = try transaction.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], scales: [1]), scales: [1]) {
                        _, inputs in
                        PictureSpec.cacheKey(kind: .route, encodedSpec: spec, routeHash: inputs.routeHash, heartRateHash: inputs.heartRateHash)
                    }
                }
                var counter: UInt64 = 0
                var inFlight: [(lease: UInt64, key: String)] = []
                var completeTime = Duration.zero
                var leaseTime = Duration.zero
                var commitTime = Duration.zero
                var turns = 0
                let clock = ContinuousClock()
                let started = clock.now
                while true {
                    var bodyEnd = clock.now
                    let leased = try index.write { transaction in
                        let a = clock.now
                        for job in inFlight {
                            _ = try transaction.complete(
                                JobReportRecord(lease: job.lease, outcome: .generated, detail: job.key), from: "bench", retry: RetryPolicy()
                            ) { _, inputs in
                                PictureSpec.cacheKey(
                                    kind: .route, encodedSpec: spec, routeHash: inputs.routeHash, heartRateHash: inputs.heartRateHash)
                            }
                        }
                        let b = clock.now
                        let jobs = try transaction.lease(limit: batch, to: "bench") {
                            counter += 1
                            return counter
                        }
                        let c = clock.now
                        completeTime += b - a
                        leaseTime += c - b
                        bodyEnd = c
                        return jobs
                    }
                    commitTime += clock.now - bodyEnd
                    turns += 1
                    if leased.isEmpty && inFlight.isEmpty { break }
                    inFlight = leased.map {
                        ($0.lease, PictureSpec.cacheKey(kind: .route, encodedSpec: spec, routeHash: $0.routeHash, heartRateHash: $0.heartRateHash))
                    }
                }
                let total = clock.now - started
                let jobs = Double(settings.workouts)
                print(
                    RenderBench.pad(durability, 12) + RenderBench.pad("\(batch)", 11)
                        + RenderBench.pad(Measure.format(Measure.milliseconds(completeTime) * 1000 / jobs, 1), 17)
                        + RenderBench.pad(Measure.format(Measure.milliseconds(leaseTime) * 1000 / jobs, 1), 14)
                        + RenderBench.pad(Measure.format(Measure.milliseconds(commitTime) / Double(turns), 3), 16)
                        + RenderBench.pad(Measure.format(Measure.milliseconds(total) * 1000 / jobs, 1), 14)
                        + Measure.format(jobs / seconds(total), 0))
            }
        }

        // Per-job work outside the index.
        let configuration = CoordinatorConfiguration()
        let spec = PictureSpec(
            kind: .route, theme: .light, width: configuration.pictureWidth, height: configuration.pictureHeight, scale: 1,
            style: RouteStyle.light, heatmap: configuration.heatmap
        ).encoded()
        let workout = ImportedWorkout.twoPoint(1)
        let route = SeriesCodec.encode(workout.route)
        let heartRate = SeriesCodec.encode(workout.heartRate)
        let routeHash = SHA256.hex(route)
        let n = 20_000
        var sink = 0
        let keyTimes = Measure.durations(runs: 5, warmUp: 1) {
            for _ in 0..<n { sink &+= PictureSpec.cacheKey(kind: .route, encodedSpec: spec, routeHash: routeHash, heartRateHash: "").utf8.count }
        }
        let key = PictureSpec.cacheKey(kind: .route, encodedSpec: spec, routeHash: routeHash, heartRateHash: "")
        let job = WorkerMessage.job(
            JobAssignment(lease: 1, workoutID: WorkoutID(UUID()), cacheKey: key, spec: spec, route: route, heartRate: heartRate))
        let jobTimes = Measure.durations(runs: 5, warmUp: 1) {
            for _ in 0..<n { sink &+= job.frames.count }
        }
        let statusFrames = WorkerMessage.status(JobReport(lease: 1, outcome: .generated, detail: key, renderMicroseconds: 0)).frames
        let parseTimes = try Measure.durations(runs: 5, warmUp: 1) {
            for _ in 0..<n { if case .status = try WorkerMessage(frames: statusFrames) { sink &+= 1 } }
        }
        func perJob(_ times: [Duration]) -> String { Measure.format(Measure.milliseconds(Measure.median(times)) * 1000 / Double(n), 2) }
        print(
            "per job outside the index: cache key (SHA-256) \(perJob(keyTimes)) µs, JOB frames \(perJob(jobTimes)) µs, "
                + "STATUS parse \(perJob(parseTimes)) µs\(sink == 0 ? " " : "")")
    }

    static func seconds(_ duration: Duration) -> Double { Measure.milliseconds(duration) / 1000 }

    /// A coordinator configuration for a benchmark: index and cache in `directory`, every socket on
    /// a free loopback port, no metrics endpoint.
    static func benchConfiguration(directory: URL) -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration()
        configuration.indexPath = directory.appendingPathComponent("index.sqlite").path
        configuration.cacheDirectory = directory.appendingPathComponent("cache").path
        configuration.workerEndpoint = "tcp://127.0.0.1:*"
        configuration.controlEndpoint = "tcp://127.0.0.1:*"
        configuration.eventsEndpoint = "tcp://127.0.0.1:*"
        configuration.metricsListen = ""
        return configuration
    }

    /// CPU time of the whole process (every thread: the coordinator's loop, libzmq's I/O threads, the fakes).
    static func processCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }
}
