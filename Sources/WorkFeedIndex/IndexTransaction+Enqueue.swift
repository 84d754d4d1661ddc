public import Foundation
import GRDB
public import WorkFeedModel

extension IndexTransaction {
    /// Makes sure the requested pictures exist and are current: missing jobs are created `pending`,
    /// `generated` ones whose cache key no longer matches their inputs become `pending` again.
    /// `failed-no-retry` jobs are left as they are. Pictures of workouts that lack what their kind
    /// needs (``PictureKind/needs``: a heatmap of a workout without heart-rate samples) are not
    /// queued: they are remembered, and a re-import that brings the input queues them; those
    /// lacking heart rate are counted in ``EnqueueReply/skippedNoHeartRate``.
    ///
    /// For each kind, theme and scale asked for, with an anchor of its own, in this order:
    /// 1. ``createMissingJobs(_:)`` (unless the request is for existing jobs only), and for a kind
    ///    that needs what a workout may lack, ``rememberWanted(workoutFilter:lacking:arguments:)``;
    /// 2. ``countWaitingAndFailed(_:)``: jobs already pending, and failures;
    /// 3. ``sortGenerated(_:cacheKey:)``: generated jobs whose key is current, and the stale ones;
    /// 4. with `includeFailed`, ``failedToRevive(_:)``, the failures to try again (of the codes asked for);
    /// 5. ``makePending(stale:_:)`` and ``revive(_:_:)``;
    /// 6. with a priority above 0 (an interactive request), ``raisePriority(_:)`` of what is waiting;
    /// 7. then, once for the whole request, ``boundInteractive(owner:bound:)`` of each owner it
    ///    concerns: an owner's first `interactivePerOwner` pending pictures above priority 0 keep
    ///    their priority, the rest wait as bulk work (priority 0).
    /// - Parameter cacheKey: the current cache key of a picture given its route and heart-rate
    ///   hashes and its workout's owner (whose privacy zones it hides).
    /// - Parameter interactivePerOwner: how many pending pictures of one owner may wait above
    ///   priority 0 (configuration's `jobs.interactive_per_owner`).
    public mutating func enqueue(
        _ request: EnqueueRequest, scales: [Int], now: Date = Date(), interactivePerOwner: Int = EnqueueRequest.defaultInteractivePerOwner,
        cacheKey: CacheKeyFunction
    ) throws -> EnqueueReply {
        var reply = EnqueueReply()
        let selection = WorkoutSelection(request)
        // Codes are checked by the caller to be short lower-case words; JSON-encoded all the same.
        let codesJSON: String? = request.reasonCodes.map { codes in
            String(decoding: (try? JSONEncoder().encode(codes)) ?? Data("[]".utf8), as: UTF8.self)
        }
        for kind in request.kinds {
            for theme in request.themes {
                for scale in request.scales ?? scales {
                    let scope = EnqueueScope(
                        kind: kind, theme: theme, scale: scale, anchor: nextAnchor(), request: request, selection: selection,
                        codesJSON: codesJSON, now: now)
                    if request.existingOnly != true {
                        reply.created += try createMissingJobs(scope)
                        if let condition = kind.workoutCondition {
                            try rememberWanted(workoutFilter: scope.workoutFilter, lacking: condition, arguments: scope.arguments)
                            if kind.usesHeartRate, reply.skippedNoHeartRate == nil {
                                reply.skippedNoHeartRate = try countLacking(
                                    workoutFilter: scope.workoutFilter, lacking: PictureInput.heartRate.workoutCondition ?? "1",
                                    arguments: scope.arguments)
                            }
                        }
                    }
                    let waiting = try countWaitingAndFailed(scope)
                    reply.alreadyPending += waiting.alreadyPending
                    let generated = try sortGenerated(scope, cacheKey: cacheKey)
                    reply.current += generated.current
                    let revived = request.includeFailed == true ? try failedToRevive(scope) : []
                    try makePending(stale: generated.stale, scope)
                    reply.stale += generated.stale.count
                    try revive(revived, scope)
                    reply.revived += revived.count
                    // Failures left as they are: all of them, or those whose code was not asked for.
                    reply.failed += waiting.failed - revived.count
                    if let priority = request.priority, priority > 0 { try raisePriority(scope) }
                }
            }
        }
        if let priority = request.priority, priority > 0 {
            // The gateway always names the owner; an operator's request without one may concern
            // any owner with interactive pictures waiting.
            let owners =
                try request.owner.map { [$0] }
                ?? String.fetchAll(db, sql: "SELECT DISTINCT owner FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority > 0")
            var bulk = 0
            for owner in owners { bulk += try boundInteractive(owner: owner, bound: interactivePerOwner, preferring: request.ids) }
            if bulk > 0 { reply.queuedAsBulk = bulk }
        }
        return reply
    }

    /// Keeps at most `bound` of `owner`'s pending jobs above priority 0 and makes the rest bulk
    /// work (priority 0), so that one owner's thousands of pictures asked at once cannot hold up
    /// everyone's interactive ones (issue 23, finding 6). Kept: the highest priority first; within
    /// one, the pictures of the workouts this request names (a feed row the owner looks at now),
    /// then the oldest (the first pictures of an upload). Each priority is a range of `job_fair`:
    /// only this owner's interactive jobs are read.
    /// - Parameter preferring: the workouts the request names, whose pictures are kept first.
    /// - Returns: how many jobs became bulk work.
    func boundInteractive(owner: String, bound: Int, preferring ids: [WorkoutID]? = nil) throws -> Int {
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

    /// The scope's generated jobs, by whether their cache key is still the current one.
    /// - Returns: how many are current, and the ids of the stale ones.
    private func sortGenerated(
        _ scope: EnqueueScope, cacheKey: CacheKeyFunction
    ) throws -> (current: Int, stale: [Int64]) {
        var current = 0
        var stale: [Int64] = []
        let generated = try Row.fetchCursor(
            db,
            sql: """
                SELECT j.id, j.workout_id, j.cache_key, w.route_hash, w.hr_hash, w.owner
                FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(scope.workoutFilter) AND j.status = 'generated'
                """,
            arguments: scope.arguments)
        while let row = try generated.next() {
            let job = RowDecoder(row, table: "job")
            let workout = RowDecoder(row, table: "workout", idColumn: 1)
            let picture = PictureID(workoutID: try job.workoutID(1, "workout_id"), kind: scope.kind, theme: scope.theme, scale: scope.scale)
            let key = cacheKey(picture, try workout.value(3, "route_hash"), try workout.value(4, "hr_hash"), try workout.value(5, "owner"))
            if (try job.optionalValue(2, "cache_key") as String?) == key {
                current += 1
            } else {
                stale.append(try job.value(0, "id"))
            }
        }
        return (current, stale)
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
private struct EnqueueScope {
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

    init(
        kind: PictureKind, theme: Theme, scale: Int, anchor: Int64, request: EnqueueRequest, selection: WorkoutSelection, codesJSON: String?,
        now: Date
    ) {
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
