import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 23, finding 6: one owner's flood of pictures must not hold up another owner's. On a real
/// index file: the order in which jobs are leased, never how long anything takes.
@Suite struct FairShareTests {
    /// Imports `count` workouts of `owner`, hours apart (so none is a duplicate of another).
    static func upload(_ count: Int, owner: String, on index: WorkoutIndex, from first: Int = 0) throws -> [WorkoutID] {
        try index.write { transaction in
            try (first..<first + count).map { number in
                try transaction.importWorkout(
                    sampleWorkout(sourceID: "\(owner)-\(number)", start: 1_700_000_000 + Double(number) * 7_200), owner: owner
                ).id
            }
        }
    }

    /// Asks for the route pictures (light and dark) of `ids` as the gateway's upload does: interactive.
    @discardableResult
    static func request(
        _ ids: [WorkoutID]?, owner: String, priority: Int = EnqueueRequest.interactivePriority, on index: WorkoutIndex
    )
        throws -> EnqueueReply
    {
        var request = EnqueueRequest(ids: ids, kinds: [.route], themes: [.light, .dark], priority: priority)
        request.owner = owner
        return try index.write { try $0.enqueue(request, scales: [1], cacheKey: anyKey) }
    }

    /// Leases every ready job, `slots` at a time (as workers free their slots), and returns the
    /// owners of the jobs in the order they were leased.
    static func leaseAll(_ index: WorkoutIndex, slots: Int) throws -> [String] {
        var order: [String] = []
        var counter: UInt64 = 0
        while true {
            let jobs = try index.write { transaction in
                try transaction.lease(limit: slots, to: "w") {
                    counter += 1
                    return counter
                }
            }
            if jobs.isEmpty { return order }
            order += jobs.map(\.owner)
        }
    }

    @Test func anotherOwnersFirstPictureIsLeasedBeforeMostOfAFloodAtTheSamePriority() throws {
        let temporary = try TemporaryIndex()
        // alice uploads 150 workouts (300 pictures), all of them asked for at once; then bob one.
        try Self.request(try Self.upload(150, owner: "alice", on: temporary.index), owner: "alice", on: temporary.index)
        try Self.request(try Self.upload(1, owner: "bob", on: temporary.index), owner: "bob", on: temporary.index)
        let order = try Self.leaseAll(temporary.index, slots: 4)
        #expect(order.count == 302)
        let bobsFirst = try #require(order.firstIndex(of: "bob"))
        // Before: bob's pictures came after every one of alice's (positions 300 and 301).
        #expect(bobsFirst < 8, "bob's first picture was leased as number \(bobsFirst + 1) of \(order.count)")
        #expect(order.lastIndex(of: "bob")! < 16)
    }

    @Test func ownersTakeTurnsInBulkWork() throws {
        let temporary = try TemporaryIndex()
        // Bulk (priority 0): alice's 100 workouts first, then carol's and bob's 5 each.
        try Self.request(try Self.upload(100, owner: "alice", on: temporary.index), owner: "alice", priority: 0, on: temporary.index)
        try Self.request(try Self.upload(5, owner: "carol", on: temporary.index), owner: "carol", priority: 0, on: temporary.index)
        try Self.request(try Self.upload(5, owner: "bob", on: temporary.index), owner: "bob", priority: 0, on: temporary.index)
        let order = try Self.leaseAll(temporary.index, slots: 1)
        #expect(order.count == 220)
        // Round robin over the owners with work: bob's and carol's ten pictures each are done
        // within the first 30 leases, not after alice's 200.
        #expect(order.prefix(30).filter { $0 == "bob" }.count == 10)
        #expect(order.prefix(30).filter { $0 == "carol" }.count == 10)
        // And a batch of several slots is shared too.
        let shared = try TemporaryIndex()
        try Self.request(try Self.upload(100, owner: "alice", on: shared.index), owner: "alice", priority: 0, on: shared.index)
        try Self.request(try Self.upload(5, owner: "bob", on: shared.index), owner: "bob", priority: 0, on: shared.index)
        let first = try Self.leaseAll(shared.index, slots: 8).prefix(8)
        #expect(first.filter { $0 == "bob" }.count == 4)
    }

    @Test func aHigherPriorityStillGoesFirstAndEachOwnersOldestFirst() throws {
        let temporary = try TemporaryIndex()
        try Self.request(try Self.upload(20, owner: "alice", on: temporary.index), owner: "alice", priority: 0, on: temporary.index)
        let bob = try Self.upload(3, owner: "bob", on: temporary.index)
        try Self.request([bob[2]], owner: "bob", on: temporary.index)
        var counter: UInt64 = 0
        let jobs = try temporary.index.write { transaction in
            try transaction.lease(limit: 50, to: "w") {
                counter += 1
                return counter
            }
        }
        // bob's interactive pictures first; then bulk, in turns; within an owner, the oldest first.
        #expect(jobs.prefix(2).map(\.picture.workoutID) == [bob[2], bob[2]])
        let alices = jobs.filter { $0.owner == "alice" }.map(\.jobID)
        #expect(alices == alices.sorted())
        #expect(jobs.count == 42)
    }

