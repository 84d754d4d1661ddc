import Foundation
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// The kept job counts (pg1's statement triggers, in stripes) against the jobs themselves, after
/// two coordinators claimed, stored, failed and took back jobs at once and workouts were deleted.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresStatusTests {
    @Test func keptCountsAreTheJobsCountedWhateverTwoCoordinatorsDid() throws {
        let fixture = try PostgresFixture()
        let setup = try fixture.session("setup")
        for owner in 0..<6 { try PostgresFixture.addJobs(owner: "owner-\(owner)", count: 60, in: setup) }
        try setup.query(
            """
            INSERT INTO job (workout_id, owner, kind, theme, scale, status, priority, updated_at, anchor)
            SELECT id, owner, 'route', 'dark', 2, 'pending', 0, now(), workfeed_anchor((row_number() OVER (ORDER BY id))::int) FROM workout
            """, "adding dark @2x jobs")

        let failures = fixture.concurrently(["c1", "c2"]) { coordinator, session in
            var turn = 0
            while true {
                turn += 1
                let claims = try session.transaction("a turn of \(coordinator)") {
                    try PostgresLeases.claim(
                        coordinator: coordinator, slots: [("\(coordinator)-w", 12)], lastServed: [:], deadline: 120, in: session)
                }
                if claims.isEmpty { break }
                try session.transaction("reports of \(coordinator)") {
                    var anchors = PostgresAnchors()
                    for (number, claim) in claims.enumerated() {
                        // Most are drawn, some fail for good, a few fail and are tried again.
                        let outcome: JobReportRecord.Outcome = number % 7 == 3 ? .failedNoRetry : number % 5 == 1 ? .failedRetry : .generated
                        let record = JobReportRecord(lease: claim.job.lease, outcome: outcome, detail: "k-\(claim.job.jobID)", code: nil)
                        _ = try PostgresReports.complete(
                            record, from: claim.job.worker, retry: RetryPolicy(initialBackoff: 0, maximumBackoff: 0),
                            cacheKey: { _, _ in "" },
                            anchors: &anchors, in: session)
                    }
                }
                if turn % 4 == 0 {
                    // A worker gone with its leases, and an owner's workout deleted.
                    let held = try session.transaction("more leases") {
                        try PostgresLeases.claim(
                            coordinator: coordinator, slots: [("\(coordinator)-gone", 3)], lastServed: [:], deadline: 120, in: session)
                    }
                    _ = try session.transaction("taking back") {
                        var anchors = PostgresAnchors()
                        return try PostgresLeases.takeBack(
                            worker: "\(coordinator)-gone", of: coordinator, reason: "gone", code: .workerSilent, countAttempt: true,
                            retry: RetryPolicy(),
                            anchors: &anchors, in: session)
                    }
                    if let doomed = held.first {
                        try session.query("DELETE FROM workout WHERE id = \(doomed.job.picture.workoutID.uuid)", "deleting a workout")
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")

        func counted(_ owner: String?) throws -> [String] {
            try setup.query(
                """
                SELECT kind || ' ' || theme || ' ' || scale || ' ' || status || ' ' || count(*) FROM job
                WHERE \(owner == nil) OR owner = \(owner ?? "")
                GROUP BY kind, theme, scale, status ORDER BY kind, theme, scale, status
                """, ""
            ).map { try $0.decode(String.self) }
        }
        func kept(_ owner: String?) throws -> [String] {
            try PostgresStatus.statusCounts(owner: owner, in: setup).map {
                "\($0.kind.rawValue) \($0.theme.rawValue) \($0.scale) \($0.status.rawValue) \($0.count)"
            }
        }
        let all = try counted(nil)
        #expect(try kept(nil) == all)
        #expect(all.contains { $0.contains("generated") } && all.contains { $0.contains("failed-no-retry") })
        for owner in 0..<6 { #expect(try kept("owner-\(owner)") == counted("owner-\(owner)")) }
        // Some workouts went with their jobs.
        let jobs = try setup.query("SELECT count(*)::bigint FROM job", "").first { _ in true }!.decode(Int64.self)
        #expect(jobs < 720)
    }
}
