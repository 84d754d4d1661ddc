import Foundation
import GRDB
import Logging
import PostgresNIO
@testable import WorkFeedIndex
@testable import WorkFeedIndexPostgres
import WorkFeedModel

/// A SQLite index in a temporary directory and a PostgreSQL database of its own, for tests that
/// do the same to both and compare what they hold, row by row.
final class BothIndexes {
    let sqlite: WorkoutIndex
    let fixture: PostgresFixture
    let session: PostgresSession
    /// The PostgreSQL writer's term as leader: its rebuild steps are periodic work.
    let leadership: PostgresLeadership
    private let directory: URL

    init(_ name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-\(name)-\(UUID().uuidString)")
        sqlite = try WorkoutIndex(path: directory.appendingPathComponent("index.sqlite").path, logger: Logger(label: "test"))
        fixture = try PostgresFixture()
        session = try fixture.session(name)
        leadership = try fixture.leading()
    }

    deinit {
        session.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `body` in one PostgreSQL write transaction, finished before it commits.
    func postgres<T>(_ body: (inout PostgresTransaction) throws -> T) throws -> T {
        try session.transaction("writing") {
            var transaction = PostgresTransaction(session: session)
            transaction.leadership = leadership
            let result = try body(&transaction)
            try transaction.finish()
            return result
        }
    }

    /// The rows of `sql` in SQLite, each value as text.
    func sqliteRows(_ sql: String) throws -> [[String]] {
        try sqlite.read { reader in
            try Row.fetchAll(reader.db, sql: sql).map { row in
                row.databaseValues.map { value in
                    switch value.storage {
                    case .null: "NULL"
                    case .int64(let number): String(number)
                    case .double(let number): String(number)
                    case .string(let text): text
                    case .blob(let bytes): "\(bytes.count) bytes"
                    }
                }
            }
        }
    }

    /// The rows of `sql` in PostgreSQL, each value as SQLite's would read (a boolean as 0 or 1,
    /// a uuid in lower case).
    func postgresRows(_ sql: String) throws -> [[String]] {
        try session.query(PostgresQuery(unsafeSQL: sql), "reading").map { row in
            try row.makeRandomAccess().map { cell in
                guard cell.bytes != nil else { return "NULL" }
                switch cell.dataType {
                case .bool: return try cell.decode(Bool.self) ? "1" : "0"
                case .int2, .int4, .int8: return String(try cell.decode(Int64.self))
                case .float8: return String(try cell.decode(Double.self))
                case .uuid: return try cell.decode(UUID.self).uuidString.lowercased()
                case .bytea: return "\(try cell.decode(ByteBuffer.self).readableBytes) bytes"
                default: return try cell.decode(String.self)
                }
            }
        }
    }

    /// Whether every change in PostgreSQL has an anchor of its own (workouts, jobs, tombstones):
    /// a reader of CHANGES goes on from the last anchor it was given.
    func everyChangeHasItsOwnAnchor() throws -> Bool {
        let counts = try postgresRows(
            """
            SELECT count(*), count(DISTINCT anchor) FROM (
                SELECT anchor FROM workout UNION ALL SELECT anchor FROM job UNION ALL SELECT anchor FROM deleted_workout) a
            """)
        return counts.count == 1 && counts[0][0] == counts[0][1]
    }

    /// Whether `sql` gives the same rows in both.
    func same(_ sql: String) throws -> Bool { try postgresRows(sql) == sqliteRows(sql) }
}
