/// An index operation failed: what we were doing and the SQLite (or other) cause.
public struct IndexError: Error, CustomStringConvertible {
    public var message: String
    public var cause: (any Error)?

    public init(_ message: String, cause: (any Error)? = nil) {
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }

    /// The index file is damaged: what SQLite found, and what to do.
    static func damaged(_ path: String, detail: String) -> IndexError {
        IndexError(
            "the index at \(path) is damaged (\(detail)); the coordinator does not start on it. Restore the last backup "
                + "(docs/operations.md, \"Backups of the index\"), or save what can be read into a new file with "
                + "`sqlite3 \(path) .recover | sqlite3 recovered.sqlite` and check it (PRAGMA integrity_check) before using it")
    }
}
