import Foundation
import GRDB

/// The SQLite index's rows, table by table, as ``StoredValue``s: what `workctl index copy` moves
/// into another backend (docs/postgres-index.md, "Moving over"). Read in one transaction, so
/// that every table is of one state of the index.
public struct IndexExport {
    let db: Database

    /// The tables an index keeps, in an order where what a row refers to comes before it. The
    /// kept job counts are not among them: a backend keeps its own from the jobs it holds.
    public static let tables = [
        "meta", "workout", "series", "job", "deleted_workout", "picture_wanted", "privacy_zone", "owner_settings", "withdrawn_picture",
        "summary_owner", "workout_summary", "summary_bucket", "removal", "kept_reply",
    ]

    /// Tables that are not an index's content: the migrations' record and the kept counts.
    public static let derivedTables: Set<String> = ["grdb_migrations", "job_count", "job_count_by_owner"]

    /// Every table in the file, SQLite's own left out.
    public func tableNames() throws(IndexError) -> [String] {
        try reading("the tables") {
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        }
    }

    /// A table's columns, in their order.
    public func columns(of table: String) throws(IndexError) -> [String] {
        try reading("the columns of \(table)") {
            try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))").map { $0["name"] }
        }
    }

    /// The highest id `table` ever gave (SQLite's `sqlite_sequence`, kept for AUTOINCREMENT
    /// tables), or `nil` when it keeps none: ids of deleted rows above every row left are never
    /// given again, after a copy too.
    public func highestIDEverGiven(in table: String) throws(IndexError) -> Int64? {
        try reading("the highest id of \(table)") {
            guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'sqlite_sequence'") == true else { return nil }
            return try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
        }
    }

    public func rowCount(of table: String) throws(IndexError) -> Int {
        try reading("the rows of \(table)") { try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0 }
    }

    /// The rows of `table`, `columns` of each, handed to `body` `batch` at a time (fewer when
    /// `bytesPerBatch` of values are reached first): a table larger than memory is read in pieces.
    public func rows(
        of table: String, columns: [String], batch: Int, bytesPerBatch: Int = 8 << 20, _ body: ([[StoredValue]]) throws -> Void
    ) throws {
        let selection = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(selection) FROM \(table.quotedDatabaseIdentifier)")
        var rows: [[StoredValue]] = []
        var bytes = 0
        while let row = try cursor.next() {
            var values: [StoredValue] = []
            values.reserveCapacity(columns.count)
            for index in 0..<columns.count {
                let value = StoredValue(row[index] as DatabaseValue)
                if case .blob(let blob) = value { bytes += blob.count }
                values.append(value)
            }
            rows.append(values)
            if rows.count >= batch || bytes >= bytesPerBatch {
                try body(rows)
                rows.removeAll(keepingCapacity: true)
                bytes = 0
            }
        }
        if !rows.isEmpty { try body(rows) }
    }

    private func reading<T>(_ what: String, _ body: () throws -> T) throws(IndexError) -> T {
        do { return try body() } catch { throw IndexError(.failed, "cannot read \(what) of the index", cause: error) }
    }
}

extension StoredValue {
    /// A value as SQLite returned it.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }
}

extension WorkoutIndex {
    /// Runs `body` in one read transaction over the whole index (``IndexExport``).
    public func export<T>(_ body: (IndexExport) throws -> T) throws(IndexError) -> T {
        do {
            return try queue.read { db in try body(IndexExport(db: db)) }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "reading the index to copy it failed", cause: error)
        }
    }
}
