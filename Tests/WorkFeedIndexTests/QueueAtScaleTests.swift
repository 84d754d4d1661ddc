import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 23, finding 10: the job counts STATUS, the gauges and `enqueue --wait` read are kept by
/// the index (schema v9) instead of counted at every ask, and the oldest pending job and the ready
/// count are read from indexes. On a real index file: the kept counts always equal a count of every
/// job, through a random run of everything that changes jobs (fixed, printed seed), and the
/// queries that run at every scrape or poll never scan the job table.
@Suite struct QueueAtScaleTests {
    /// What every job counted says, to hold the kept counts against.
    static func counted(_ reader: IndexReader, owner: String?) throws -> [String] {
        try reader.statusCountsCountingEveryJob(owner: owner).map { "\($0.kind) \($0.theme) \($0.scale) \($0.status) \($0.count)" }
    }

    static func kept(_ reader: IndexReader, owner: String?) throws -> [String] {
        try reader.statusCounts(owner: owner).map { "\($0.kind) \($0.theme) \($0.scale) \($0.status) \($0.count)" }
    }

    @Test func theKeptCountsAreTheCountedOnesThroughARandomRun() throws {
        let seed: UInt64 = 0x5EED_0023
        print("QueueAtScaleTests seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let temporary = try TemporaryIndex()
        let index = temporary.index
        let owners = ["alice", "bob", "carol"]
        var workouts: [WorkoutID] = []
        var leases: [UInt64] = []
        var counter: UInt64 = 0
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        for step in 0..<300 {
            clock += 1
            let now = clock
            switch random.next() % 7 {
            case 0, 1:
                let owner = owners[Int(random.next() % 3)]
                let number = Int(random.next() % 40)
                let shift = Double(random.next() % 3) * 0.001
                let reply = try index.write {
                    try $0.importWorkout(
                        sampleWorkout(sourceID: "\(owner)-\(number)", shift: shift, start: 1_700_000_000 + Double(number) * 7_200), owner: owner,
                        now: now)
                }
                if !workouts.contains(reply.id) { workouts.append(reply.id) }
            case 2:
                var request = EnqueueRequest(
                    ids: nil, kinds: random.next() % 2 == 0 ? [.route] : [.route, .heatmap], themes: [.light, .dark],
                    scales: random.next() % 2 == 0 ? [1] : [1, 2], priority: Int(random.next() % 3) * 50)
                request.owner = random.next() % 2 == 0 ? owners[Int(random.next() % 3)] : nil
                request.includeFailed = random.next() % 2 == 0
                _ = try index.write { try $0.enqueue(request, scales: [1], now: now, interactivePerOwner: 5, cacheKey: anyKey) }
            case 3:
                let jobs = try index.write { transaction in
                    try transaction.lease(limit: Int(random.next() % 6), to: "w", now: now) {
                        counter += 1
                        return counter
                    }
                }
                leases += jobs.map(\.lease)
            case 4, 5:
                guard !leases.isEmpty else { continue }
                let lease = leases.remove(at: Int(random.next() % UInt64(leases.count)))
                let outcome: JobReportRecord.Outcome = [.generated, .failedNoRetry, .failedRetry][Int(random.next() % 3)]
                _ = try index.write { transaction in
                    guard let entry = transaction.leases[lease] else { return CompletionEffect.staleLease }
                    let key = outcome == .generated ? (entry.cacheKey ?? "k") : "failed"
                    transaction.recordCacheKey(key, for: lease)
                    return try transaction.complete(
                        JobReportRecord(lease: lease, outcome: outcome, detail: key), from: "w", retry: RetryPolicy(initialBackoff: 30), now: now,
                        cacheKey: anyKey)
                }
            default:
                guard !workouts.isEmpty else { continue }
                let id = workouts.remove(at: Int(random.next() % UInt64(workouts.count)))
                _ = try index.write { try $0.delete([id]) }
            }
            try index.read { reader in
                for owner in [nil] + owners {
                    #expect(try Self.kept(reader, owner: owner) == Self.counted(reader, owner: owner), "step \(step), owner \(owner ?? "all")")
                }
                let pendingReady = try Int.fetchOne(
                    reader.db, sql: "SELECT count(*) FROM job WHERE status = 'pending' AND (not_before IS NULL OR not_before <= ?)",
                    arguments: [now.timeIntervalSince1970])
                #expect(try reader.pendingReadyCount(now: now) == pendingReady, "step \(step)")
                let oldest = try Double.fetchOne(reader.db, sql: "SELECT min(updated_at) FROM job WHERE status = 'pending'")
                #expect(try reader.oldestPending()?.timeIntervalSince1970 == oldest, "step \(step)")
            }
        }
    }

    /// What SQLite plans for the queries a scrape and a STATUS run: a search of an index or of a
    /// kept count, never a scan of the job table (at a million jobs, a scan took seconds).
    @Test func scrapesAndStatusReadIndexesNotTheJobTable() throws {
        let temporary = try TemporaryIndex()
        let plans = try temporary.index.read { reader in
            try [IndexReader.oldestPendingTime, IndexReader.backingOff, IndexReader.keptCounts, IndexReader.keptCountsOfOwner].map { sql in
                try Row.fetchAll(reader.db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: sql.contains("?") ? [0] : []).map {
                    $0["detail"] as String? ?? ""
                }
                .joined(separator: "; ")
            }
        }
        // "SCAN job" (the table) or "SCAN job USING … INDEX" (all of an index) would read every
        // job; "SEARCH job USING INDEX" reads a range, and the kept counts are a few rows. The
        // oldest pending job is the first entry of job_pending_age in its order (LIMIT 1).
        for plan in plans.dropFirst() {
            let steps = plan.components(separatedBy: "; ")
            #expect(!steps.contains { $0 == "SCAN job" || $0.hasPrefix("SCAN job ") }, "\(plan)")
        }
        #expect(plans[0] == "SCAN job USING INDEX job_pending_age" && IndexReader.oldestPendingTime.hasSuffix("ORDER BY updated_at LIMIT 1"))
        #expect(plans[1].contains("SEARCH job USING") && plans[1].contains("job_backing_off"))
    }
}
