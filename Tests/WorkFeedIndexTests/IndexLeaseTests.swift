import Foundation
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Leases, reports and attempts: which worker holds a job, what its report may change, and what
/// happens when it goes away, misses its deadline or fails.
@Suite struct IndexLeaseTests {
    @Test func leasesReportsAndStaleReports() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        let enqueued = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
        }
        #expect(enqueued.created == 2)
        var counter: UInt64 = 100
        let leased = try temporary.index.write { transaction in
            try transaction.lease(limit: 1, to: "w") {
                counter += 1; return counter
            }
        }
        #expect(leased.count == 1)
        #expect(leased[0].route.starts(with: Array("WFR1".utf8)))
        #expect(temporary.index.leases.count == 1)
        #expect(try temporary.ready() == 1)

        let key = anyKey(leased[0].picture, leased[0].inputs)
        let effect = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: leased[0].lease, outcome: .generated, detail: key), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
        }
        #expect(effect == .updated(leased[0].picture, .generated, reason: nil, retryAt: nil))
        // The same report again, or one for a lease never given, changes nothing.
        #expect(
            try temporary.index.write {
                try $0.complete(
                    JobReportRecord(lease: leased[0].lease, outcome: .failedNoRetry, detail: "late"), from: "w", retry: RetryPolicy(),
                    cacheKey: anyKey)
            } == .staleLease)
        #expect(
            try temporary.index.write {
                try $0.complete(JobReportRecord(lease: 999, outcome: .generated, detail: "x"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
            } == .staleLease)

        // Enqueueing again: the generated one is current, the other already pending.
        let again = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
        }
        #expect(again == EnqueueReply(created: 0, stale: 0, alreadyPending: 1, current: 1, failed: 0))
        // After a style change (another key), the generated one is stale.
        let restyled = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1]) { _, _ in "new style" }
        }
        #expect(restyled.stale == 1)
    }

    @Test func transientFailuresBackOffThenGiveUp() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        let policy = RetryPolicy(maximumAttempts: 2, initialBackoff: 10, maximumBackoff: 60)
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        var counter: UInt64 = 0
        let first = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w", now: now) {
                counter += 1; return counter
            }
        }
        let effect = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: first[0].lease, outcome: .failedRetry, detail: "disk full"), from: "w", retry: policy, now: now,
                cacheKey: anyKey)
        }
        #expect(effect == .updated(first[0].picture, .pending, reason: "disk full", retryAt: now.addingTimeInterval(10), code: .transient))
        // Not ready during the back-off, ready after it.
        #expect(
            try temporary.index.write { tx in
                try tx.lease(limit: 1, to: "w", now: now.addingTimeInterval(5)) {
                    counter += 1; return counter
                }
            }.isEmpty)
        let second = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w", now: now.addingTimeInterval(11)) {
                counter += 1; return counter
            }
        }
        #expect(second.count == 1)
        let final = try temporary.index.write {
            try $0.releaseLeases(of: "w", reason: "worker w went silent", code: .workerSilent, retry: policy, now: now)
        }
        #expect(
            final == [
                .updated(
                    first[0].picture, .failedNoRetry, reason: "gave up after 2 attempts: worker w went silent", retryAt: nil, code: .workerSilent)
            ])
    }

    @Test func releasingAGoneWorkersLeasesRequeuesThem() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
        }
        var counter: UInt64 = 0
        _ = try temporary.index.write { tx in
            try tx.lease(limit: 2, to: "gone") {
                counter += 1; return counter
            }
        }
        #expect(try temporary.ready() == 0)
        _ = try temporary.index.write { try $0.releaseLeases(of: "gone", reason: "bye", code: .transient, countAttempt: false, retry: RetryPolicy()) }
        #expect(try temporary.ready() == 2)
        let next = try temporary.index.write { tx in
            try tx.lease(limit: 2, to: "next") {
                counter += 1; return counter
            }
        }
        #expect(next.count == 2 && temporary.index.leases.count == 2)
        // A restarted coordinator starts with no leases: both jobs are ready again, and a late
        // report for a lease of the previous run changes nothing.
        let restarted = try temporary.restart()
        #expect(restarted.leases.count == 0)
        #expect(try restarted.write { try $0.readyCount() } == 2)
        let late = try restarted.write {
            try $0.complete(
                JobReportRecord(lease: next[0].lease, outcome: .generated, detail: "k"), from: "next", retry: RetryPolicy(), cacheKey: anyKey)
        }
        #expect(late == .staleLease)
    }

    @Test func oneSearchDealsReadyJobsOverWorkersAndSkipsLeasedOnes() throws {
        let temporary = try TemporaryIndex()
        for i in 0..<3 { _ = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "w\(i)")) } }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        var counter: UInt64 = 0
        let first = try temporary.index.write { tx in
            try tx.lease([("a", 8), ("b", 8)]) {
                counter += 1; return counter
            }
        }
        // Three jobs for sixteen slots: dealt a, b, a rather than all to a.
        #expect(first.map(\.worker) == ["a", "b", "a"])
        #expect(Set(first.map(\.jobID)).count == 3)
        #expect(
            try temporary.index.write { tx in
                try tx.lease([("c", 8)]) {
                    counter += 1; return counter
                }
            }.isEmpty)
        // A job whose lease ends is found again, and only that one.
        _ = try temporary.index.write { try $0.releaseLeases(of: "b", reason: "bye", code: .transient, countAttempt: false, retry: RetryPolicy()) }
        let again = try temporary.index.write { tx in
            try tx.lease([("c", 8)]) {
                counter += 1; return counter
            }
        }
        #expect(again.map(\.jobID) == [first[1].jobID])
    }

    @Test func aReportCountsOnlyFromTheWorkerHoldingACurrentLease() throws {
        let temporary = try TemporaryIndex()
        let id = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }.id
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        var counter: UInt64 = 0
        let jobs = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w") {
                counter += 1; return counter
            }
        }
        // Another worker quoting the lease changes nothing, and the lease stays with its holder.
        let forged = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: jobs[0].lease, outcome: .generated, detail: "k"), from: "intruder", retry: RetryPolicy(), cacheKey: anyKey)
        }
        #expect(forged == .staleLease)
        #expect(temporary.index.leases[jobs[0].lease]?.worker == "w")

        // New inputs while it renders: the holder's report on the old ones is stale, and the job,
        // pending with its new inputs, is ready again once that report is in.
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout(shift: 0.01)) }
        #expect(try temporary.ready() == 0)
        let late = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: jobs[0].lease, outcome: .generated, detail: "old"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
        }
        #expect(late == .staleLease)
        #expect(try temporary.index.read { try $0.pictures(of: id) }.map(\.status) == [.pending])
        let fresh = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w") {
                counter += 1; return counter
            }
        }
        #expect(fresh.map(\.jobID) == jobs.map(\.jobID) && fresh[0].routeHash != jobs[0].routeHash)

        // A deleted workout's lease ends with it.
        _ = try temporary.index.write { try $0.delete([id]) }
        #expect(temporary.index.leases.count == 0)
        let gone = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: fresh[0].lease, outcome: .generated, detail: "k"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
        }
        #expect(gone == .staleLease)
    }

    @Test func leasesPastTheirDeadlineAreTakenBackAndCountAnAttempt() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        let policy = RetryPolicy(maximumAttempts: 3, initialBackoff: 1, maximumBackoff: 1)
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        var counter: UInt64 = 0
        let jobs = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w", now: now, deadline: 30) {
                counter += 1; return counter
            }
        }
        #expect(try temporary.index.write { try $0.expireLeases(now: now.addingTimeInterval(29), retry: policy) }.isEmpty)
        let expired = try temporary.index.write { try $0.expireLeases(now: now.addingTimeInterval(31), retry: policy) }
        #expect(
            expired == [.updated(jobs[0].picture, .pending, reason: "timed out on worker w", retryAt: now.addingTimeInterval(32), code: .timedOut)])
        #expect(temporary.index.leases.count == 0)
        #expect(try temporary.index.read { try $0.pictures(of: jobs[0].picture.workoutID) }.first?.attempts == 1)
    }

    @Test func aTransactionThatFailsForgetsItsLeases() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        var counter: UInt64 = 0
        #expect(throws: IndexError.self) {
            try temporary.index.write { tx in
                _ = try tx.lease(limit: 1, to: "w") {
                    counter += 1; return counter
                }
                throw IndexError(.failed, "the turn failed")
            }
        }
        #expect(temporary.index.leases.count == 0)
        #expect(try temporary.ready() == 1)
    }
}
