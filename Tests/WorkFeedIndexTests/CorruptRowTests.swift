import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// A row changed behind the index's back (by hand, by a newer version) is an error naming the
/// table, the row and the column, wherever the row is read; nothing is skipped or defaulted, and a
/// write transaction that meets it changes nothing.
@Suite struct CorruptRowTests {
    /// An index with two workouts, each with a route picture (light) queued; `job` is the first
    /// workout's job id.
    private func indexWithJobs() throws -> (temporary: TemporaryIndex, ids: [WorkoutID], job: Int64) {
        let temporary = try TemporaryIndex()
        let ids = try temporary.index.write { transaction in
            [try transaction.importWorkout(sampleWorkout(sourceID: "a")).id, try transaction.importWorkout(sampleWorkout(sourceID: "b")).id]
        }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        let job = try temporary.index.read { reader in
            try Int64.fetchOne(reader.db, sql: "SELECT id FROM job WHERE workout_id = ?", arguments: [ids[0].description])!
        }
        return (temporary, ids, job)
    }

    /// Changes the index with a connection of its own, as a person with `sqlite3` would: no foreign
    /// keys, and CHECK constraints ignored.
    private func corrupt(_ temporary: TemporaryIndex, _ sql: String, _ arguments: StatementArguments = []) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: temporary.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: sql, arguments: arguments)
        }
        try queue.close()
    }

    /// Leases every ready job (8 at most) to one worker, in a transaction of its own.
    private func leaseEverything(_ temporary: TemporaryIndex) throws {
        var lease: UInt64 = 0
        _ = try temporary.index.write { transaction in
            try transaction.lease(limit: 8, to: "w-1") {
                lease += 1
                return lease
            }
        }
    }

    /// Every row of every table, as text, for "nothing changed".
    private func everything(_ temporary: TemporaryIndex) throws -> [String] {
        try temporary.index.read { reader in
            let tables = try String.fetchAll(reader.db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            return try tables.flatMap { table in
                try Row.fetchAll(reader.db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }.sorted()
            }
        }
    }

    private func corruption(_ body: () throws -> Void) -> IndexError.CorruptRow? {
        let error = #expect(throws: IndexError.self) { try body() }
        return error?.corruptRow
    }

    @Test func anUnknownKindIsNamedByEveryReadAndADeleteChangesNothing() throws {
        let (temporary, ids, job) = try indexWithJobs()
        try corrupt(temporary, "UPDATE job SET kind = 'sketch' WHERE id = ?", [job])
        let expected = IndexError.CorruptRow(table: "job", row: "\(job)", column: "kind", value: "'sketch'")
        // Counted, not left out of the counts.
        #expect(corruption { _ = try temporary.index.read { try $0.statusCounts() } } == expected)
        #expect(corruption { _ = try temporary.index.read { try $0.statusCounts(owner: Owner.defaultName) } } == expected)
        #expect(corruption { _ = try temporary.index.read { try $0.pictures(of: ids[0]) } } == expected)
        #expect(corruption { _ = try temporary.index.read { try $0.pictures(of: ids) } } == expected)
        // The other workout's pictures are still read.
        #expect(try temporary.index.read { try $0.pictures(of: ids[1]) }.count == 1)

        let before = try everything(temporary)
        #expect(corruption { _ = try temporary.index.write { try $0.delete([ids[1], ids[0]]) } } == expected)
        #expect(try everything(temporary) == before)
        #expect(try temporary.index.read { try $0.workoutCount() } == 2)
    }

    /// A theme is any well-formed name (themes are configuration, which the index does not know):
    /// what cannot be one is corrupt.
    @Test func aValueThatCannotBeAThemeStopsALeaseWithoutLeasingAnything() throws {
        let (temporary, _, job) = try indexWithJobs()
        try corrupt(temporary, "UPDATE job SET theme = 'Neon_2' WHERE id = ?", [job])
        let before = try everything(temporary)
        let found = corruption { try leaseEverything(temporary) }
        #expect(found == IndexError.CorruptRow(table: "job", row: "\(job)", column: "theme", value: "'Neon_2'"))
        #expect(temporary.index.leases.count == 0)
        #expect(try everything(temporary) == before)
    }

    @Test func anUnknownStatusIsAnErrorAndAnEnqueueChangesNothing() throws {
        let (temporary, _, job) = try indexWithJobs()
        try corrupt(temporary, "UPDATE job SET status = 'paused' WHERE id = ?", [job])
        let expected = IndexError.CorruptRow(table: "job", row: "\(job)", column: "status", value: "'paused'")
        #expect(corruption { _ = try temporary.index.read { try $0.statusCounts() } } == expected)
        let before = try everything(temporary)
        let anchor = temporary.index.anchor
        #expect(
            corruption {
                _ = try temporary.index.write {
                    try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
                }
            } == expected)
        #expect(try everything(temporary) == before)
        #expect(temporary.index.anchor == anchor)
    }

    @Test func aNullWhereAValueMustBeIsNamed() throws {
        let (temporary, ids, _) = try indexWithJobs()
        try corrupt(temporary, "UPDATE workout SET file_size = NULL WHERE id = ?", [ids[0].description])
        let expected = IndexError.CorruptRow(table: "workout", row: ids[0].description, column: "file_size", value: "NULL")
        #expect(corruption { _ = try temporary.index.read { try $0.workout(ids[0]) } } == expected)
        #expect(corruption { _ = try temporary.index.read { try $0.feed(limit: 10, cursor: nil) } } == expected)
        #expect(corruption { _ = try temporary.index.read { try $0.file(of: ids[0]) } } == expected)
        #expect(try temporary.index.read { try $0.workout(ids[1]) }?.file?.size == Int64("test.gpx".utf8.count))
    }

    @Test func anUnparseableWorkoutIDIsNamed() throws {
        let (temporary, ids, job) = try indexWithJobs()
        for table in ["workout", "series", "job"] {
            let column = table == "workout" ? "id" : "workout_id"
            try corrupt(temporary, "UPDATE \(table) SET \(column) = 'not-a-uuid' WHERE \(column) = ?", [ids[0].description])
        }
        let workout = IndexError.CorruptRow(table: "workout", row: "not-a-uuid", column: "id", value: "'not-a-uuid'")
        #expect(corruption { _ = try temporary.index.read { try $0.feed(limit: 10, cursor: nil) } } == workout)
        #expect(corruption { _ = try temporary.index.read { try $0.workoutIDs(owner: Owner.defaultName) } } == workout)
        #expect(corruption { _ = try temporary.index.read { try $0.changes(since: 0, limit: 100) } } == workout)
        let jobError = IndexError.CorruptRow(table: "job", row: "\(job)", column: "workout_id", value: "'not-a-uuid'")
        let found = corruption { try leaseEverything(temporary) }
        #expect(found == jobError)
    }

    @Test func theErrorSaysWhereAndWhat() {
        let error = IndexError.corruptRow(table: "job", row: "7", column: "kind", value: "'sketch'")
        #expect(error.description.contains("job row 7"))
        #expect(error.description.contains("column kind holds 'sketch'"))
        #expect(error.corruptRow == IndexError.CorruptRow(table: "job", row: "7", column: "kind", value: "'sketch'"))
    }
}
