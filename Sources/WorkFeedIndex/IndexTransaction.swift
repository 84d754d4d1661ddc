public import Foundation
public import GRDB
public import WorkFeedModel

/// The index operations of one transaction (see ``WorkoutIndex/write(_:)``).
public struct IndexTransaction {
    public let db: Database
    /// The last anchor handed out in this transaction.
    var anchor: Int64
    /// The leases, as this transaction has left them so far.
    public internal(set) var leases: LeaseTable
    /// Cache keys no job refers to any more after this transaction (a picture drawn again under a
    /// new key, a workout deleted): their by-content files (``CacheLayout/relativePath(forKey:)``)
    /// can go once it has committed.
    public internal(set) var releasedKeys: [String] = []

    init(db: Database, anchor: Int64, leases: LeaseTable) {
        self.db = db
        self.anchor = anchor
        self.leases = leases
    }

    mutating func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    /// The last anchor handed out, including this transaction's changes so far.
    public var anchorSoFar: Int64 { anchor }

    /// Read queries inside this transaction.
    public var reader: IndexReader { IndexReader(db: db) }

    // MARK: Workouts (imports: IndexTransaction+Import.swift)

    /// Deletes workouts, their series and their jobs, leaving a tombstone for `changes` (reported
    /// to the workout's owner).
    /// - Parameter owner: when given, only that owner's workouts are deleted; another owner's ids
    ///   are left alone, as if they were not in the index.
    /// - Returns: the pictures each deleted workout had, so their files can be removed; ids not in
    ///   the index (or not `owner`'s) are left out.
    public mutating func delete(_ ids: [WorkoutID], owner: String? = nil) throws -> [WorkoutID: [PictureID]] {
        var deleted: [WorkoutID: [PictureID]] = [:]
        for id in ids {
            guard let stored = try String.fetchOne(db, sql: "SELECT owner FROM workout WHERE id = ?", arguments: [id.description]),
                owner == nil || stored == owner
            else { continue }
            let rows = try Row.fetchAll(db, sql: "SELECT workout_id, kind, theme, scale, cache_key FROM job WHERE workout_id = ?", arguments: [id.description])
            let pictures = try rows.map(Self.picture)
            try db.execute(sql: "DELETE FROM workout WHERE id = ?", arguments: [id.description])
            for case let key? in rows.map({ $0["cache_key"] as String? }) { try release(key) }
            try db.execute(
                sql: """
                    INSERT INTO deleted_workout (id, anchor, owner) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET anchor = excluded.anchor, owner = excluded.owner
                    """,
                arguments: [id.description, nextAnchor(), stored])
            deleted[id] = pictures
        }
        // Their leases end; the workers' reports will find nothing.
        for lease in leases.leases(onWorkouts: Set(deleted.keys)) { leases.remove(lease) }
        return deleted
    }

    // MARK: Jobs

