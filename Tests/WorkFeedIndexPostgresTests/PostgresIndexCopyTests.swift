import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
@testable import WorkFeedIndex
import WorkFeedIndexContract
@testable import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedPrivacy
import WorkFeedTesting

/// What `workctl index copy` refuses, naming why, with the database left as it was (the copy
/// that succeeds is `IndexCopyTests`, end to end).
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresIndexCopyTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-copy-\(UUID().uuidString)")

    func index(_ sql: String? = nil) throws -> WorkoutIndex {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let index = try WorkoutIndex(path: directory.appendingPathComponent("index.sqlite").path, logger: Logger(label: "test"))
        _ = try index.write { transaction in
            try transaction.importWorkout(
                IndexStoreContract.workout("copied"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(),
                replacedFile: { _ in })
        }
        if let sql { try index.queue.write { db in try db.execute(sql: sql) } }
        return index
    }

    func workouts(in session: PostgresSession) throws -> Int {
        try session.query("SELECT count(*)::bigint FROM workout", "counting").firstDecoded("count") { try $0.decode(Int.self) } ?? -1
    }

    @Test func aValueWithNoPlaceInPostgreSQLIsNamedAndNothingIsCopied() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try index("INSERT INTO deleted_workout (id, anchor, owner) VALUES ('not-a-uuid', 7, 'anna')")
        let fixture = try PostgresFixture(migrated: false)
        let session = try fixture.session("copy")
        do {
            _ = try PostgresIndexCopy.copy(source, to: session, appliedBy: "test")
            Issue.record("a tombstone whose id is no uuid was copied")
        } catch {
            #expect(error.code == .corruptRow)
            #expect(error.message.contains("table deleted_workout, row text 'not-a-uuid', column id"), "\(error)")
            #expect(error.message.contains("nothing was copied"), "\(error)")
        }
        #expect(try workouts(in: session) == 0)
        // Once mended, the same database takes the copy.
        try source.queue.write { db in try db.execute(sql: "DELETE FROM deleted_workout WHERE id = 'not-a-uuid'") }
        let copied = try PostgresIndexCopy.copy(source, to: session, appliedBy: "test")
        #expect(copied.rows.first { $0.table == "workout" }?.count == 1)
        #expect(try workouts(in: session) == 1)
    }

    /// A zone's id is never given again after a copy either: ids go on after the highest the
    /// SQLite index ever gave, not after the highest left.
    @Test func zoneIDsGoOnAfterTheHighestEverGiven() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try index()
        let removed = try source.write { transaction in
            _ = try transaction.addPrivacyZone(owner: "anna", latitude: 49.4, longitude: 8.7, radius: 200)
            let second = try transaction.addPrivacyZone(owner: "anna", latitude: 49.5, longitude: 8.6, radius: 300)
            _ = try transaction.removePrivacyZone(owner: "anna", id: second.id)
            return second.id
        }
        let session = try PostgresFixture(migrated: false).session("copy")
        _ = try PostgresIndexCopy.copy(source, to: session, appliedBy: "test")
        let next = try session.query("SELECT nextval(pg_get_serial_sequence('privacy_zone', 'id'))", "the next zone id").firstDecoded("id") {
            try $0.decode(Int64.self)
        }
        #expect(next == removed + 1, "the next zone id after the copy is \(String(describing: next)), zone \(removed) was removed")
    }

    @Test func aTableThisReleaseDoesNotKnowIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try index("CREATE TABLE from_the_future (x INTEGER)")
        let session = try PostgresFixture(migrated: false).session("copy")
        do {
            _ = try PostgresIndexCopy.copy(source, to: session, appliedBy: "test")
            Issue.record("an index with an unknown table was copied without it")
        } catch {
            #expect(error.code == .migration)
            #expect(error.message.contains("from_the_future"), "\(error)")
        }
        #expect(try workouts(in: session) == 0)
    }
}
