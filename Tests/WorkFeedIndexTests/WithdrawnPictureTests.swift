import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 25: the keys of an owner's pictures withdrawn by a change of their privacy zones are
/// remembered (so that their URLs answer 410 Gone), per owner, bounded, and forgotten when the
/// owner leaves.
@Suite struct WithdrawnPictureTests {
    /// A generated job with the key `key` for one of `owner`'s workouts.
    static func generated(_ key: String, workout: WorkoutID, owner: String, in transaction: inout IndexTransaction) throws {
        try transaction.db.execute(
            sql: """
                INSERT INTO job (workout_id, kind, theme, scale, status, cache_key, updated_at, anchor, owner)
                VALUES (?, 'route', ?, 1, 'generated', ?, 0, 1, ?)
                """,
            arguments: [workout.description, key.hasPrefix("a") ? "light" : "dark", key, owner])
    }

    @Test func anOwnersKeysAreRememberedBoundedAndForgotten() throws {
        let temporary = try TemporaryIndex()
        let keys = (0..<3).map { String(repeating: "a\($0)", count: 32) } + [String(repeating: "b0", count: 32)]
        try temporary.index.write { transaction in
            let alice = try transaction.importWorkout(sampleWorkout(sourceID: "a", start: 1_700_000_000, file: "a.gpx"), owner: "alice")
            let more = try transaction.importWorkout(sampleWorkout(sourceID: "m", start: 1_700_100_000, file: "m.gpx"), owner: "alice")
            let other = try transaction.importWorkout(sampleWorkout(sourceID: "c", start: 1_700_200_000, file: "c.gpx"), owner: "alice")
            let bob = try transaction.importWorkout(sampleWorkout(sourceID: "b", start: 1_700_000_000, file: "b.gpx"), owner: "bob")
            for (key, workout) in zip(keys, [alice.id, more.id, other.id]) {
                try Self.generated(key, workout: workout, owner: "alice", in: &transaction)
            }
            try Self.generated(keys[3], workout: bob.id, owner: "bob", in: &transaction)
            // A key alice shares with carol (the same file, drawn alike) is never alice's to withdraw.
            let carol = try transaction.importWorkout(sampleWorkout(sourceID: "a", start: 1_700_000_000, file: "a.gpx"), owner: "carol")
            let shared = try transaction.importWorkout(sampleWorkout(sourceID: "s", start: 1_700_300_000, file: "s.gpx"), owner: "alice")
            try Self.generated(String(repeating: "c0", count: 32), workout: carol.id, owner: "carol", in: &transaction)
            try Self.generated(String(repeating: "c0", count: 32), workout: shared.id, owner: "alice", in: &transaction)
        }
        // Nothing is withdrawn before a change.
        #expect(try temporary.index.read { try $0.isWithdrawn(key: keys[0]) } == false)
        let remembered = try temporary.index.write { try $0.rememberWithdrawnPictures(owner: "alice", keeping: 2) { _, _ in "moved" } }
        // Alice's three, named (the coordinator publishes them), not the key carol shares.
        #expect(Set(remembered) == Set(keys.prefix(3)), "\(remembered)")
        let state = try temporary.index.read { reader in try keys.map { try reader.isWithdrawn(key: $0) } }
        // Two of alice's three kept (the bound), none of bob's; a key never seen is not withdrawn.
        #expect(state.prefix(3).filter { $0 }.count == 2 && state[3] == false)
        #expect(try temporary.index.read { try $0.isWithdrawn(key: String(repeating: "0", count: 64)) } == false)
        #expect(try temporary.index.read { try $0.isWithdrawn(key: String(repeating: "c0", count: 32)) } == false)
        // Alice leaves: hers are forgotten, and bob's change is his alone.
        try temporary.index.write { try $0.forgetWithdrawnPictures(owner: "alice") }
        // A change that leaves bob's key where it was (a zone far from his route) withdraws nothing.
        #expect(try temporary.index.write { try $0.rememberWithdrawnPictures(owner: "bob") { _, _ in keys[3] } }.isEmpty)
        #expect(try temporary.index.read { try $0.isWithdrawn(key: keys[3]) } == false)
        _ = try temporary.index.write { try $0.rememberWithdrawnPictures(owner: "bob") { _, _ in "moved" } }
        let after = try temporary.index.read { reader in try keys.map { try reader.isWithdrawn(key: $0) } }
        #expect(after == [false, false, false, true])
    }

    /// Issue 37, item 7: `isGenerated(key:)` (PICTURE's `generated`, what the gateway asks before it
    /// redirects) is true only while a generated picture's job stores the key: not once it is queued
    /// again, not once its workout is deleted, never for a key nobody had.
    @Test func aKeyIsGeneratedOnlyWhileAGeneratedJobStoresIt() throws {
        let temporary = try TemporaryIndex()
        let key = String(repeating: "d1", count: 32)
        let id = try temporary.index.write { transaction in
            let workout = try transaction.importWorkout(sampleWorkout(sourceID: "g", start: 1_700_000_000, file: "g.gpx"), owner: "alice")
            try Self.generated(key, workout: workout.id, owner: "alice", in: &transaction)
            return workout.id
        }
        #expect(try temporary.index.read { try $0.isGenerated(key: key) })
        #expect(try temporary.index.read { try $0.isGenerated(key: String(repeating: "0", count: 64)) } == false)
        try temporary.index.write { try $0.db.execute(sql: "UPDATE job SET status = 'pending' WHERE cache_key = ?", arguments: [key]) }
        #expect(try temporary.index.read { try $0.isGenerated(key: key) } == false)
        #expect(try temporary.index.read { try $0.isStored(key: key) })
        try temporary.index.write { try $0.db.execute(sql: "UPDATE job SET status = 'generated' WHERE cache_key = ?", arguments: [key]) }
        #expect(try temporary.index.read { try $0.isGenerated(key: key) })
        _ = try temporary.index.write { try $0.delete([id]) }
        #expect(try temporary.index.read { try $0.isGenerated(key: key) } == false)
    }
}
