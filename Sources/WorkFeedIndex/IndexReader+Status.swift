public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Job counts and the queue (STATUS, the job gauges)

extension IndexReader {
    /// Jobs per kind, theme, scale and status, of one owner's workouts or of all: from the counts
    /// the index keeps (`job_count`, `job_count_by_owner`, schema v9), a few rows whatever the
    /// number of jobs. Should a kept count hold a word this version cannot read, the jobs are
    /// counted instead, so that the error names the job row.
    /// - Throws: ``IndexError`` naming a job row with a kind, theme or status this version does
    ///   not know, or a database error.
    public func statusCounts(owner: String? = nil) throws -> [StatusCount] {
        let rows = try Row.fetchAll(db, sql: owner == nil ? Self.keptCounts : Self.keptCountsOfOwner, arguments: owner.map { [$0] } ?? [])
        do {
            return try rows.map(Self.statusCount)
        } catch {
            return try statusCountsCountingEveryJob(owner: owner)
        }
    }

    /// The kept counts, of all owners and of one (a few rows each).
    static let keptCounts = "SELECT kind, theme, scale, status, jobs, 0 FROM job_count WHERE jobs > 0 ORDER BY 1, 2, 3, 4"
    static let keptCountsOfOwner =
        "SELECT kind, theme, scale, status, jobs, 0 FROM job_count_by_owner WHERE owner = ? AND jobs > 0 ORDER BY 1, 2, 3, 4"
    /// The pending jobs still in back-off at a time: a range of `job_backing_off`.
    static let backingOff =
        "SELECT count(*) FROM job INDEXED BY job_backing_off WHERE status = 'pending' AND not_before IS NOT NULL AND not_before > ?"
    /// The oldest pending job's time: the first entry of `job_pending_age`.
    static let oldestPendingTime = "SELECT updated_at FROM job INDEXED BY job_pending_age WHERE status = 'pending' ORDER BY updated_at LIMIT 1"

    /// ``statusCounts(owner:)`` by counting every job (a GROUP BY over the job table): what
    /// STATUS did before schema v9, and what names a job row a kept count cannot read. Public for
    /// the benchmark that compares the two (`workfeed-bench --only scale`).
    public func statusCountsCountingEveryJob(owner: String? = nil) throws -> [StatusCount] {
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
    /// `workctl enqueue --wait` follows, four times a second. A selection of every workout, or of
    /// one owner's, is read from the kept counts (``statusCounts(owner:)``); one of ids, activities
    /// or a time window counts the selected jobs.
    public func statusCounts(of selection: EnqueueRequest, scales: [Int]) throws -> [StatusCount] {
        let kinds = Set(selection.kinds)
        let themes = Set(selection.themes)
        let wantedScales = Set(selection.scales ?? scales)
        if selection.ids == nil, selection.activities == nil, selection.since == nil, selection.until == nil {
            return try statusCounts(owner: selection.owner).filter {
                kinds.contains($0.kind) && themes.contains($0.theme) && wantedScales.contains($0.scale)
            }
        }
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
    public func mapCoverageCounts() throws -> [(kind: PictureKind, theme: Theme, map: String, count: Int)] {
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
    /// The pending jobs (kept counts, ``statusCounts(owner:)``) less those still waiting out a
    /// back-off (a range of `job_backing_off`): never a count of every pending job, which STATUS
    /// and every scrape would repeat.
    public func pendingReadyCount(now: Date = Date()) throws -> Int {
        let pending = try statusCounts().reduce(0) { $0 + ($1.status == .pending ? $1.count : 0) }
        let backingOff = try Int.fetchOne(db, sql: Self.backingOff, arguments: [now.timeIntervalSince1970]) ?? 0
        return max(0, pending - backingOff)
    }

    /// When the longest-waiting pending job was last changed (queued, or made pending again): the
    /// first entry of `job_pending_age` (schema v9), not a scan of the pending jobs.
    public func oldestPending() throws -> Date? {
        try Double.fetchOne(db, sql: Self.oldestPendingTime).map(Date.init(timeIntervalSince1970:))
    }
}

// MARK: The same answers by scanning, for the benchmark that compares (workfeed-bench --only scale)

extension IndexReader {
    /// ``oldestPending()`` as it was read before schema v9: a scan of every pending job.
    public func oldestPendingScanningEveryJob() throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT min(updated_at) FROM job NOT INDEXED WHERE status = 'pending'").map(Date.init(timeIntervalSince1970:))
    }

    /// ``pendingReadyCount(now:)`` as it was read before schema v9: a count of every pending job.
    public func pendingReadyCountScanningEveryJob(now: Date = Date()) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT count(*) FROM job INDEXED BY job_fair WHERE status = 'pending' AND (not_before IS NULL OR not_before <= ?)",
            arguments: [now.timeIntervalSince1970]) ?? 0
    }
}
