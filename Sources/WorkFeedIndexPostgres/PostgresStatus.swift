import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// The jobs per kind, theme, scale and status, kept (not counted) by the job table's statement
/// triggers in stripes, one a connection, so that two coordinators' reports never wait for one
/// count row (docs/postgres-index.md, "Hot rows"): a reader sums a few rows.
public enum PostgresStatus {
    /// ``IndexReading/statusCounts(owner:)``: of every owner, or of one.
    public static func statusCounts(
        owner: String?, in session: PostgresSession
    ) throws(IndexError) -> [(kind: PictureKind, theme: Theme, scale: Int, status: JobStatus, count: Int)] {
        let rows =
            if let owner {
                try session.query(
                    """
                    SELECT kind, theme, scale, status, sum(jobs)::bigint FROM job_count_by_owner WHERE owner = \(owner)
                    GROUP BY 1, 2, 3, 4 HAVING sum(jobs) > 0 ORDER BY 1, 2, 3, 4
                    """, "reading the job counts of \(owner)")
            } else {
                try session.query(
                    """
                    SELECT kind, theme, scale, status, sum(jobs)::bigint FROM job_count
                    GROUP BY 1, 2, 3, 4 HAVING sum(jobs) > 0 ORDER BY 1, 2, 3, 4
                    """, "reading the job counts")
            }
        return try rows.decoded("the job counts") { row in
            let (kind, theme, scale, status, count) = try row.decode((String, String, Int, String, Int).self)
            let key = "\(kind)/\(theme)/\(scale)/\(status)"
            guard let known = PictureKind(rawValue: kind) else {
                throw IndexError.corruptRow(table: "job_count", row: key, column: "kind", value: "'\(kind)'")
            }
            guard let themed = Theme(rawValue: theme) else {
                throw IndexError.corruptRow(table: "job_count", row: key, column: "theme", value: "'\(theme)'")
            }
            guard let state = JobStatus(rawValue: status) else {
                throw IndexError.corruptRow(table: "job_count", row: key, column: "status", value: "'\(status)'")
            }
            return (kind: known, theme: themed, scale: scale, status: state, count: count)
        }
    }
}
