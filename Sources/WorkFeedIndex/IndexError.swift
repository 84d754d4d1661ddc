/// An index operation failed: what we were doing and the SQLite (or other) cause.
public struct IndexError: Error, CustomStringConvertible {
    public var message: String
    public var cause: (any Error)?
    /// Set when a stored row holds a value its column cannot hold (``corruptRow(table:row:column:value:)``).
    public var corruptRow: CorruptRow?

    public init(_ message: String, cause: (any Error)? = nil) {
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
    static func corruptRow(table: String, row: String, column: String, value: String) -> IndexError {
        var error = IndexError(
            "the index's \(table) row \(row) is corrupt: its column \(column) holds \(value), which this version cannot read; "
                + "the row was changed outside WorkFeed or by a newer version (restore the last backup, docs/operations.md, "
                + "\"Backups of the index\", or correct the row)")
        error.corruptRow = CorruptRow(table: table, row: row, column: column, value: value)
        return error
    }

    /// The index file is damaged: what SQLite found, and what to do.
    static func damaged(_ path: String, detail: String) -> IndexError {
        IndexError(
            "the index at \(path) is damaged (\(detail)); the coordinator does not start on it. Restore the last backup "
                + "(docs/operations.md, \"Backups of the index\"), or save what can be read into a new file with "
                + "`sqlite3 \(path) .recover | sqlite3 recovered.sqlite` and check it (PRAGMA integrity_check) before using it")
    }
}
