import Foundation
import GRDB
import GRDBSQLite

/// One of GRDB's cached statements, driven through SQLite's C API.
///
/// For the statements that run for every job (finding ready jobs, reading them, recording their
/// status): GRDB's `Row` copies every column, looks columns up by name and boxes arguments, which
/// cost more than SQLite's own work there. GRDB still prepares, caches and finalizes the statement.
struct RawStatement {
    private let statement: Statement
    private let db: Database

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        self.db = db
    }

    private var handle: OpaquePointer { statement.sqliteStatement }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            _ = sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
        }
    }

    /// Runs the statement to its next row: `true` when there is one, `false` when it is done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Runs a statement that returns no rows.
    func execute() throws {
        while try step() {}
        reset()
    }

    /// Makes the statement ready to run again. Every use binds all of its parameters, so the old
    /// values are not cleared.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(db.sqliteConnection)) }

    func int64(_ column: Int32) -> Int64 { columns.int64(column) }

    /// A text column's UTF-8 bytes, valid only inside `body`.
    func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T { columns.withText(column, body) }

    func text(_ column: Int32) -> String { columns.text(column) }

    func bytes(_ column: Int32) -> [UInt8] { columns.bytes(column) }

    /// The current row's columns, read through the statement's handle alone: a plain value, copied
    /// without reference counting (``RowDecoder`` holds one for every leased job it reads).
    var columns: Columns { Columns(handle: handle) }

    /// The columns of a statement's current row.
    struct Columns {
        let handle: OpaquePointer

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        /// A column as GRDB holds values: for errors that show what was stored (``RowDecoder``).
        func databaseValue(_ column: Int32) -> DatabaseValue {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: int64(column).databaseValue
            case SQLITE_FLOAT: sqlite3_column_double(handle, column).databaseValue
            case SQLITE_TEXT: text(column).databaseValue
            case SQLITE_BLOB: Data(bytes(column)).databaseValue
            default: .null
            }
        }

        /// A text column's UTF-8 bytes, valid only inside `body`.
        func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            // The pointer first, then its length (SQLite's documented order).
            guard let base = sqlite3_column_text(handle, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            return body(UnsafeBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, column))))
        }

        func text(_ column: Int32) -> String { withText(column) { String(decoding: $0, as: UTF8.self) } }

        func bytes(_ column: Int32) -> [UInt8] {
            guard let base = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, column))))
        }
    }
}

/// SQLite copies the bytes it is given before the call returns.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
