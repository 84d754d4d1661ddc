public import Foundation
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
        return try rows.decoded("the job counts") { try statusCount($0, table: "job_count") }
    }

    /// A row of kind, theme, scale, status and count.
    static func statusCount(
        _ row: PostgresRow, table: String
    ) throws(IndexError) -> (kind: PictureKind, theme: Theme, scale: Int, status: JobStatus, count: Int) {
        let (kind, theme, scale, status, count): (String, String, Int, String, Int)
        do { (kind, theme, scale, status, count) = try row.decode((String, String, Int, String, Int).self) } catch {
            throw IndexError(.failed, "a count of \(table) could not be read: \(String(reflecting: error))", cause: error)
        }
        let key = "\(kind)/\(theme)/\(scale)/\(status)"
        guard let known = PictureKind(rawValue: kind) else { throw IndexError.corruptRow(table: table, row: key, column: "kind", value: "'\(kind)'") }
        guard let themed = Theme(rawValue: theme) else { throw IndexError.corruptRow(table: table, row: key, column: "theme", value: "'\(theme)'") }
        guard let state = JobStatus(rawValue: status) else {
            throw IndexError.corruptRow(table: table, row: key, column: "status", value: "'\(status)'")
        }
        return (kind: known, theme: themed, scale: scale, status: state, count: count)
    }

    /// Pending jobs past any back-off (the database's clock), leased ones included, whoever
    /// holds them (``IndexReading/pendingReadyCount(now:)``): the kept pending count less those
    /// backing off, a range of `job_backing_off`.
    public static func pendingReadyCount(in session: PostgresSession) throws(IndexError) -> Int {
        let pending = try statusCounts(owner: nil, in: session).reduce(0) { $0 + ($1.status == .pending ? $1.count : 0) }
        let backingOff =
            try session.query(
                "SELECT count(*)::bigint FROM job WHERE status = 'pending' AND not_before IS NOT NULL AND not_before > now()",
                "counting the jobs backing off"
            ).firstDecoded("the jobs backing off") { try $0.decode(Int.self) } ?? 0
        return max(0, pending - backingOff)
    }

    /// When the longest-waiting pending job was last changed: the first entry of `job_pending_age`.
    public static func oldestPending(in session: PostgresSession) throws(IndexError) -> Date? {
        try session.query(
            "SELECT updated_at FROM job WHERE status = 'pending' ORDER BY updated_at LIMIT 1", "reading the oldest pending job"
        ).firstDecoded("the oldest pending job") { try $0.decode(Date.self) }
    }

    /// Jobs that failed for good, from the kept counts.
    public static func failedCount(in session: PostgresSession) throws(IndexError) -> Int {
        try statusCounts(owner: nil, in: session).reduce(0) { $0 + ($1.status == .failedNoRetry ? $1.count : 0) }
    }

    /// Failures for good grouped by code, the largest first, each with its newest reason as an
    /// example (``IndexReading/failureGroups(limit:)``).
    public static func failureGroups(limit: Int, in session: PostgresSession) throws(IndexError) -> [(code: String, count: Int, example: String)] {
        try session.query(
            """
            SELECT coalesce(reason_code, 'transient'), count(*)::bigint, (array_agg(coalesce(reason, '') ORDER BY updated_at DESC, id DESC))[1]
            FROM job WHERE status = 'failed-no-retry' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT \(limit)
            """, "grouping the failures"
        ).decoded("the failures") { row in
            let (code, count, example) = try row.decode((String, Int, String).self)
            return (code: code, count: count, example: example)
        }
    }
}
