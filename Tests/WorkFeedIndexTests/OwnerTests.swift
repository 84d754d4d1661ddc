import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Owners on a real index file: the owner is part of the identity, and feeds, changes, counts,
/// enqueues and deletions are per owner; schema v6 gives the workouts of an older index the
/// configured default owner.
@Suite struct OwnerTests {
    func run(_ sourceID: String?, start: TimeInterval = 1_700_000_000, file: String = "shared.gpx") -> ImportedWorkout {
        sampleWorkout(sourceID: sourceID, start: start, file: file)
    }

    @Test func theSameFileOfTwoOwnersIsTwoWorkouts() throws {
        let temporary = try TemporaryIndex()
        let alice = try temporary.index.write { try $0.importWorkout(run(nil), owner: "alice") }
        let bob = try temporary.index.write { try $0.importWorkout(run(nil), owner: "bob") }
        // Not a duplicate, though they start together on the same track: each keeps their own.
        #expect(alice.result == .imported && bob.result == .imported && alice.id != bob.id)
        #expect(alice.id == WorkoutIdentity(of: run(nil), owner: "alice")?.workoutID)
        #expect(try temporary.index.write { try $0.importWorkout(run(nil), owner: "alice") }.result == .unchanged)
        // A duplicate within one owner is still one.
        let again = try temporary.index.write { try $0.importWorkout(run("device-id"), owner: "alice") }
        #expect(again.result == .duplicate && again.duplicateOf == alice.id)
        #expect(try temporary.index.read { try $0.workout(alice.id) }?.owner == "alice")
        #expect(try temporary.index.read { try $0.workout(alice.id, owner: "bob") } == nil)
        #expect(try temporary.index.read { try $0.workout(bob.id, owner: "bob") }?.owner == "bob")
        #expect(try temporary.index.read { try $0.workoutCount(owner: "alice") } == 1)
        #expect(try temporary.index.read { try $0.workoutCount() } == 2)
    }

    @Test func feedChangesEnqueueAndDeleteArePerOwner() throws {
        let temporary = try TemporaryIndex()
        var ids: [String: [WorkoutID]] = [:]
        for number in 0..<5 {
            for owner in ["alice", "bob"] {
                let id = try temporary.index.write {
                    try $0.importWorkout(run("\(owner)-\(number)", start: 1_700_000_000 + Double(number) * 86_400), owner: owner)
                }.id
                ids[owner, default: []].append(id)
            }
        }
        // Keyset pages of two, newest first, alice's only.
        var seen: [WorkoutID] = []
        var cursor: String?
        repeat {
            let page = try temporary.index.read { try $0.feed(limit: 2, cursor: cursor, owner: "alice") }
            seen += page.workouts.map(\.id)
            #expect(page.workouts.allSatisfy { $0.owner == "alice" })
            cursor = page.next
        } while cursor != nil
        #expect(seen == ids["alice"]!.reversed())
        #expect(try temporary.index.read { try $0.feed(limit: 100, cursor: nil) }.workouts.count == 10)
        #expect(throws: IndexError.self) { try temporary.index.read { try $0.feed(limit: 2, cursor: "12|not-an-id", owner: "alice") } }

        // Enqueue for alice touches alice's workouts only, even when asked for bob's ids.
        let reply = try temporary.index.write {
            var request = EnqueueRequest(ids: ids["alice"]! + ids["bob"]!, kinds: [.route], themes: [.light])
            request.owner = "alice"
            return try $0.enqueue(request, scales: [1]) { _, _ in "key" }
        }
        #expect(reply.created == 5)
        #expect(try temporary.index.read { try $0.statusCounts(owner: "bob") }.isEmpty)
        #expect(try temporary.index.read { try $0.statusCounts(owner: "alice") }.map(\.count) == [5])

        let anchor = try temporary.index.read { try $0.currentAnchor() }
        // Bob cannot delete alice's workout; alice can.
        #expect(try temporary.index.write { try $0.delete([ids["alice"]![0]], owner: "bob") }.isEmpty)
        let deleted = try temporary.index.write { try $0.delete([ids["alice"]![0]], owner: "alice") }
        #expect(deleted[ids["alice"]![0]]?.count == 1)
        let aliceChanges = try temporary.index.read { try $0.changes(since: anchor, limit: 100, owner: "alice") }.changes
        #expect(aliceChanges.map(\.change) == [.deleted] && aliceChanges.map(\.id) == [ids["alice"]![0]])
        #expect(try temporary.index.read { try $0.changes(since: anchor, limit: 100, owner: "bob") }.changes.isEmpty)
        #expect(try temporary.index.read { try $0.changes(since: 0, limit: 100, owner: "bob") }.changes.count == 5)
        #expect(try temporary.index.read { try $0.workoutIDs(owner: "alice") } == Array(ids["alice"]!.dropFirst()).sorted())
    }

