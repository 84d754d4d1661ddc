import Foundation
import Logging
import Synchronization
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// The "fairshare" group (issue 23, finding 6): one owner uploads WORKFEED_BENCH_FAIR_WORKOUTS
/// (5,000) workouts and asks for all their pictures at once at the interactive priority, as the
/// gateway's upload does (route, light and dark, scales 1 and 2: 20,000 pictures); then, while
/// those are drawn, other owners upload one workout each, one after the other
/// (WORKFEED_BENCH_FAIR_TRIALS, 20), and the time from their ENQUEUE's reply to their first
/// picture generated (SHOW asked every 5 ms) is measured. Fake workers
/// (WORKFEED_BENCH_FAIR_WORKERS × WORKFEED_BENCH_FAIR_CAPACITY, 4 × 2 slots) take
/// WORKFEED_BENCH_FAIR_RENDER_US (10,000) µs a picture, about the 340 pictures a second the
/// issue saw. Printed: p50, p95 and max, and how far the flood got meanwhile. Before: 59 s.
enum FairShareBench {
    struct Settings {
        var workouts = 5_000
        var trials = 20
        var workers = 4
        var capacity = 2
        var renderMicroseconds = 10_000
        /// `jobs.interactive_per_owner`.
        var interactivePerOwner = EnqueueRequest.defaultInteractivePerOwner

        init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            func number(_ key: String) -> Int? { environment["WORKFEED_BENCH_FAIR_" + key].flatMap { Int($0) } }
            workouts = number("WORKOUTS") ?? workouts
            trials = number("TRIALS") ?? trials
            workers = number("WORKERS") ?? workers
            capacity = number("CAPACITY") ?? capacity
            renderMicroseconds = number("RENDER_US") ?? renderMicroseconds
            interactivePerOwner = number("INTERACTIVE_PER_OWNER") ?? interactivePerOwner
        }
    }

    /// What one run measured.
    struct Result {
        /// Milliseconds from each other owner's ENQUEUE to its first picture, sorted.
        var firstPicture: [Double]
        /// Pictures of the flood drawn while the others were measured, and the flood's size.
        var floodDrawn: Int
        var floodPictures: Int
        /// How many of the flood's pictures waited as bulk work (`EnqueueReply.queuedAsBulk`).
        var queuedAsBulk: Int

        func quantile(_ q: Double) -> Double {
            firstPicture.isEmpty ? .infinity : firstPicture[min(firstPicture.count - 1, Int(Double(firstPicture.count) * q))]
        }

        var summary: String {
            "another owner's first picture: p50 \(Measure.format(quantile(0.5), 0)) ms, p95 \(Measure.format(quantile(0.95), 0)) ms, max "
                + "\(Measure.format(firstPicture.last ?? .infinity, 0)) ms over \(firstPicture.count) uploads, while the flooding owner's "
                + "\(floodPictures) pictures were drawn (\(floodDrawn) meanwhile; \(queuedAsBulk) of them queued as bulk work)"
        }
    }

    static func run(options: BenchOptions) throws {
        let settings = Settings()
        print(
            "## fairshare (one owner: \(settings.workouts) workouts, route x light, dark x scales 1, 2 asked at once at priority 100; "
                + "\(settings.trials) other owners upload one workout each meanwhile; \(settings.workers) fake workers x \(settings.capacity) slots, "
                + "\(settings.renderMicroseconds) µs a picture; jobs.interactive_per_owner \(settings.interactivePerOwner); "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores)")
        let result = try measure(settings)
        print(result.summary)
    }

    static func measure(_ settings: Settings) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-fairshare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = DispatchBench.benchConfiguration(directory: directory)
        configuration.interactivePerOwner = settings.interactivePerOwner
        var logger = Logger(label: "workfeed.bench.fairshare")
        logger.logLevel = ProcessInfo.processInfo.environment["WORKFEED_BENCH_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        let context = ZMQContext()
        let coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
        let endpoints = try coordinator.start()
        defer { coordinator.stop() }

        // The flood: the default owner's workouts, every picture asked for at once.
        try DispatchBench.importTinyWorkouts(settings.workouts, context: context, endpoint: endpoints.control)
        var client = try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: 600_000)
        var flood = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark], scales: [1, 2], priority: EnqueueRequest.interactivePriority)
        flood.owner = Owner.defaultName
        let fakeContext = ZMQContext()
        let fakes = FakeWorker.started(
            settings.workers, capacity: settings.capacity, endpoint: endpoints.workers, context: fakeContext,
            renderMicroseconds: settings.renderMicroseconds)
        defer { for fake in fakes { fake.stop() } }
        func drawn() -> Int { fakes.reduce(0) { $0 + $1.answered.load(ordering: .relaxed) } }
        let enqueued: EnqueueReply = try client.request(.enqueue, flood)
        Thread.sleep(forTimeInterval: 0.5)
        let drawnBefore = drawn()

        var latencies: [Double] = []
        for trial in 0..<settings.trials {
            let owner = "other-\(trial)"
            var workout = ImportedWorkout.twoPoint(1_000_000 + trial)
            workout.sourceID = "other-\(trial)"
            let imported: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout, owner: owner),
                attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
            var request = EnqueueRequest(
                ids: [imported.id], kinds: [.route], themes: [.light, .dark], scales: [1, 2], priority: EnqueueRequest.interactivePriority)
            request.owner = owner
            let _: EnqueueReply = try client.request(.enqueue, request)
            let asked = ContinuousClock.now
            while true {
                let shown: ShowReply = try client.request(.show, ShowRequest(id: imported.id, owner: owner))
                if shown.item.pictures.contains(where: { $0.status == .generated }) { break }
                if ContinuousClock.now - asked > .seconds(120) { throw BenchError("\(owner)'s picture not drawn within 120 s") }
                Thread.sleep(forTimeInterval: 0.005)
            }
            latencies.append(Measure.milliseconds(ContinuousClock.now - asked))
            Thread.sleep(forTimeInterval: 0.2)
        }
        return Result(
            firstPicture: latencies.sorted(), floodDrawn: drawn() - drawnBefore, floodPictures: enqueued.created,
            queuedAsBulk: enqueued.queuedAsBulk ?? 0)
    }
}