    /// Makes sure the requested pictures exist and are current: missing jobs are created `pending`,
    /// `generated` ones whose cache key no longer matches their inputs become `pending` again.
    /// `failed-no-retry` jobs are left as they are. Heatmaps of workouts without heart-rate samples
    /// are not queued: they are counted in ``EnqueueReply/skippedNoHeartRate`` and remembered, and
    /// a re-import that brings heart rate queues them.
    /// - Parameter cacheKey: the current cache key of a picture given its route and heart-rate
    ///   hashes and its workout's owner (whose privacy zones it hides).
    public mutating func enqueue(
        _ request: EnqueueRequest, scales: [Int], now: Date = Date(),
        cacheKey: (PictureID, _ routeHash: String, _ heartRateHash: String, _ owner: String) -> String
    ) throws -> EnqueueReply {
        var reply = EnqueueReply()
        let selection = WorkoutSelection(request)
        let conditions = selection.conditions
        let workoutFilter = selection.sql
        // Codes are checked by the caller to be short lower-case words; JSON-encoded all the same.
        let codesJSON: String? = request.reasonCodes.map { codes in
            String(decoding: (try? JSONEncoder().encode(codes)) ?? Data("[]".utf8), as: UTF8.self)
        }
        for kind in request.kinds {
            for theme in request.themes {
                for scale in request.scales ?? scales {
                    let anchor = nextAnchor()
                    var arguments: StatementArguments = [
                        "kind": kind.rawValue, "theme": theme.rawValue, "scale": scale, "now": now.timeIntervalSince1970, "anchor": anchor,
                        "priority": request.priority ?? 0, "codes": codesJSON,
                    ]
                    arguments += selection.arguments
                    if request.existingOnly != true {
                        // A heatmap needs heart-rate samples: for a workout without them it is
                        // remembered instead of queued (it could only fail), and queued when a
                        // re-import brings heart rate.
                        let heartRateFilter = kind == .heatmap ? " AND w.hr_samples > 0" : ""
                        try db.execute(
                        sql: """
                            INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor)
                            SELECT w.id, :kind, :theme, :scale, 'pending', :priority, :now, :anchor FROM workout w
                            WHERE \(workoutFilter)\(heartRateFilter)
                            ORDER BY w.id -- in the unique index's order: appends instead of random B-tree inserts
                            ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                            """, arguments: arguments)
                        reply.created += db.changesCount
                        if kind == .heatmap {
                            try db.execute(
                                sql: """
                                    INSERT INTO heatmap_wanted (workout_id, theme, scale, priority)
                                    SELECT w.id, :theme, :scale, :priority FROM workout w WHERE \(workoutFilter) AND w.hr_samples = 0
                                    ON CONFLICT (workout_id, theme, scale) DO UPDATE SET priority = max(priority, excluded.priority)
                                    """, arguments: arguments)
                            if reply.skippedNoHeartRate == nil {
                                reply.skippedNoHeartRate = try Int.fetchOne(
                                    db, sql: "SELECT count(*) FROM workout w WHERE \(workoutFilter) AND w.hr_samples = 0", arguments: arguments) ?? 0
                            }
                        }
                    }

                    // Counting is SQL's work; only generated jobs need a look from Swift, to compare
                    // their cache key with the current one.
                    let scope =
                        conditions.isEmpty
                        ? "FROM job j WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale"
                        : "FROM job j JOIN workout w ON w.id = j.workout_id WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(workoutFilter)"
                    var failedHere = 0
                    for row in try Row.fetchAll(
                        db, sql: "SELECT j.status, j.anchor = :anchor AS fresh, count(*) AS n \(scope) AND j.status != 'generated' GROUP BY 1, 2",
                        arguments: arguments)
                    {
                        let count: Int = row["n"]
                        switch JobStatus(rawValue: row["status"]) {
                        case .pending: if !(row["fresh"] as Bool) { reply.alreadyPending += count }
                        case .failedNoRetry: failedHere += count
                        default: break
                        }
                    }
                    var stale: [Int64] = []
                    let generated = try Row.fetchCursor(
                        db,
                        sql: """
                            SELECT j.id, j.workout_id, j.cache_key, w.route_hash, w.hr_hash, w.owner
                            FROM job j JOIN workout w ON w.id = j.workout_id
                            WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(workoutFilter) AND j.status = 'generated'
                            """,
                        arguments: arguments)
                    while let row = try generated.next() {
                        let picture = PictureID(workoutID: WorkoutID(row["workout_id"] as String)!, kind: kind, theme: theme, scale: scale)
                        if row["cache_key"] as String? == cacheKey(picture, row["route_hash"], row["hr_hash"], row["owner"]) {
                            reply.current += 1
                        } else {
                            stale.append(row["id"])
                        }
                    }
                    var revive: [Int64] = []
                    if request.includeFailed == true {
                        let codeFilter = request.reasonCodes == nil ? "" : " AND j.reason_code IN (SELECT value FROM json_each(:codes))"
                        revive = try Int64.fetchAll(db, sql: "SELECT j.id \(scope) AND j.status = 'failed-no-retry'\(codeFilter)", arguments: arguments)
                    }
                    let makeStale = try db.cachedStatement(
                        sql: """
                            UPDATE job SET status = 'pending', attempts = 0, deferrals = 0, reason = NULL, reason_code = NULL, priority = ?,
                                updated_at = ?, anchor = ?
                            WHERE id = ?
                            """)
                    for id in stale {
                        try makeStale.execute(arguments: [request.priority ?? 0, now.timeIntervalSince1970, anchor, id])
                    }
                    reply.stale += stale.count
                    for id in revive {
                        try db.execute(
                            sql: """
                                UPDATE job SET status = 'pending', attempts = 0, deferrals = 0, reason = NULL, reason_code = NULL,
                                    not_before = NULL, priority = ?, updated_at = ?, anchor = ?
                                WHERE id = ?
                                """,
                            arguments: [request.priority ?? 0, now.timeIntervalSince1970, anchor, id])
                    }
                    reply.revived += revive.count
                    // Failures left as they are: all of them, or those whose code was not asked for.
                    reply.failed += failedHere - revive.count
                    if let priority = request.priority, priority > 0 {
                        // An interactive request moves what is already waiting to the front.
                        try db.execute(
                            sql: """
                                UPDATE job SET priority = :priority
                                WHERE status = 'pending' AND priority < :priority AND kind = :kind AND theme = :theme
                                    AND scale = :scale AND workout_id IN (SELECT w.id FROM workout w WHERE \(workoutFilter))
                                """, arguments: arguments)
                    }
                }
            }
        }
        return reply
    }

