public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Job counts and the queue (STATUS, the job gauges)

extension IndexReader {
    /// Jobs per kind, theme, scale and status, of one owner's workouts or of all.
    /// - Throws: ``IndexError`` naming a job row with a kind, theme or status this version does
    ///   not know, or a database error.
    public func statusCounts(owner: String? = nil) throws -> [StatusCount] {
        let sql =
            owner == nil
            ? "SELECT kind, theme, scale, status, count(*) AS n, min(id) FROM job GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
            : """
            SELECT j.kind, j.theme, j.scale, j.status, count(*) AS n, min(j.id) FROM job j JOIN workout w ON w.id = j.workout_id
            WHERE w.owner = ?
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            """
        return try Row.fetchAll(db, sql: sql, arguments: owner.map { [$0] } ?? []).map(Self.statusCount)
    }

    /// Jobs per kind, theme and status among the pictures an ENQUEUE of `selection` covers (its
    /// kinds, themes and scales, `scales` when it names none, of the workouts it selects): what
    /// `workctl enqueue --wait` follows.
    public func statusCounts(of selection: EnqueueRequest, scales: [Int]) throws -> [StatusCount] {
        let workouts = WorkoutSelection(selection)
        var arguments: StatementArguments = [
            "kinds": WorkoutSelection.jsonArray(selection.kinds.map(\.rawValue)),
            "themes": WorkoutSelection.jsonArray(selection.themes.map(\.rawValue)),
            "scales": "[" + (selection.scales ?? scales).map(String.init).joined(separator: ",") + "]",
        ]
        arguments += workouts.arguments
        let join = workouts.conditions.isEmpty ? "" : " JOIN workout w ON w.id = j.workout_id"
        return try Row.fetchAll(
            db,
            sql: """
                SELECT j.kind, j.theme, j.scale, j.status, count(*) AS n, min(j.id) FROM job j\(join)
                WHERE j.kind IN (SELECT value FROM json_each(:kinds)) AND j.theme IN (SELECT value FROM json_each(:themes))
                    AND j.scale IN (SELECT value FROM json_each(:scales)) AND \(workouts.sql)
                GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                """, arguments: arguments
        ).map(Self.statusCount)
    }

    /// A row of kind, theme, scale, status, count and the smallest job id among them (which
    /// names the group in errors).
    private static func statusCount(_ row: Row) throws(IndexError) -> StatusCount {
        let job = RowDecoder(row, table: "job", idColumn: 5)
        return (
            try job.known(0, "kind"), try job.known(1, "theme"), try job.value(2, "scale"), try job.known(3, "status"), try job.value(4, "count(*)")
        )
    }

    /// Generated pictures by kind, theme and map coverage (`unknown` for pictures drawn before maps).
    public func mapCoverageCounts() throws -> [(kind: JobKind, theme: Theme, map: String, count: Int)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT kind, theme, coalesce(map, 'unknown') AS map, count(*) AS n, min(id) FROM job WHERE status = 'generated'
                GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                """
        ).map { row throws(IndexError) in
            let job = RowDecoder(row, table: "job", idColumn: 4)
            return (try job.known(0, "kind"), try job.known(1, "theme"), try job.value(2, "map"), try job.value(3, "count(*)"))
        }
    }

    /// Pending jobs past any back-off, leased ones included (leases are not in the index: see
    /// ``IndexTransaction/readyCount(now:)`` for the jobs ready to lease).
    public func pendingReadyCount(now: Date = Date()) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM job INDEXED BY job_fair WHERE status = 'pending' AND (not_before IS NULL OR not_before <= ?)",
            arguments: [now.timeIntervalSince1970]) ?? 0
    }

    /// When the longest-waiting pending job was last changed (queued, or made pending again).
    public func oldestPending() throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT min(updated_at) FROM job WHERE status = 'pending'").map(Date.init(timeIntervalSince1970:))
    }
}
