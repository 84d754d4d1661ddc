/// An index operation failed: what went wrong (``code``, for callers to switch on), what we were
/// doing (``message``, for people) and the cause underneath (GRDB's `DatabaseError`, a server's
/// error), as GRDB's `DatabaseError` keeps its result code beside its message.
public struct IndexError: Error, CustomStringConvertible {
    /// What went wrong, for callers: a coordinator's exit status and log say which, and nobody
    /// reads ``message`` to find out.
    public enum Code: String, Sendable, CaseIterable {
        /// The index cannot be opened or reached: its directory or file cannot be made or read, or
        /// its server does not answer.
        case unavailable = "index-unavailable"
        /// Another writer holds an index that admits one (a second coordinator on one SQLite file).
        case locked = "index-locked"
        /// What is there is no WorkFeed index: an empty file, a file that is not SQLite, another
        /// application's database.
        case notAnIndex = "not-an-index"
        /// The index is damaged: its storage fails its own check.
        case damaged = "index-damaged"
        /// A stored row holds a value its column cannot hold (``corruptRow``).
        case corruptRow = "corrupt-row"
        /// The schema could not be brought up to date (nothing was changed).
        case migration = "index-migration"
        /// A FEED cursor that is not one of ours.
        case badCursor = "bad-cursor"
        /// A write the index's rules refuse: a zone past an owner's most, a workout with nothing to
        /// identify it by.
        case refused = "refused"
        /// Periodic work was fenced off: this writer's term as the leader of several has ended
        /// (another leads now), and nothing of the transaction was kept.
        case lostLead = "lost-lead"
        /// Two writers' transactions got in each other's way (a deadlock, a serialization
        /// failure: the server chose this one): nothing of it was kept, and running it again may
        /// well succeed.
        case conflict = "index-conflict"
        /// A read or write transaction failed (the cause says why); nothing of it was kept.
        case failed = "index-failed"
    }

    public var code: Code
    public var message: String
    public var cause: (any Error)?
    /// Set when a stored row holds a value its column cannot hold (``corruptRow(table:row:column:value:)``).
    public var corruptRow: CorruptRow?

    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }

    /// Where a stored row is corrupt: the table, the row (its id as stored) and the column, and
    /// the value found there (as SQLite holds it: `NULL`, a number, or text in quotes).
    public struct CorruptRow: Sendable, Hashable {
        public var table: String
        public var row: String
        public var column: String
        public var value: String

        public init(table: String, row: String, column: String, value: String) {
            self.table = table
            self.row = row
            self.column = column
            self.value = value
        }
    }

    /// A stored value that cannot be what its column must hold: an unknown status, kind or theme,
    /// a NULL where a value must be, an unparseable workout id. Nothing is read past it, and the
    /// write transaction it happened in (if any) rolls back.
    public static func corruptRow(table: String, row: String, column: String, value: String) -> IndexError {
        var error = IndexError(
            .corruptRow,
            "the index's \(table) row \(row) is corrupt: its column \(column) holds \(value), which this version cannot read; "
                + "the row was changed outside WorkFeed or by a newer version (restore the last backup, docs/operations.md, "
                + "\"Backups of the index\", or correct the row)")
        error.corruptRow = CorruptRow(table: table, row: row, column: column, value: value)
        return error
    }

    /// The index file is damaged: what SQLite found, and what to do.
    static func damaged(_ path: String, detail: String) -> IndexError {
        IndexError(
            .damaged,
            "the index at \(path) is damaged (\(detail)); the coordinator does not start on it. Restore the last backup "
                + "(docs/operations.md, \"Backups of the index\"), or save what can be read into a new file with "
                + "`sqlite3 \(path) .recover | sqlite3 recovered.sqlite` and check it (PRAGMA integrity_check) before using it")
    }
}
