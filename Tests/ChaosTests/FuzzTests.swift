import Foundation
import Testing
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire

/// Malformed, random and hostile messages at both of the coordinator's sockets while two worker
/// processes render real pictures. The coordinator must stay up, keep answering, and finish the work.
@Suite("Fuzz", .serialized) struct FuzzTests {
    @Test func malformedFramesAtBothSocketsStopNeitherTheCoordinatorNorTheWork() throws {
        var settings = ChaosSystem.Settings()
        settings.workers = 2
        settings.threadsPerWorker = 1
        // A mutated READY can be a well-formed one: the fuzzer then holds jobs and never answers, and
        // they come back counted as attempts. Enough attempts that this never exhausts a job.
        settings.maximumAttempts = 100
        // Every malformed message is logged at warning; keep the log to what matters.
        settings.logLevel = "error"
        let system = try ChaosSystem(settings, label: "fuzz")
        defer { system.tearDown() }
        let seconds = ProcessInfo.processInfo.environment["WORKFEED_FUZZ_SECONDS"].flatMap(Double.init) ?? 4
        let seed = ProcessInfo.processInfo.environment["WORKFEED_FUZZ_SEED"].flatMap { UInt64($0, radix: 16) } ?? 0xF022
        print("fuzz: seed \(String(seed, radix: 16)) (WORKFEED_FUZZ_SEED=\(String(seed, radix: 16)) replays it), \(seconds) s")

        // 25 workouts with heart rate x route, heatmap x light, dark = 100 jobs, all of which can be drawn.
        let files = try system.startWithAHundredJobs()

        let before = try system.feed()
        let fuzzer = try Fuzzer(context: system.context, workerEndpoint: system.workerEndpoint, controlEndpoint: system.controlEndpoint, seed: seed)
        var checks = 0
        var generatedSeen: [Int] = []
        try fuzzer.run(seconds: seconds) {
            // While the fuzzing goes on, the coordinator keeps answering real clients, and
            // dispatch keeps going: the real workers' pictures keep being recorded.
            guard system.coordinator.isRunning else { throw ChaosFailure("the coordinator died:\n\(system.coordinator.logTail())") }
            generatedSeen.append(try system.status(timeoutMilliseconds: 10_000).total(.generated))
            checks += 1
        }
        fuzzer.close()
        print("fuzz: \(fuzzer.statistics)")
        print("fuzz: generated as seen every half second while fuzzing: \(generatedSeen)")

        #expect(system.coordinator.isRunning, "the coordinator ended: \(system.coordinator.terminationDescription)\n\(system.coordinator.logTail())")
        #expect(system.coordinator.starts == 1)
        #expect(try system.ping())
        #expect(checks > 0, "STATUS was never answered while fuzzing")
        // Dispatch went on while the fuzzer was at it (or had already done everything).
        #expect(generatedSeen.last.map { $0 > generatedSeen[0] || $0 >= 100 } == true, "no picture recorded while fuzzing: \(generatedSeen)")
        // Bad frames get a clear error on both sockets.
        #expect(fuzzer.statistics.workerErrors > 0)
        #expect(fuzzer.statistics.controlErrors > 0)
        // Values at the edges were sent, and none of the out-of-range imports got in.
        #expect(fuzzer.statistics.sentByKind["extreme-values", default: 0] > 0)
        #expect(fuzzer.statistics.extremeImportsSent > 0)
        #expect(fuzzer.statistics.extremeImportsAccepted == 0)

        let done = try system.waitFor("every job done after fuzzing", timeout: 240) { $0.total(.pending) == 0 && $0.leased == 0 }
        print("fuzz: after fuzzing: \(ChaosSystem.describe(done))")
        for worker in system.workers {
            #expect(worker.isRunning && worker.starts == 1, "\(worker.name) ended: \(worker.terminationDescription)\n\(worker.logTail())")
        }
        let feed = try system.feed()
        // Nothing stored changed except by valid requests: the test's workouts are as imported,
        // every other workout is one whose IMPORT was valid (its times in range), and every
        // import the fuzzer was told succeeded is there.
        let original = Dictionary(uniqueKeysWithValues: before.map { ($0.workout.id, $0.workout) })
        for item in feed {
            if let workout = original[item.workout.id] {
                #expect(
                    item.workout.routeVersion == workout.routeVersion && item.workout.routeHash == workout.routeHash
                        && item.workout.name == workout.name && item.workout.start == workout.start, "\(item.workout.id) changed")
            }
            for date in [item.workout.start, item.workout.end].compactMap({ $0 }) {
                #expect(ValueLimits.isAcceptable(date), "workout \(item.workout.id) stored with a time out of range: \(date)")
            }
        }
        let stored = Set(feed.map(\.workout.id))
        #expect(original.keys.allSatisfy(stored.contains), "a test workout is gone")
        #expect(fuzzer.statistics.importsAcknowledged.isSubset(of: stored), "an acknowledged import is missing")
        #expect(system.stop().isEmpty)
        let references = try ReferencePictures(
            files: files, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1], system: system,
            into: system.directory.appendingPathComponent("references"))
        // The fuzzer's own imports may be in the feed; the test's workouts must all be generated.
        let verification = Verification(
            feed: feed, files: files, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1], cacheDirectory: system.cacheDirectory,
            references: references, allowOtherWorkouts: true)
        #expect(verification.problems.isEmpty, "\(verification.problems.count) problems:\n\(verification.summary())")
        #expect(verification.generated == 100)
        #expect(verification.bytesCompared == 100)
    }

    /// A worker may report any render time the field holds. The coordinator sums them for its
    /// progress log; a sum past UInt64.max must not stop it.
    @Test func aWorkerReportingHugeRenderTimesDoesNotStopTheCoordinator() throws {
        var settings = ChaosSystem.Settings()
        settings.workers = 0
        let system = try ChaosSystem(settings, label: "fuzz-render-time")
        defer { system.tearDown() }
        try system.startCoordinator()
        // Two workouts made here, imported as workctl would (IMPORT with the series attached).
        for number in 0..<2 {
            let route = Route(segments: [
                (0..<5).map {
                    RoutePoint(
                        latitude: 52 + Double($0) * 0.001, longitude: 4 + Double(number) * 0.01,
                        time: Date(timeIntervalSince1970: 1_700_000_000 + Double($0)))
                }
            ])
            let workout = ImportedWorkout(
                source: .gpx, sourceID: "render-time-\(number)", activity: .running, name: nil, route: route, heartRate: [], start: nil, end: nil,
                timeZoneOffset: nil, origin: "test")
            let _: ImportReply = try system.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(route), SeriesCodec.encode(workout.heartRate)])
        }
        let _: EnqueueReply = try system.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], scales: [1]))

        let worker = try ZMQSocket(system.context, type: .dealer)
        try worker.connect(system.workerEndpoint)
        try worker.send(WorkerMessage.ready(capacity: 2, rendererVersion: BuildInfo.rendererVersion, name: "hostile", basemap: "").frames)
        var reported = 0
        let deadline = Date().addingTimeInterval(30)
        while reported < 2 && Date() < deadline {
            guard try ZMQPoll.poll([worker.pollItem()], timeoutMilliseconds: 200)[0], let frames = try worker.receive(dontWait: true) else {
                continue
            }
            guard case .job(let job) = try WorkerMessage(frames: frames) else { continue }
            // Well-formed: the lease is real, the key is the job's; only the render time is absurd.
            try worker.send(
                WorkerMessage.status(JobReport(lease: job.lease, outcome: .generated, detail: job.cacheKey, renderMicroseconds: .max)).frames)
            reported += 1
        }
        try #require(reported == 2, "the fake worker got \(reported) jobs")
        let status = try system.waitFor("both reports recorded", timeout: 30) { $0.total(.generated) == 2 }
        #expect(status.total(.generated) == 2)
        #expect(system.coordinator.isRunning, "the coordinator ended: \(system.coordinator.terminationDescription)\n\(system.coordinator.logTail())")
    }
}