    @Test func anOwnerHasAtMostItsBoundOfInteractivePicturesTheRestWaitAsBulk() throws {
        let temporary = try TemporaryIndex()
        let alice = try Self.upload(30, owner: "alice", on: temporary.index)
        func interactive(_ owner: String) throws -> Int {
            try temporary.index.read { reader in
                try Int.fetchOne(
                    reader.db, sql: "SELECT count(*) FROM job WHERE owner = ? AND status = 'pending' AND priority > 0", arguments: [owner])!
            }
        }
        var request = EnqueueRequest(ids: alice, kinds: [.route], themes: [.light, .dark], priority: EnqueueRequest.interactivePriority)
        request.owner = "alice"
        let reply = try temporary.index.write { try $0.enqueue(request, scales: [1], interactivePerOwner: 10, cacheKey: anyKey) }
        #expect(reply.created == 60 && reply.queuedAsBulk == 50)
        #expect(try interactive("alice") == 10)
        // The ten kept are the first asked for (the oldest jobs); the rest wait as bulk work.
        let kept = try temporary.index.read { reader in
            try Int64.fetchAll(reader.db, sql: "SELECT id FROM job WHERE owner = 'alice' AND priority > 0 ORDER BY id")
        }
        let all = try temporary.index.read { reader in try Int64.fetchAll(reader.db, sql: "SELECT id FROM job WHERE owner = 'alice' ORDER BY id") }
        #expect(kept == Array(all.prefix(10)))
        // A zone change re-queues at the privacy priority, bounded alike; another owner's budget is their own.
        var zones = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark], priority: EnqueueRequest.privacyPriority)
        zones.owner = "alice"
        _ = try temporary.index.write { try $0.enqueue(zones, scales: [1], interactivePerOwner: 10, cacheKey: anyKey) }
        #expect(try interactive("alice") == 10)
        // A feed row the owner asks for now goes ahead of what was asked before: its pictures are
        // kept interactive, and as many of the older ones wait as bulk work.
        let waiting = try temporary.index.read { reader in
            try String.fetchOne(reader.db, sql: "SELECT workout_id FROM job WHERE owner = 'alice' AND priority = 0 ORDER BY id DESC LIMIT 1")
        }
        let row = try #require(waiting.flatMap(WorkoutID.init))
        var rowRequest = EnqueueRequest(ids: [row], kinds: [.route], themes: [.light, .dark], priority: EnqueueRequest.interactivePriority)
        rowRequest.owner = "alice"
        let rowReply = try temporary.index.write { try $0.enqueue(rowRequest, scales: [1], interactivePerOwner: 10, cacheKey: anyKey) }
        #expect(rowReply.queuedAsBulk == 2)
        #expect(try interactive("alice") == 10)
        let rowKept = try temporary.index.read { reader in
            try Int.fetchOne(reader.db, sql: "SELECT count(*) FROM job WHERE workout_id = ? AND priority > 0", arguments: [row.description])
        }
        #expect(rowKept == 2)
        let bob = try Self.upload(2, owner: "bob", on: temporary.index)
        var bobs = EnqueueRequest(ids: bob, kinds: [.route], themes: [.light, .dark], priority: EnqueueRequest.interactivePriority)
        bobs.owner = "bob"
        let bobReply = try temporary.index.write { try $0.enqueue(bobs, scales: [1], interactivePerOwner: 10, cacheKey: anyKey) }
        #expect(bobReply.queuedAsBulk == nil)
        #expect(try interactive("bob") == 4)
        // An operator's request without an owner is bounded per owner too.
        let operatorRequest = EnqueueRequest(ids: nil, kinds: [.heatmap], themes: [.light], priority: EnqueueRequest.interactivePriority)
        _ = try temporary.index.write { try $0.enqueue(operatorRequest, scales: [1], interactivePerOwner: 10, cacheKey: anyKey) }
        #expect(try interactive("alice") == 10)
        #expect(try interactive("bob") == 6)
    }

    /// Schema v9 on an index v8 made: every job gets its workout's owner, and leasing takes turns.
    @Test func version9GivesEveryJobItsWorkoutsOwner() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let old = try DatabaseQueue(path: path)
        try WorkoutIndex.migrator.migrate(old, upTo: "v8: privacy zones")
        try old.write { db in
            for (number, owner) in ["alice", "alice", "alice", "bob"].enumerated() {
                let id = "0b1c4d5e-0000-8000-8000-00000000000\(number)"
                try db.execute(
                    sql: """
                        INSERT INTO workout (id, owner, source, source_id, activity, start_at, distance, point_count, route_version, route_hash, hr_hash, anchor)
                        VALUES (?, ?, 'gpx', ?, 'running', ?, 111, 2, 1, 'r', 'h', 1)
                        """, arguments: [id, owner, "s-\(number)", 1000 + number * 7200])
                let route = Data(
                    SeriesCodec.encode(Route(segments: [[RoutePoint(latitude: 1, longitude: 2), RoutePoint(latitude: 1.001, longitude: 2)]])))
                try db.execute(
                    sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)", arguments: [id, route, Data(SeriesCodec.encode([]))])
                try db.execute(
                    sql:
                        "INSERT INTO job (workout_id, kind, theme, scale, status, updated_at, anchor) VALUES (?, 'route', 'light', 1, 'pending', 0, 2)",
                    arguments: [id])
            }
        }
        try old.close()
        let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        #expect(try index.appliedMigrations().contains("v10: fair share and the queue at scale"))
        let owners = try index.read { reader in try String.fetchAll(reader.db, sql: "SELECT owner FROM job ORDER BY id") }
        #expect(owners == ["alice", "alice", "alice", "bob"])
        #expect(try Self.leaseAll(index, slots: 2).prefix(2).sorted() == ["alice", "bob"])
    }
}
