import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Failures have a stable code beside their reason; failures of a worker's surroundings (a full
/// cache) count no attempt and wait longer each time (issue 13, finding 5).
@Suite struct FailureCodeTests {
    let policy = RetryPolicy(maximumAttempts: 3, initialBackoff: 1, maximumBackoff: 60, environmentInitialBackoff: 10, environmentMaximumBackoff: 900)

    /// One job, leased over and over, each lease ended by `report`.
    func leaseAndReport(
        _ temporary: TemporaryIndex, times: Int, now: Date, _ report: (UInt64) -> JobReportRecord
    ) throws -> [CompletionEffect] {
        var counter: UInt64 = 0
        var effects: [CompletionEffect] = []
        var clock = now
        for _ in 0..<times {
            // Far enough ahead that any back-off is over.
            clock = clock.addingTimeInterval(100_000)
            let jobs = try temporary.index.write { tx in
                try tx.lease(limit: 1, to: "w", now: clock) {
                    counter += 1; return counter
                }
            }
            guard let job = jobs.first else { break }
            effects.append(try temporary.index.write { try $0.complete(report(job.lease), from: "w", retry: policy, now: clock, cacheKey: anyKey) })
        }
        return effects
    }

    @Test func aFullCacheCountsNoAttemptAndBacksOffToMinutes() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        // Ten times as many failures as attempts allowed: never failed-no-retry.
        let effects = try leaseAndReport(temporary, times: 10, now: now) {
            JobReportRecord(lease: $0, outcome: .failedRetry, detail: "cache write failed at write: No space left on device", code: .cacheFull)
        }
        #expect(effects.count == 10)
        var waits: [Double] = []
        for (index, effect) in effects.enumerated() {
            guard case .updated(_, let status, _, let retryAt?, let code) = effect else { Issue.record("\(effect)"); continue }
            #expect(status == .pending)
            #expect(code == .cacheFull)
            waits.append(retryAt.timeIntervalSince(now.addingTimeInterval(Double(index + 1) * 100_000)))
        }
        #expect(waits == [10, 20, 40, 80, 160, 320, 640, 900, 900, 900])
        #expect(try temporary.index.read { try $0.failedCount() } == 0)
        let pictures = try temporary.index.read { reader in
            try reader.pictures(of: try #require(try reader.feed(limit: 1, cursor: nil).workouts.first).id)
        }
        #expect(pictures.first?.attempts == 0)
        #expect(pictures.first?.reasonCode == "cache-full")
        // A picture at last: the code and the deferrals are gone.
        var counter: UInt64 = 100
        let clock = now.addingTimeInterval(10_000_000)
        let job = try #require(
            try temporary.index.write { tx in
                try tx.lease(limit: 1, to: "w", now: clock) {
                    counter += 1; return counter
                }
            }.first)
        _ = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: job.lease, outcome: .generated, detail: "k"), from: "w", retry: policy, now: clock, cacheKey: anyKey)
        }
        let after = try temporary.index.read { reader in try reader.pictures(of: job.picture.workoutID) }
        #expect(after.first?.status == .generated && after.first?.reasonCode == nil)
    }

    @Test func otherFailuresKeepTheirCodeAndGroupByIt() throws {
        let temporary = try TemporaryIndex()
        for number in 0..<4 { _ = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "w-\(number)", shift: Double(number))) } }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        var counter: UInt64 = 0
        let jobs = try temporary.index.write { tx in
            try tx.lease(limit: 4, to: "w") {
                counter += 1; return counter
            }
        }
        try temporary.index.write { tx in
            _ = try tx.complete(
                JobReportRecord(lease: jobs[0].lease, outcome: .failedNoRetry, detail: "no route", code: .noRoute), from: "w", retry: policy,
                cacheKey: anyKey)
            // No code sent: the code of its outcome, never one read from the words (issue 27).
            _ = try tx.complete(
                JobReportRecord(lease: jobs[1].lease, outcome: .failedNoRetry, detail: "no route"), from: "w", retry: policy, cacheKey: anyKey)
            _ = try tx.complete(
                JobReportRecord(lease: jobs[2].lease, outcome: .failedNoRetry, detail: "png: out of memory", code: .renderFailed), from: "w",
                retry: policy, cacheKey: anyKey)
        }
        _ = try temporary.index.write {
            try $0.releaseLeases(of: "w", reason: "worker w went silent", code: .workerSilent, retry: RetryPolicy(maximumAttempts: 1))
        }
        let groups = try temporary.index.read { try $0.failureGroups(limit: 10) }
        #expect(groups.map(\.code) == ["render-failed", "no-route", "worker-silent"])
        #expect(groups.map(\.count) == [2, 1, 1])
        #expect(groups[2].example == "gave up after 1 attempts: worker w went silent")

        // Retry selects by code: only the one sent as no-route comes back.
        var retry = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], scales: [1, 2, 3], includeFailed: true)
        retry.existingOnly = true
        retry.reasonCodes = ["no-route"]
        let reply = try temporary.index.write { try $0.enqueue(retry, scales: [1], cacheKey: anyKey) }
        #expect(reply.revived == 1)
        #expect(try temporary.index.read { try $0.failureGroups(limit: 10) }.map(\.code) == ["render-failed", "worker-silent"])
    }

    /// Indexes from before codes: the migration gives their failures codes from their reasons, so
    /// that `workctl failed --group` is one group per kind of failure, not one per temporary path.
    @Test func theMigrationGivesEarlierFailuresTheirCodes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        do {
            let temporary = try WorkoutIndex(path: path, logger: Logger(label: "test"))
            _ = try temporary.write { try $0.importWorkout(sampleWorkout()) }
            _ = try temporary.write {
                try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
            }
        }
        // As a v4 index would hold them: reasons naming their own temporary files, no codes.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE job SET reason_code = NULL, status = 'failed-no-retry'")
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM job ORDER BY id")
            for (number, id) in ids.enumerated() {
                try db.execute(
                    sql: "UPDATE job SET reason = ? WHERE id = ?",
                    arguments: ["gave up after 3 attempts: cache write failed at /c/route/3f/.x.png.host.\(number).tmp: No space left on device", id])
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v6%'")
            try db.execute(sql: "ALTER TABLE job DROP COLUMN reason_code")
            try db.execute(sql: "ALTER TABLE job DROP COLUMN deferrals")
        }
        let reopened = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        let groups = try reopened.read { try $0.failureGroups(limit: 10) }
        #expect(groups.map(\.code) == ["cache-full"])
        #expect(groups.first?.count == 4)
    }

    @Test(arguments: [
        ("no route", "no-route"), ("fewer than two usable points", "too-few-points"),
        ("gave up after 3 attempts: worker w-1 went silent", "worker-silent"),
        ("cache write failed at rename: Read-only file system", "cache-read-only"),
        ("cache write failed at create: Permission denied", "cache-denied"),
        ("timed out on worker ab12", "timed-out"), ("something new", "transient"),
    ])
    func reasonsWrittenBeforeCodesGetTheirCode(reason: String, code: String) {
        #expect(ReasonsBeforeCodes.code(ofReason: reason).rawValue == code)
    }
}
