import GRDB
public import WorkFeedModel

// MARK: Failed pictures (FAILED, `workctl failed`)

extension IndexReader {
    /// Failed pictures grouped by their failure's code, most frequent first, each with the
    /// reason of its most recent failure as an example.
    public func failureGroups(limit: Int) throws -> [(code: String, count: Int, example: String)] {
        // SQLite takes a bare column (reason) from the row that gave max(updated_at): the only
        // aggregate of min or max here, or it would not.
        try Row.fetchAll(
            db,
            sql: """
                SELECT coalesce(reason_code, 'transient') AS code, count(*) AS n, coalesce(reason, '') AS reason, max(updated_at)
                FROM job WHERE status = 'failed-no-retry' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
                """,
            arguments: [limit]
        ).map { row throws(IndexError) in
            // A group of rows: named by its code.
            let group = RowDecoder(row, table: "job", idColumn: 0)
            return (try group.value(0, "reason_code"), try group.value(1, "count(*)"), try group.value(2, "reason"))
        }
    }

    /// Failed pictures, most recent first.
    public func failedPictures(limit: Int) throws -> [PictureRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(Self.pictureColumns) FROM job WHERE status = 'failed-no-retry' ORDER BY updated_at DESC, id LIMIT ?",
            arguments: [limit]
        ).map(Self.pictureRecord)
    }

    public func failedCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE status = 'failed-no-retry'") ?? 0
    }
}