    @Test func theFeedUsesItsIndex() throws {
        let temporary = try TemporaryIndex()
        let plan = try temporary.index.read { reader in
            try Row.fetchAll(
                reader.db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT * FROM workout INDEXED BY workout_feed
                    WHERE owner = 'a' AND coalesce(start_at, -1e18) <= 1.0 AND (coalesce(start_at, -1e18) < 1.0 OR id < 'x')
                    ORDER BY coalesce(start_at, -1e18) DESC, id DESC LIMIT 21
                    """
            ).map { $0["detail"] as String }
        }
        // A range of the index from the cursor on, not a walk from the top of the owner's feed.
        #expect(plan.contains { $0.contains("workout_feed (owner=? AND <expr><?)") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
        // Looking for duplicates is a range of one owner's starts, not a walk through all their workouts.
        let duplicates = try temporary.index.read { reader in
            try Row.fetchAll(
                reader.db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT w.*, s.route AS stored_route FROM workout w JOIN series s ON s.workout_id = w.id
                    WHERE w.start_at > 1 AND w.start_at < 2 AND w.point_count > 0 AND w.owner = 'a'
                    """
            ).map { $0["detail"] as String }
        }
        #expect(duplicates.contains { $0.contains("workout_by_owner_start (owner=? AND start_at>? AND start_at<?)") })
    }

    /// Schema v6 on an index the v5 schema created: every workout gets the configured default
    /// owner and keeps its id, series, jobs and tombstones.
    @Test func version6GivesExistingWorkoutsTheDefaultOwner() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let old = try DatabaseQueue(path: path)
        try WorkoutIndex.migrator.migrate(old, upTo: "v5: workout files and identity")
        let id = "0b1c4d5e-0000-8000-8000-000000000001"
        let route = Data(SeriesCodec.encode(Route(segments: [[RoutePoint(latitude: 1, longitude: 2), RoutePoint(latitude: 1.001, longitude: 2)]])))
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO workout (id, source, source_id, activity, start_at, distance, point_count, route_version, route_hash, hr_hash, anchor, file_sha256)
                    VALUES (?, 'gpx', 'sha256:abc', 'running', 1000, 111, 2, 2, 'r', 'h', 3, 'abc')
                    """, arguments: [id])
            try db.execute(
                sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)", arguments: [id, route, Data(SeriesCodec.encode([]))])
            try db.execute(
                sql:
                    "INSERT INTO job (workout_id, kind, theme, scale, status, cache_key, updated_at, anchor) VALUES (?, 'route', 'dark', 1, 'generated', 'k', 0, 4)",
                arguments: [id])
            try db.execute(sql: "INSERT INTO deleted_workout (id, anchor) VALUES ('0b1c4d5e-0000-8000-8000-000000000002', 5)")
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('anchor', 5)")
        }
        try old.close()

        let index = try WorkoutIndex(path: path, defaultOwner: "team-1", logger: Logger(label: "test"))
        #expect(try index.appliedMigrations().contains("v7: owners"))
        let workout = try #require(try index.read { try $0.workout(WorkoutID(id)!) })
        #expect(workout.owner == "team-1" && workout.routeVersion == 2 && workout.sourceID == "sha256:abc")
        #expect(try index.read { try $0.series(of: WorkoutID(id)!) }?.route == Array(route))
        #expect(try index.read { try $0.pictures(of: WorkoutID(id)!) }.map(\.status) == [.generated])
        #expect(try index.read { try $0.changes(since: 0, limit: 10, owner: "team-1") }.changes.map(\.change) == [.workout, .pictures, .deleted])
        #expect(try index.read { try $0.feed(limit: 10, cursor: nil, owner: "team-1") }.workouts.map(\.id.description) == [id])
        // Foreign keys still hold after the table was rebuilt: deleting the workout takes its series and jobs.
        _ = try index.write { try $0.delete([WorkoutID(id)!]) }
        #expect(try index.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM series") } == 0)
        #expect(try index.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM job") } == 0)
        #expect(try index.read { try Int.fetchOne($0.db, sql: "PRAGMA foreign_key_check") } == nil)
    }
}

@Suite struct OwnerIDTests {
    @Test(arguments: ["default", "auth0|5f3a", "user@example.com", "Zoë", String(repeating: "x", count: 256)])
    func valid(_ owner: String) { #expect(Owner.isValid(owner)) }

    @Test(arguments: ["", " alice", "bob ", "a\u{0}b", "tab\there", "line\nbreak", String(repeating: "x", count: 257)])
    func invalid(_ owner: String) { #expect(!Owner.isValid(owner)) }
}