    // MARK: Leases

    /// The leases as they stand in this transaction.
    public var leasedCount: Int { leases.count }

    /// Pending jobs that could be leased now: not leased, past any back-off.
    public func readyCount(now: Date = Date()) throws -> Int {
        // Every leased job was ready when leased and still counts as ready in the index.
        max(0, try reader.pendingReadyCount(now: now) - leases.count)
    }

    /// Leases up to `limit` ready jobs to `worker` (see ``lease(_:now:deadline:nextLease:)``).
    public mutating func lease(
        limit: Int, to worker: String, now: Date = Date(), deadline: Double = 120, nextLease: () -> UInt64
    ) throws -> [LeasedJob] {
        try lease([(worker, limit)], now: now, deadline: deadline, nextLease: nextLease)
    }

    /// Leases ready jobs (pending, not leased, past any back-off), highest priority first, then
    /// oldest, to workers with free slots: up to `count` each, dealt one at a time in the order
    /// given, so that a few ready jobs spread over idle workers instead of queueing on the first.
    /// - Parameter nextLease: hands out a new lease id each call.
    /// - Parameter deadline: how long a worker has; past it the job is leased again
    ///   (see ``expireLeases(now:retry:)``).
    public mutating func lease(
        _ slots: [(worker: String, count: Int)], now: Date = Date(), deadline: Double = 120, nextLease: () -> UInt64
    ) throws -> [LeasedJob] {
        let wanted = slots.reduce(0) { $0 + max(0, $1.count) }
        guard wanted > 0 else { return [] }
        // The queue's covering index gives ids in order without touching the table; jobs out with
        // a worker are still `pending` there and are skipped.
        let ready = try RawStatement(
            db,
            sql: """
                SELECT id FROM job INDEXED BY job_queue
                WHERE status = 'pending' AND (not_before IS NULL OR not_before <= ?1)
                ORDER BY priority DESC, id
                """)
        ready.bind(1, now.timeIntervalSince1970)
        var ids: [Int64] = []
        ids.reserveCapacity(wanted)
        while ids.count < wanted, try ready.step() {
            let id = ready.int64(0)
            if !leases.isLeased(job: id) { ids.append(id) }
        }
        ready.reset()
        guard !ids.isEmpty else { return [] }

        // One statement for all of them, in the order found: the ids as a JSON array.
        let select = try RawStatement(
            db,
            sql: """
                SELECT j.id, j.workout_id, j.kind, j.theme, j.scale, j.anchor, w.route_hash, w.hr_hash, s.route, s.heart_rate, w.owner
                FROM json_each(?1) AS q CROSS JOIN job j ON j.id = q.value CROSS JOIN workout w ON w.id = j.workout_id
                    CROSS JOIN series s ON s.workout_id = j.workout_id
                """)
        select.bind(1, "[" + ids.map(String.init).joined(separator: ",") + "]")
        defer { select.reset() }
        var remaining = slots.map { max(0, $0.count) }
        var slot = 0
        let expires = now.timeIntervalSince1970 + deadline
        var jobs: [LeasedJob] = []
        jobs.reserveCapacity(ids.count)
        while try select.step() {
            let id = select.int64(0)
            guard let workoutID = select.withText(1, WorkoutID.init(utf8:)), let kind = JobKind(rawValue: select.text(2)),
                let theme = Theme(rawValue: select.text(3))
            else { throw IndexError("job \(id) has a malformed workout id, kind or theme") }
            while remaining[slot] == 0 { slot = (slot + 1) % remaining.count }
            remaining[slot] -= 1
            let worker = slots[slot].worker
            slot = (slot + 1) % remaining.count
            let picture = PictureID(workoutID: workoutID, kind: kind, theme: theme, scale: Int(select.int64(4)))
            let lease = nextLease()
            let anchor = select.int64(5)
            leases.add(lease, LeaseTable.Lease(jobID: id, anchor: anchor, picture: picture, worker: worker, deadline: expires))
            jobs.append(
                LeasedJob(
                    jobID: id, lease: lease, worker: worker, picture: picture, owner: select.text(10), routeHash: select.text(6),
                    heartRateHash: select.text(7),
                    route: select.bytes(8), heartRate: select.bytes(9)))
        }
        return jobs
    }

