import Foundation
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
@testable import WorkFeedIndexPostgres
import WorkFeedModel

/// Several coordinators importing at once: an owner's imports take turns (its advisory lock), so
/// the same file imported by two of them is stored once, two copies of one activity are one
/// workout and a duplicate, and the summaries count each workout once.
@Suite struct PostgresImportRaceTests {
    private func importing(_ workout: ImportedWorkout, owner: String, in session: PostgresSession) throws -> ImportReply {
        try session.transaction("importing") {
            var transaction = PostgresTransaction(session: session)
            let reply = try transaction.importWorkout(workout, owner: owner)
            try transaction.finish()
            return reply
        }
    }

    /// `count` runs of anna's, `daysApart` days apart, a third of them without heart rate.
    private func importRuns(_ count: Int, daysApart: Double, in session: PostgresSession) throws {
        for day in 0..<count {
            _ = try importing(
                PostgresImportTests.run(
                    file: "run-\(day).gpx", samples: day % 3 == 0 ? 0 : 10, start: 1_700_000_000 + Double(day) * daysApart * 86_400),
                owner: "anna", in: session)
        }
    }

    /// Anna's summary buckets, each row as text, in order.
    private func buckets(in session: PostgresSession) throws -> [String] {
        try session.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT (period, start_day, activity, \(SummaryRows.bucketColumns))::text FROM summary_bucket WHERE owner = 'anna' ORDER BY 1"),
            "reading"
        ).decoded("the buckets") { try $0.decode(String.self) }
    }

    @Test func theSameFileFromFourCoordinatorsAtOnceIsStoredOnce() throws {
        let fixture = try PostgresFixture()
        let replies = Mutex<[ImportResult]>([])
        let failures = fixture.concurrently(["c1", "c2", "c3", "c4"]) { coordinator, session in
            defer { session.close() }
            for round in 0..<5 {
                // Each round: the same file for everyone (one of them stores it), and a copy of
                // the same activity from a file of each coordinator's own (a duplicate of it).
                let shared = PostgresImportTests.run(file: "shared-\(round).gpx", start: 1_700_000_000 + Double(round) * 86_400)
                let own = PostgresImportTests.run(
                    file: "\(coordinator)-\(round).gpx", samples: 0, shift: 0.00002, start: 1_700_000_020 + Double(round) * 86_400)
                let first = try importing(shared, owner: "anna", in: session)
                let second = try importing(own, owner: "anna", in: session)
                replies.withLock { $0 += [first.result, second.result] }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let results = replies.withLock { $0 }
        let session = try fixture.session("check")
        defer { session.close() }
        // Per round one workout: the first import of the shared file, or a coordinator's own copy
        // that came first (then the shared file, with heart rate, replaces it).
        #expect(try PostgresWorkouts.count(owner: "anna", in: session) == 5, "\(results)")
        #expect(results.count == 40)
        #expect(results.filter { $0 == .imported }.count + results.filter { $0 == .replacedDuplicate }.count >= 5)
        #expect(Set(results).isSubset(of: [.imported, .unchanged, .duplicate, .replacedDuplicate]), "\(results)")
        let counted = try session.query("SELECT count(*)::bigint FROM workout_summary WHERE owner = 'anna'", "counting").firstDecoded("count") {
            try $0.decode(Int.self)
        }
        #expect(counted == 5)
        let total = try session.query(
            "SELECT count FROM summary_bucket WHERE owner = 'anna' AND period = 'year' AND activity = 'all'", "reading the year"
        ).decoded("the year") { try $0.decode(Int.self) }
        #expect(total == [5])
    }

    @Test func aRebuildCountsWhatTheImportsCounted() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("rebuild")
        defer { session.close() }
        try importRuns(12, daysApart: 5, in: session)
        let counted = try buckets(in: session)
        #expect(counted.count > 12)
        var steps = 0
        try scheduleRebuild(in: session)
        let leadership = try fixture.leading()
        #expect(try rebuildStep(limit: 5, as: PostgresLeadership(), in: session) == nil, "a writer that does not lead rebuilt")
        while let step = try rebuildStep(limit: 5, as: leadership, in: session) {
            steps += 1
            #expect(step.owner == "anna" && step.progress.total == 12)
            if step.finished { #expect(step.progress.done == 12) }
        }
        // Five, five and the last two.
        #expect(steps == 3)
        #expect(try buckets(in: session) == counted)
    }

    /// The leader rebuilds an owner's summaries while another coordinator imports the owner's
    /// new workouts: the owner's lock makes them take turns, so that every workout is counted
    /// once, as a rebuild from scratch afterwards counts it.
    @Test func aRebuildWhileAnotherCoordinatorImportsCountsEachWorkoutOnce() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("imports")
        defer { session.close() }
        try importRuns(16, daysApart: 3, in: session)
        try scheduleRebuild(in: session)
        let leadership = try fixture.leading(as: "c1")
        let steps = Mutex(0)
        let failures = fixture.concurrently(["c1", "c2"]) { coordinator, session in
            defer { session.close() }
            if coordinator == "c2" {
                for day in 0..<12 {
                    _ = try importing(
                        PostgresImportTests.run(file: "late-\(day).gpx", samples: 10, start: 1_710_000_000 + Double(day) * 2 * 86_400),
                        owner: "anna", in: session)
                }
                return
            }
            while try rebuildStep(limit: 2, as: leadership, in: session) != nil { steps.withLock { $0 += 1 } }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(steps.withLock { $0 } >= 8)
        let counted = try buckets(in: session)
        #expect(try session.query("SELECT count(*)::bigint FROM workout_summary", "counting").firstDecoded("count") { try $0.decode(Int.self) } == 28)
        try scheduleRebuild(in: session)
        while try rebuildStep(limit: 50, as: leadership, in: session) != nil {}
        #expect(try buckets(in: session) == counted)
    }

    private func scheduleRebuild(in session: PostgresSession) throws {
        try session.transaction("scheduling") {
            var transaction = PostgresTransaction(session: session)
            try transaction.scheduleSummaryRebuild(owner: "anna")
            try transaction.finish()
        }
    }

    private func rebuildStep(
        limit: Int, as leadership: PostgresLeadership, in session: PostgresSession
    ) throws -> (owner: String, progress: SummaryRebuild, finished: Bool)? {
        try session.transaction("rebuilding") {
            var transaction = PostgresTransaction(session: session)
            transaction.leadership = leadership
            let step = try transaction.rebuildSummariesStep(limit: limit)
            try transaction.finish()
            return step
        }
    }
}
