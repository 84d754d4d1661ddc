import Foundation
import PostgresNIO
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// The queue's and the workouts' reads, against a real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresReadTests {
    /// Ready, backing off, failed for good: what STATUS and the gauges read.
    @Test func theQueueAsStatusReadsIt() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        #expect(try PostgresStatus.oldestPending(in: session) == nil)
        try PostgresFixture.addJobs(owner: "ann", count: 6, in: session)
        let before = Date()
        try session.query(
            """
            UPDATE job SET not_before = now() + interval '1 hour' WHERE id IN (SELECT id FROM job ORDER BY id LIMIT 2);
            """, "")
        try session.query(
            """
            UPDATE job SET status = 'failed-no-retry', reason_code = code, reason = why, updated_at = now() - make_interval(secs => age)
            FROM (VALUES (3, 'timed-out', 'timed out on worker w1', 30), (4, 'timed-out', 'timed out on worker w2', 10),
                         (5, 'no-route', 'no route', 20)) AS f(n, code, why, age)
            WHERE job.id = (SELECT id FROM job ORDER BY id OFFSET f.n - 1 LIMIT 1)
            """, "")
        #expect(try PostgresStatus.pendingReadyCount(in: session) == 1)
        #expect(try PostgresStatus.failedCount(in: session) == 3)
        let groups = try PostgresStatus.failureGroups(limit: 10, in: session)
        #expect(groups.map(\.code) == ["timed-out", "no-route"])
        #expect(groups.map(\.count) == [2, 1])
        // The newest of a group is its example.
        #expect(groups.first?.example == "timed out on worker w2")
        #expect(try PostgresStatus.failureGroups(limit: 1, in: session).count == 1)
        let oldest = try #require(try PostgresStatus.oldestPending(in: session))
        #expect(abs(oldest.timeIntervalSince(before)) < 60)
    }

    /// Counts, an owner's ids in order, and ids by a prefix of hex digits with or without hyphens.
    @Test func workoutsByOwnerAndByPrefix() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 40, in: session)
        try PostgresFixture.addJobs(owner: "bob", count: 2, in: session)
        #expect(try PostgresWorkouts.count(owner: nil, in: session) == 42)
        #expect(try PostgresWorkouts.count(owner: "bob", in: session) == 2)
        let anns = try PostgresWorkouts.ids(owner: "ann", in: session)
        #expect(anns.count == 40 && anns == anns.sorted())

        let one = try #require(anns.first).uuid.uuidString
        let hex = one.lowercased().filter { $0 != "-" }
        #expect(try PostgresWorkouts.ids(withPrefix: String(hex.prefix(12)), limit: 10, in: session).contains(anns[0]))
        #expect(try PostgresWorkouts.ids(withPrefix: String(one.prefix(13)).uppercased(), limit: 10, in: session).contains(anns[0]))
        #expect(try PostgresWorkouts.ids(withPrefix: hex, limit: 10, in: session) == [anns[0]])
        // A short prefix matches several, in id order, up to the limit.
        let all = try PostgresWorkouts.ids(withPrefix: "", limit: 100, in: session)
        #expect(all.count == 42 && all == all.sorted())
        #expect(try PostgresWorkouts.ids(withPrefix: "", limit: 5, in: session) == Array(all.prefix(5)))
        #expect(try PostgresWorkouts.ids(withPrefix: "not-hex", limit: 10, in: session).isEmpty)
        #expect(try PostgresWorkouts.ids(withPrefix: hex + "0", limit: 10, in: session).isEmpty)
    }

    /// The files workouts came from, and those none refers to any more (whose originals can go).
    @Test func filesOfWorkoutsAndFilesNobodyRefersTo() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 3, in: session)
        let ids = try PostgresWorkouts.ids(owner: "ann", in: session)
        // Two workouts from one file (a TCX with two activities), one from another.
        try session.query("UPDATE workout SET file_sha256 = 'aaa' WHERE id = ANY(\(Array(ids.prefix(2)).map(\.uuid)))", "")
        try session.query("UPDATE workout SET file_sha256 = 'bbb' WHERE id = \(ids[2].uuid)", "")
        #expect(try PostgresWorkouts.fileHashes(of: ids, in: session) == ["aaa", "bbb"])
        #expect(try PostgresWorkouts.fileHashes(of: [ids[0]], in: session) == ["aaa"])
        #expect(try PostgresWorkouts.keptOriginals(of: ids, in: session).isEmpty, "no original kept yet")
        try session.query("UPDATE workout SET original_kept = true WHERE id = \(ids[1].uuid)", "")
        #expect(try PostgresWorkouts.keptOriginals(of: ids, in: session) == ["aaa"])
        #expect(try PostgresWorkouts.keptOriginals(of: [ids[0], ids[2]], in: session).isEmpty, "kept by the other workout of the file")
        try session.query("DELETE FROM workout WHERE id = \(ids[0].uuid) OR id = \(ids[2].uuid)", "")
        #expect(try PostgresWorkouts.unreferencedFiles(["aaa", "bbb", "ccc"], in: session) == ["bbb", "ccc"])
        #expect(try PostgresWorkouts.unreferencedFiles([], in: session).isEmpty)
    }
}