    /// Remembers the cache key sent with a lease's JOB: a `generated` report quoting another one
    /// is not taken as the picture (see ``complete(_:from:retry:now:)``).
    public mutating func recordCacheKey(_ key: String, for lease: UInt64) {
        leases.setCacheKey(key, for: lease)
    }

    /// Records `worker`'s report on a lease. A report for a lease that is not current (never
    /// given, already reported, taken back, given to another worker, or on inputs that have changed
    /// since) changes nothing.
    public mutating func complete(_ report: JobReportRecord, from worker: String, retry: RetryPolicy, now: Date = Date()) throws -> CompletionEffect {
        guard let lease = leases[report.lease], lease.worker == worker else { return .staleLease }
        leases.remove(report.lease)
        switch report.outcome {
        case .generated where lease.cacheKey != nil && lease.cacheKey != report.detail:
            // Stored as generated, the key would claim a picture of other inputs.
            return try retryOrFail(
                lease, reason: "the worker reported cache key \(report.detail.prefix(64)), the job's is \(lease.cacheKey ?? "")",
                code: .keyMismatch, retry: retry, now: now)
        case .generated:
            let previous = try String.fetchOne(db.cachedStatement(sql: "SELECT cache_key FROM job WHERE id = ?"), arguments: [lease.jobID])
            let update = try RawStatement(
                db,
                sql: """
                    UPDATE job SET status = 'generated', cache_key = ?1, reason = NULL, reason_code = NULL, attempts = 0, deferrals = 0,
                        priority = 0, not_before = NULL, updated_at = ?2, anchor = ?3, map = ?6
                    WHERE id = ?4 AND anchor = ?5 AND status = 'pending'
                    """)
            update.bind(1, report.detail)
            update.bind(2, now.timeIntervalSince1970)
            update.bind(3, anchor + 1)
            update.bind(4, lease.jobID)
            update.bind(5, lease.anchor)
            update.bind(6, report.map.rawValue)
            try update.execute()
            guard update.changes == 1 else { return .staleLease }
            anchor += 1
            if let previous, previous != report.detail { try release(previous) }
            return .updated(lease.picture, .generated, reason: nil, retryAt: nil, code: nil)
        case .failedNoRetry:
            guard try attempts(of: lease) != nil else { return .staleLease }
            let code = report.code ?? FailureCode.guess(fromReason: report.detail)
            try markFailed(lease.jobID, reason: report.detail, code: code, now: now, anchor: nextAnchor())
            if code == .hiddenByPrivacy {
                // The picture drawn before the owner's zones hid the whole route shows what is now
                // hidden: it must not stay readable under its old key.
                let previous = try String.fetchOne(db.cachedStatement(sql: "SELECT cache_key FROM job WHERE id = ?"), arguments: [lease.jobID])
                try db.execute(sql: "UPDATE job SET cache_key = NULL WHERE id = ?", arguments: [lease.jobID])
                if let previous { try release(previous) }
            }
            return .updated(lease.picture, .failedNoRetry, reason: report.detail, retryAt: nil, code: code)
        case .failedRetry:
            let code = report.code ?? FailureCode.guess(fromReason: report.detail)
            if code.isEnvironmental { return try putOff(lease, reason: report.detail, code: code, retry: retry, now: now) }
            return try retryOrFail(lease, reason: report.detail, code: code, retry: retry, now: now)
        }
    }

    /// Ends a lease whose JOB never reached its worker, without counting an attempt: the job is
    /// ready again at once.
    /// - Returns: whether the lease was current.
    @discardableResult
    public mutating func returnLease(_ lease: UInt64) -> Bool {
        leases.remove(lease) != nil
    }

    /// Takes back the leases of a worker that is gone.
    /// - Parameter countAttempt: whether the loss counts against the jobs (a worker that died or went
    ///   silent may have been killed by the job; one that said goodbye was not).
    /// - Returns: what happened to each job whose lease still mattered; the others are ready again
    ///   without a change to the index.
    public mutating func releaseLeases(
        of worker: String, reason: String, countAttempt: Bool = true, retry: RetryPolicy, now: Date = Date()
    ) throws -> [CompletionEffect] {
        var effects: [CompletionEffect] = []
        for (lease, entry) in leases.leases(of: worker) {
            leases.remove(lease)
            if countAttempt { effects.append(try retryOrFail(entry, reason: reason, code: FailureCode.guess(fromReason: reason), retry: retry, now: now)) }
        }
        return effects.filter { $0 != .staleLease }
    }

