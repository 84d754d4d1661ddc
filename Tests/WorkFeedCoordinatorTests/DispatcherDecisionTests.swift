import Foundation
import Logging
import Synchronization
import Testing
import WorkFeedConfig
import WorkFeedIndex
@testable import WorkFeedCoordinator
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire

/// The dispatcher's decisions (credits, priorities, retries, silent workers) on a real index in a
/// temporary directory, without sockets or sleeps: each test hands it batches and the instant
/// each was cut, and reads what it would send (issue 11; ``DispatcherBench``).
@Suite struct DispatcherDecisionTests {
    /// A write whose deadline passes while its batch runs is not committed: the batch is rolled
    /// back and applied again without it, and its client is told `expired` (issue 23, finding 5).
    @Test(arguments: TestedIndex.available) func aRequestWhoseDeadlinePassesDuringItsBatchIsNotCommitted(_ index: TestedIndex) throws {
        try index.check(ARequestWhoseDeadlinePassesDuringItsBatchIsNotCommitted())
    }

    struct ARequestWhoseDeadlinePassesDuringItsBatchIsNotCommitted: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            // The clock reads 1,000 s at the batch's start and 1,010 s at every later look: the
            // deadline (1,005 s) passes between the start and the commit.
            let looks = Mutex(0)
            bench.dispatcher.wallClock = {
                looks.withLock { looks in
                    looks += 1
                    return looks == 1 ? 1_000_000 : 1_010_000
                }
            }
            let add = try ControlCodec.encode(ZonesRequest(owner: "alice", add: .init(latitude: 10, longitude: 10, radius: 300)))
            let other = try ControlCodec.encode(ZonesRequest(owner: "bob", add: .init(latitude: 20, longitude: 20, radius: 300)))
            let outbox = bench.turn(control: [
                ControlRequest(id: 1, command: .zones, body: add, deadline: 1_005_000), ControlRequest(id: 2, command: .zones, body: other),
            ])
            let replies = Dictionary(uniqueKeysWithValues: outbox.control.map { ($0.reply.id, $0.reply) })
            let late = try #require(replies[1])
            #expect(!late.ok)
            #expect(try ControlCodec.decode(ControlErrorBody.self, from: late.body).code == .expired)
            #expect(replies[2]?.ok == true, "the rest of the batch is applied")
            #expect(looks.withLock { $0 } >= 3, "checked before the batch, before its commit, and again before the second try")
            let alice = try #require(bench.turn(control: [try bench.request(.zones, ZonesRequest(owner: "alice"))]).control.first?.reply)
            #expect(try ControlCodec.decode(ZonesReply.self, from: alice.body).zones.isEmpty)
            let bob = try #require(bench.turn(control: [try bench.request(.zones, ZonesRequest(owner: "bob"))]).control.first?.reply)
            #expect(try ControlCodec.decode(ZonesReply.self, from: bob.body).zones.count == 1)
        }
    }

    @Test(arguments: TestedIndex.available) func aWorkerGetsNoMoreJobsThanItHasCredits(_ index: TestedIndex) throws {
        try index.check(AWorkerGetsNoMoreJobsThanItHasCredits())
    }

    struct AWorkerGetsNoMoreJobsThanItHasCredits: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            for number in 0..<3 { _ = try bench.importing(.twoPoint(number)) }
            _ = bench.turn(control: [try bench.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]))])
            // Six jobs wait; a worker with two slots gets two.
            let first = jobs(bench.turn(workers: [ready([1], capacity: 2)]))
            #expect(first.count == 2)
            // Nothing more while it holds both, even after a heartbeat.
            #expect(jobs(bench.turn(after: .milliseconds(100), workers: [([1], .heartbeat)])).isEmpty)
            // One report frees one credit: one job.
            let report = JobReport(lease: first[0].lease, outcome: .generated, detail: first[0].cacheKey, renderMicroseconds: 900)
            let next = jobs(bench.turn(workers: [([1], .status(report))]))
            #expect(next.count == 1 && !first.map(\.lease).contains(next[0].lease))
        }
    }

    @Test(arguments: TestedIndex.available) func anInteractiveRequestGoesAheadOfBulkWork(_ index: TestedIndex) throws {
        try index.check(AnInteractiveRequestGoesAheadOfBulkWork())
    }

    struct AnInteractiveRequestGoesAheadOfBulkWork: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            var ids: [WorkoutID] = []
            for number in 0..<3 { ids.append(try bench.importing(.twoPoint(number))) }
            _ = bench.turn(control: [try bench.request(.enqueue, EnqueueRequest(ids: Array(ids.prefix(2)), kinds: [.route], themes: [.light]))])
            _ = bench.turn(control: [
                try bench.request(
                    .enqueue, EnqueueRequest(ids: [ids[2]], kinds: [.route], themes: [.light], priority: EnqueueRequest.interactivePriority))
            ])
            let leased = jobs(bench.turn(workers: [ready([1], capacity: 1)]))
            #expect(leased.map(\.workoutID) == [ids[2]])
        }
    }

    /// Issue 23, finding 6: owners take turns. One owner's 60 pictures asked at once do not hold
    /// the worker: another owner's, asked after them, are in the first JOBs.
    @Test(arguments: TestedIndex.available) func anotherOwnersPicturesGoOutBeforeAFloodingOwnersBacklog(_ index: TestedIndex) throws {
        try index.check(AnotherOwnersPicturesGoOutBeforeAFloodingOwnersBacklog())
    }

    struct AnotherOwnersPicturesGoOutBeforeAFloodingOwnersBacklog: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            func upload(_ numbers: Range<Int>, owner: String) throws -> [WorkoutID] {
                let requests = try numbers.map { number in
                    let workout = ImportedWorkout.twoPoint(number)
                    return try bench.request(
                        .importWorkout, ImportRequest(workout, owner: owner),
                        attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
                }
                let ids = try bench.turn(control: requests).control.map { try ControlCodec.decode(ImportReply.self, from: $0.reply.body).id }
                var enqueue = EnqueueRequest(ids: ids, kinds: [.route], themes: [.light, .dark], priority: EnqueueRequest.interactivePriority)
                enqueue.owner = owner
                _ = bench.turn(control: [try bench.request(.enqueue, enqueue)])
                return ids
            }
            _ = try upload(0..<30, owner: "alice")
            let bob = try upload(100..<101, owner: "bob")
            let first = jobs(bench.turn(workers: [ready([1], capacity: 2)]))
            #expect(first.count == 2)
            #expect(first.contains { $0.workoutID == bob[0] }, "bob's pictures wait behind alice's 60")
        }
    }

    @Test(arguments: TestedIndex.available) func aTransientFailureWaitsOutItsBackOffBeforeItIsLeasedAgain(_ index: TestedIndex) throws {
        try index.check(
            adjust: {
                $0.initialBackoffSeconds = 60
                $0.environmentInitialBackoffSeconds = 60
            }, ATransientFailureWaitsOutItsBackOffBeforeItIsLeasedAgain())
    }

    struct ATransientFailureWaitsOutItsBackOffBeforeItIsLeasedAgain: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<1)
            let job = try #require(jobs(bench.turn(workers: [ready([1], capacity: 1)])).first)
            let failed = JobReport(lease: job.lease, outcome: .failedRetry, detail: "render thread busy", renderMicroseconds: 0)
            // The credit is back, but the only job backs off: nothing is leased at once.
            #expect(jobs(bench.turn(workers: [([1], .status(failed))])).isEmpty)
            #expect(jobs(bench.turn(after: .seconds(1), workers: [([1], .heartbeat)])).isEmpty)
        }
    }

    @Test(arguments: TestedIndex.available) func aSilentWorkersJobsGoToAnotherWorker(_ index: TestedIndex) throws {
        try index.check(
            adjust: {
                // A returned job waits out a back-off on the index's wall clock; none here, so that the
                // test needs no sleep.
                $0.initialBackoffSeconds = 0
                $0.environmentInitialBackoffSeconds = 0
            }, ASilentWorkersJobsGoToAnotherWorker())
    }

    struct ASilentWorkersJobsGoToAnotherWorker: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<1)
            let held = try #require(jobs(bench.turn(workers: [ready([1], capacity: 1)])).first)
            // A second worker arrives; the first says nothing past the heartbeat liveness.
            #expect(jobs(bench.turn(workers: [ready([2], capacity: 1)])).isEmpty)
            let configuration = CoordinatorConfiguration.defaults
            let silence = Duration.milliseconds(configuration.heartbeatIntervalMilliseconds * configuration.heartbeatLiveness + 1)
            let outbox = bench.turn(after: silence, workers: [([2], .heartbeat)])
            let moved = outbox.worker.compactMap { sent -> JobAssignment? in
                guard sent.identity == [2], case .job(let job) = sent.message else { return nil }
                return job
            }
            #expect(moved.count == 1 && moved.first?.workoutID == held.workoutID && moved.first?.lease != held.lease)
            #expect(jobs(outbox).count == 1, "the silent worker gets nothing")
        }
    }
}
