public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Enqueue: SQLite's steps (the rules: EnqueueRules.swift)

extension IndexTransaction: EnqueueStorage {
    public struct Scope {
        fileprivate let scope: EnqueueScope
    }

    public mutating func enqueueScope(_ picture: EnqueuePicture, now: Date) -> Scope {
        Scope(scope: EnqueueScope(picture, anchor: nextAnchor(), now: now))
    }

    public mutating func createMissingJobs(_ scope: Scope) throws -> Int { try createMissingJobs(scope.scope) }

    public mutating func rememberWanted(_ scope: Scope, lacking condition: String) throws {
        try rememberWanted(workoutFilter: scope.scope.workoutFilter, lacking: condition, arguments: scope.scope.arguments)
    }

    public func countLacking(_ scope: Scope, lacking condition: String) throws -> Int {
        try countLacking(workoutFilter: scope.scope.workoutFilter, lacking: condition, arguments: scope.scope.arguments)
    }

    public func countWaitingAndFailed(_ scope: Scope) throws -> (alreadyPending: Int, failed: Int) { try countWaitingAndFailed(scope.scope) }

    public func generatedJobs(
        _ scope: Scope,
        _ body: (_ job: Int64, _ workout: WorkoutID, _ key: String?, _ inputs: PictureInputs) throws -> Void
    ) throws {
        try generatedJobs(scope.scope, body)
    }

    public func failedToRevive(_ scope: Scope) throws -> [Int64] { try failedToRevive(scope.scope) }

    public mutating func makePending(stale: [Int64], _ scope: Scope) throws { try makePending(stale: stale, scope.scope) }

    public mutating func revive(_ ids: [Int64], _ scope: Scope) throws { try revive(ids, scope.scope) }

    public mutating func raisePriority(_ scope: Scope) throws { try raisePriority(scope.scope) }

    public func ownersWithInteractiveJobs() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT owner FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority > 0")
    }

    /// Keeps at most `bound` of `owner`'s pending jobs above priority 0 and makes the rest bulk
    /// work (priority 0), so that one owner's thousands of pictures asked at once cannot hold up
    /// everyone's interactive ones (issue 23, finding 6). Kept: the highest priority first; within
    /// one, the pictures of the workouts this request names (a feed row the owner looks at now),
    /// then the oldest (the first pictures of an upload). Each priority is a range of `job_fair`:
    /// only this owner's interactive jobs are read.
    /// - Parameter preferring: the workouts the request names, whose pictures are kept first.
    /// - Returns: how many jobs became bulk work.
    public func boundInteractive(owner: String, bound: Int, preferring ids: [WorkoutID]? = nil) throws -> Int {
        var kept = 0
        var demoted = 0
        var priority = Int64.max
        let nextLevel = try db.cachedStatement(
            sql: """
                SELECT priority FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority < ? AND priority > 0 AND owner = ?
                ORDER BY priority DESC LIMIT 1
                """)
        let demote = try db.cachedStatement(
            sql: """
                UPDATE job SET priority = 0 WHERE id IN (
                    SELECT id FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority = ? AND owner = ?
                    ORDER BY workout_id IN (SELECT value FROM json_each(?)) DESC, id LIMIT -1 OFFSET ?)
                """)
        let preferred = WorkoutSelection.jsonArray((ids ?? []).map(\.description))
        let count = try db.cachedStatement(
            sql: "SELECT count(*) FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority = ? AND owner = ?")
        while let level = try Int64.fetchOne(nextLevel, arguments: [priority, owner]) {
            priority = level
            let keep = max(0, bound - kept)
            try demote.execute(arguments: [level, owner, preferred, keep])
            demoted += db.changesCount
            kept += try Int.fetchOne(count, arguments: [level, owner]) ?? 0
        }
        return demoted
    }

    /// Creates the missing jobs of the scope's picture, `pending`, for the selected workouts that
    /// have what its kind needs (``PictureKind/workoutCondition``): for a workout without it the
    /// picture is remembered instead of queued (it could only fail;
    /// ``rememberWanted(workoutFilter:lacking:arguments:)``).
    /// - Returns: how many were created.
    private func createMissingJobs(_ scope: EnqueueScope) throws -> Int {
        let needsFilter = scope.kind.workoutCondition.map { " AND \($0)" } ?? ""
        try db.execute(
            sql: """
                INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor, owner)
                SELECT w.id, :kind, :theme, :scale, 'pending', :priority, :now, :anchor, w.owner FROM workout w
                WHERE \(scope.workoutFilter)\(needsFilter)
                ORDER BY w.id -- in the unique index's order: appends instead of random B-tree inserts
                ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                """, arguments: scope.arguments)
        return db.changesCount
    }

    /// The scope's jobs that were pending before this enqueue (not those it has just created or
    /// made pending: their anchor is the scope's), and the `failed-no-retry` ones. Counting is
    /// SQL's work; only generated jobs need a look from Swift (``sortGenerated(_:cacheKey:)``).
    private func countWaitingAndFailed(_ scope: EnqueueScope) throws -> (alreadyPending: Int, failed: Int) {
        var alreadyPending = 0
        var failed = 0
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT j.status, j.anchor = :anchor AS fresh, count(*) AS n, min(j.id) \(scope.jobs) AND j.status != 'generated' GROUP BY 1, 2",
            arguments: scope.arguments)
        for row in rows {
            let decoder = RowDecoder(row, table: "job", idColumn: 3)
            let count: Int = try decoder.value(2, "count(*)")
            switch try decoder.known(0, "status") as JobStatus {
            case .pending: if !(try decoder.value(1, "anchor") as Bool) { alreadyPending += count }
            case .failedNoRetry: failed += count
            case .generated: break
            }
        }
        return (alreadyPending, failed)
    }

    /// The scope's generated jobs, with what their current key is made of.
    private func generatedJobs(
        _ scope: EnqueueScope,
        _ body: (_ job: Int64, _ workout: WorkoutID, _ key: String?, _ inputs: PictureInputs) throws -> Void
    ) throws {
        let generated = try Row.fetchCursor(
            db,
            sql: """
                SELECT j.id, j.workout_id, j.cache_key, \(PictureInputs.selection)
                FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(scope.workoutFilter) AND j.status = 'generated'
                """,
            arguments: scope.arguments)
        while let row = try generated.next() {
            let job = RowDecoder(row, table: "job")
            let workout = RowDecoder(row, table: "workout", idColumn: 1)
            try body(try job.value(0, "id"), try job.workoutID(1, "workout_id"), try job.optionalValue(2, "cache_key"), try workout.inputs(from: 3))
        }
    }

    /// The scope's `failed-no-retry` jobs to try again: all of them, or those of the codes asked for.
    private func failedToRevive(_ scope: EnqueueScope) throws -> [Int64] {
        let codeFilter = scope.codesJSON == nil ? "" : " AND j.reason_code IN (SELECT value FROM json_each(:codes))"
        return try Int64.fetchAll(db, sql: "SELECT j.id \(scope.jobs) AND j.status = 'failed-no-retry'\(codeFilter)", arguments: scope.arguments)
    }

    /// Stale generated jobs become pending again, at the request's priority, their attempts and
    /// failures forgotten.
    private func makePending(stale: [Int64], _ scope: EnqueueScope) throws {
        let makeStale = try db.cachedStatement(
            sql: """
                UPDATE job SET status = 'pending', attempts = 0, deferrals = 0, reason = NULL, reason_code = NULL, priority = ?,
                    updated_at = ?, anchor = ?
                WHERE id = ?
                """)
        for id in stale {
            try makeStale.execute(arguments: [scope.priority, scope.now, scope.anchor, id])
        }
    }

    /// Failed jobs become pending again, ready at once, their attempts and failures forgotten.
    private func revive(_ ids: [Int64], _ scope: EnqueueScope) throws {
        for id in ids {
            try db.execute(
                sql: """
                    UPDATE job SET status = 'pending', attempts = 0, deferrals = 0, reason = NULL, reason_code = NULL,
                        not_before = NULL, priority = ?, updated_at = ?, anchor = ?
                    WHERE id = ?
                    """,
                arguments: [scope.priority, scope.now, scope.anchor, id])
        }
    }

    /// An interactive request moves what is already waiting to the front.
    private func raisePriority(_ scope: EnqueueScope) throws {
        try db.execute(
            sql: """
                UPDATE job SET priority = :priority
                WHERE status = 'pending' AND priority < :priority AND kind = :kind AND theme = :theme
                    AND scale = :scale AND workout_id IN (SELECT w.id FROM workout w WHERE \(scope.workoutFilter))
                """, arguments: scope.arguments)
    }
}