    /// Leases past their deadline go back to the queue, counting an attempt: a job that keeps
    /// timing out ends `failed-no-retry` instead of holding the pool forever.
    public mutating func expireLeases(now: Date = Date(), retry: RetryPolicy) throws -> [CompletionEffect] {
        var effects: [CompletionEffect] = []
        for (lease, entry) in leases.expired(at: now.timeIntervalSince1970) {
            leases.remove(lease)
            effects.append(try retryOrFail(entry, reason: "timed out on worker \(entry.worker)", code: .timedOut, retry: retry, now: now))
        }
        return effects.filter { $0 != .staleLease }
    }

    /// Notes `key` in ``releasedKeys`` when no job refers to it any more.
    private mutating func release(_ key: String) throws {
        let used = try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM job WHERE cache_key = ? LIMIT 1"), arguments: [key])
        if used == nil { releasedKeys.append(key) }
    }

    /// The job's attempts so far, when the lease is still current: the job is still pending with
    /// the inputs it was leased with.
    private func attempts(of lease: LeaseTable.Lease) throws -> Int? {
        let select = try RawStatement(db, sql: "SELECT attempts FROM job WHERE id = ?1 AND anchor = ?2 AND status = 'pending'")
        select.bind(1, lease.jobID)
        select.bind(2, lease.anchor)
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : nil
    }

    private func markFailed(_ jobID: Int64, reason: String, code: FailureCode, now: Date, anchor: Int64) throws {
        try db.execute(
            sql: "UPDATE job SET status = 'failed-no-retry', reason = ?, reason_code = ?, not_before = NULL, updated_at = ?, anchor = ? WHERE id = ?",
            arguments: [reason, code.rawValue, now.timeIntervalSince1970, anchor, jobID])
    }

    /// A lease that ended without a picture: the job waits and is tried again, or, after its last
    /// attempt, fails for good.
    private mutating func retryOrFail(
        _ lease: LeaseTable.Lease, reason: String, code: FailureCode, retry: RetryPolicy, now: Date
    ) throws -> CompletionEffect {
        guard let previous = try attempts(of: lease) else { return .staleLease }
        let attempts = previous + 1
        let anchor = nextAnchor()
        if attempts >= retry.maximumAttempts {
            let final = "gave up after \(attempts) attempts: \(reason)"
            try markFailed(lease.jobID, reason: final, code: code, now: now, anchor: anchor)
            return .updated(lease.picture, .failedNoRetry, reason: final, retryAt: nil, code: code)
        }
        let retryAt = now.addingTimeInterval(retry.backoff(afterAttempt: attempts))
        try db.execute(
            sql: "UPDATE job SET reason = ?, reason_code = ?, attempts = ?, not_before = ?, updated_at = ?, anchor = ? WHERE id = ?",
            arguments: [reason, code.rawValue, attempts, retryAt.timeIntervalSince1970, now.timeIntervalSince1970, anchor, lease.jobID])
        return .updated(lease.picture, .pending, reason: reason, retryAt: retryAt, code: code)
    }

    /// A lease that ended on a failure of the worker's surroundings (its cache full, say): the job
    /// is not at fault, so no attempt counts; it waits longer each time, up to the policy's
    /// maximum, and is tried again for as long as it takes.
    private mutating func putOff(
        _ lease: LeaseTable.Lease, reason: String, code: FailureCode, retry: RetryPolicy, now: Date
    ) throws -> CompletionEffect {
        let select = try RawStatement(db, sql: "SELECT deferrals FROM job WHERE id = ?1 AND anchor = ?2 AND status = 'pending'")
        select.bind(1, lease.jobID)
        select.bind(2, lease.anchor)
        defer { select.reset() }
        guard try select.step() else { return .staleLease }
        let deferrals = Int(select.int64(0)) + 1
        let retryAt = now.addingTimeInterval(retry.environmentBackoff(afterDeferral: deferrals))
        try db.execute(
            sql: "UPDATE job SET reason = ?, reason_code = ?, deferrals = ?, not_before = ?, updated_at = ?, anchor = ? WHERE id = ?",
            arguments: [reason, code.rawValue, deferrals, retryAt.timeIntervalSince1970, now.timeIntervalSince1970, nextAnchor(), lease.jobID])
        return .updated(lease.picture, .pending, reason: reason, retryAt: retryAt, code: code)
    }

    static func picture(_ row: Row) throws -> PictureID {
        guard let id = WorkoutID(row["workout_id"] as String), let kind = JobKind(rawValue: row["kind"]),
            let theme = Theme(rawValue: row["theme"])
        else { throw IndexError("corrupt job row \(row)") }
        return PictureID(workoutID: id, kind: kind, theme: theme, scale: row["scale"])
    }
}
