import Foundation
import Testing
@testable import WorkFeedCoordinator
@testable import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// Issue 23, finding 9: every control request in a batch is all or nothing. A request that fails
/// half way (here a DELETE of two workouts whose second one has a job row the index cannot read)
/// leaves no trace, and the requests beside it in the same batch commit. On a real index, through
/// the dispatcher, without sockets.
@Suite struct ControlSavepointTests {
    @Test func aRequestThatFailsHalfWayLeavesNoTraceAndItsNeighboursCommit() throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        var ids: [WorkoutID] = []
        for number in 0..<3 { ids.append(try bench.importing(.twoPoint(number))) }
        _ = bench.turn(control: [try bench.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]))])
        // The second workout's job gets a kind this version does not know, as a newer version or a
        // hand edit could leave it: reading it fails, after the first workout has been deleted.
        try bench.dispatcher.index.write { transaction in
            try RawStatement(transaction.db, sql: "UPDATE job SET kind = 'sculpture' WHERE workout_id = '\(ids[1])'").execute()
        }
        let anchorBefore = bench.dispatcher.index.anchor
        let outbox = bench.turn(control: [
            try bench.request(.delete, DeleteRequest(ids: [ids[2]])),
            try bench.request(.delete, DeleteRequest(ids: [ids[0], ids[1]])),
            try bench.request(.zones, ZonesRequest(owner: Owner.defaultName, add: .init(latitude: 49.41, longitude: 8.69, radius: 300))),
        ])
        let replies = outbox.control.map(\.reply)
        #expect(replies.map(\.ok) == [true, false, true])
        #expect(String(decoding: replies[1].body, as: UTF8.self).contains("job"))
        let (workouts, zones) = try bench.dispatcher.index.read { reader in
            (try ids.map { try reader.workout($0, owner: nil) != nil }, try reader.privacyZones(owner: Owner.defaultName).count)
        }
        // The failed DELETE's first workout is still there; its neighbours' changes are committed.
        #expect(workouts == [true, true, false])
        #expect(zones == 1)
        // Nothing of it reached the outbox: no event and no file removal for the workout it did not delete.
        #expect(!outbox.events.contains { if case .workout(let event) = $0 { event.workoutID == ids[0] } else { false } })
        #expect(!outbox.removals.contains { if case .picture(let picture) = $0 { picture.workoutID == ids[0] } else { false } })
        // Its anchors were rolled back with it: the two requests that committed took theirs.
        #expect(bench.dispatcher.index.anchor > anchorBefore)
        let changes = try bench.dispatcher.index.read { try $0.changes(since: anchorBefore, limit: 100, owner: nil) }.changes
        #expect(!changes.contains { $0.id == ids[0] })
    }
}