/// One picture (kind, theme, scale) of an enqueue, over the workouts it selects: the SQL and
/// named arguments every step shares (`:kind`, `:theme`, `:scale`, `:now`, `:anchor`,
/// `:priority`, `:codes` and the selection's).
fileprivate struct EnqueueScope {
    let kind: PictureKind
    let theme: Theme
    let scale: Int
    /// The anchor every job this step creates or changes takes.
    let anchor: Int64
    let priority: Int
    /// Seconds since 1970.
    let now: Double
    /// The failure codes to revive, as a JSON array; `nil` for all.
    let codesJSON: String?
    /// ``WorkoutSelection/sql``: a condition on `workout w`.
    let workoutFilter: String
    /// `FROM … WHERE …` of the scope's jobs `j` (joined with their workouts `w` only when the
    /// selection needs them), to which a step adds its own conditions.
    let jobs: String
    let arguments: StatementArguments

    init(_ picture: EnqueuePicture, anchor: Int64, now: Date) {
        let request = picture.request
        let selection = WorkoutSelection(request)
        let (kind, theme, scale) = (picture.kind, picture.theme, picture.scale)
        // Codes are checked by the caller to be short lower-case words; JSON-encoded all the same.
        let codesJSON: String? = request.reasonCodes.map { codes in
            String(decoding: (try? JSONEncoder().encode(codes)) ?? Data("[]".utf8), as: UTF8.self)
        }
        self.kind = kind
        self.theme = theme
        self.scale = scale
        self.anchor = anchor
        self.priority = request.priority ?? 0
        self.now = now.timeIntervalSince1970
        self.codesJSON = codesJSON
        workoutFilter = selection.sql
        jobs =
            selection.conditions.isEmpty
            ? "FROM job j WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale"
            : "FROM job j JOIN workout w ON w.id = j.workout_id WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(workoutFilter)"
        var arguments: StatementArguments = [
            "kind": kind.rawValue, "theme": theme.rawValue, "scale": scale, "now": self.now, "anchor": anchor,
            "priority": priority, "codes": codesJSON,
        ]
        arguments += selection.arguments
        self.arguments = arguments
    }
}
