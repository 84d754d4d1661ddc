import GRDBSQLite

/// A read-only SQLite connection with one owner, closed when it goes away.
///
/// It is not thread-safe on its own (it is opened `SQLITE_OPEN_NOMUTEX`): ``MBTilesSource``
/// keeps it in a `Mutex`. `sqlite3_close_v2` lets statements outlive it safely, so the order in
/// which a connection and its statements are released does not matter.
struct SQLiteDatabase: ~Copyable {
    let handle: OpaquePointer
    /// For messages only.
    let path: String

    /// Opens `path` read-only.
    ///
    /// - Throws: ``TileError`` `.unreadable` when SQLite cannot open the file.
    init(readOnly path: String) throws(TileError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(handle)
            throw TileError(.unreadable, "SQLite cannot open the file: \(message)", path: path)
        }
        self.handle = handle
        self.path = path
    }

    deinit { sqlite3_close_v2(handle) }

    /// - Throws: ``TileError`` `.notATileset` when the file is not an SQLite database at all
    ///   (SQLite only finds out when it first reads it), `.malformedTileset` otherwise.
    func prepare(_ sql: String) throws(TileError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw failure(status)
        }
        return SQLiteStatement(handle: statement, database: handle, path: path)
    }

    func failure(_ status: Int32) -> TileError {
        SQLiteStatement.failure(status, database: handle, path: path)
    }
}

/// A prepared statement with one owner, finalized when it goes away.
struct SQLiteStatement: ~Copyable {
    let handle: OpaquePointer
    private let database: OpaquePointer
    private let path: String

    init(handle: OpaquePointer, database: OpaquePointer, path: String) {
        self.handle = handle
        self.database = database
        self.path = path
    }

    deinit { sqlite3_finalize(handle) }

    /// Runs to the next row: `true` when there is one, `false` when the statement is done.
    ///
    /// - Throws: ``TileError`` with SQLite's message: `.notATileset` for a file that is not a
    ///   database, `.malformedTileset` for a corrupt one, `.unreadable` for I/O errors.
    func step() throws(TileError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status:
            let error = Self.failure(status, database: database, path: path)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Makes the statement ready to run again; every use binds all of its parameters.
    func reset() { sqlite3_reset(handle) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// A column's bytes as stored (a text column's UTF-8, a blob's bytes); empty for NULL.
    func bytes(_ column: Int32) -> [UInt8] {
        // The pointer first, then its length (SQLite's documented order).
        guard let base = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    func text(_ column: Int32) -> String { String(decoding: bytes(column), as: UTF8.self) }

    static func failure(_ status: Int32, database: OpaquePointer, path: String) -> TileError {
        let message = String(cString: sqlite3_errmsg(database))
        switch status & 0xFF {
        case SQLITE_NOTADB:
            return TileError(.notATileset, "not an SQLite database (SQLite: \(message))", path: path)
        case SQLITE_CORRUPT, SQLITE_FORMAT, SQLITE_ERROR, SQLITE_MISMATCH, SQLITE_RANGE, SQLITE_TOOBIG:
            return TileError(.malformedTileset, "SQLite: \(message)", path: path)
        default:
            return TileError(.unreadable, "SQLite: \(message)", path: path)
        }
    }
}
