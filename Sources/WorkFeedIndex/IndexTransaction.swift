public import Foundation
public import GRDB
public import WorkFeedModel

/// A job handed to a worker: its identity, the hashes its cache key is made of, and its series
/// exactly as stored.
public struct LeasedJob: Sendable, Hashable {
    public var jobID: Int64
    public var lease: UInt64
    public var picture: PictureID
    public var routeHash: String
    public var heartRateHash: String
    public var route: [UInt8]
    public var heartRate: [UInt8]
}

/// What a worker's report did to a job.
public enum CompletionEffect: Sendable, Hashable {
    /// The report was for a lease that is no longer current (re-leased, or the inputs changed):
    /// ignored.
    case staleLease
    /// The job now has this status; `retryAt` is set when a transient failure will be retried.
    case updated(PictureID, JobStatus, reason: String?, retryAt: Date?)
}

/// How transient failures are retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts (leases that came back without a picture) after which a job is `failed-no-retry`.
    public var maximumAttempts: Int
    /// The wait before the first retry; it doubles with each attempt, up to ``maximumBackoff``.
    public var initialBackoff: Double
    public var maximumBackoff: Double

    public init(maximumAttempts: Int = 3, initialBackoff: Double = 1, maximumBackoff: Double = 60) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    func backoff(afterAttempt attempt: Int) -> Double {
        min(maximumBackoff, initialBackoff * pow(2, Double(max(0, attempt - 1))))
    }
}

/// The index operations of one transaction (see ``WorkoutIndex/write(_:)``).
public struct IndexTransaction {
    public let db: Database
    /// The last anchor handed out in this transaction.
    var anchor: Int64

    init(db: Database, anchor: Int64) {
        self.db = db
        self.anchor = anchor
    }

    mutating func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    /// The last anchor handed out, including this transaction's changes so far.
    public var anchorSoFar: Int64 { anchor }

    /// Read queries inside this transaction.
    public var reader: IndexReader { IndexReader(db: db) }

    // MARK: Workouts

    /// Stores an imported workout, or updates the known one with the same source and source id.
    ///
    /// A workout whose route or heart-rate series differs from the stored one gets the next route
    /// version, and every picture of it becomes `pending` again, failed ones too.
    public mutating func importWorkout(_ workout: ImportedWorkout) throws -> ImportReply {
        let route = SeriesCodec.encode(workout.route)
        let heartRate = SeriesCodec.encode(workout.heartRate)
        let routeHash = SHA256.hex(route)
        let heartRateHash = SHA256.hex(heartRate)
        let sourceID = workout.sourceID ?? "sha256:" + SHA256.hex(route + heartRate)
        let summary = WorkoutSummary(route: workout.route, heartRate: workout.heartRate, start: workout.start, end: workout.end)

        let existing = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT id, route_version, route_hash, hr_hash FROM workout WHERE source = ? AND source_id = ?"),
            arguments: [workout.source.rawValue, sourceID])
        guard let existing else {
            let id = WorkoutID.derived(source: workout.source, sourceID: sourceID)
            let anchor = nextAnchor()
            try db.cachedStatement(sql: """
                    INSERT INTO workout (id, source, source_id, activity, name, start_at, end_at, tz_offset, distance,
                        duration, elevation_gain, hr_avg, hr_max, point_count, route_version, route_hash, hr_hash, anchor)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
                    """).execute(
                arguments: [
                    id.description, workout.source.rawValue, sourceID, workout.activity.rawValue, workout.name,
                    summary.start?.timeIntervalSince1970, summary.end?.timeIntervalSince1970, workout.timeZoneOffset,
                    summary.distance, summary.duration, summary.elevationGain, summary.heartRateAverage,
                    summary.heartRateMax, summary.pointCount, routeHash, heartRateHash, anchor,
                ])
            try db.cachedStatement(sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)").execute(
                arguments: [id.description, Data(route), Data(heartRate)])
            try db.cachedStatement(sql: "DELETE FROM deleted_workout WHERE id = ?").execute(
                arguments: [id.description])
            return ImportReply(id: id, result: .imported, routeVersion: 1)
        }

        let id = WorkoutID(existing["id"] as String)!
        var version: Int = existing["route_version"]
        let changed = existing["route_hash"] != routeHash || existing["hr_hash"] != heartRateHash
        if !changed {
            return ImportReply(id: id, result: .unchanged, routeVersion: version)
        }
        version += 1
        let anchor = nextAnchor()
        try db.execute(
            sql: """
                UPDATE workout SET activity = ?, name = ?, start_at = ?, end_at = ?, tz_offset = ?, distance = ?,
                    duration = ?, elevation_gain = ?, hr_avg = ?, hr_max = ?, point_count = ?, route_version = ?,
                    route_hash = ?, hr_hash = ?, anchor = ?
                WHERE id = ?
                """,
            arguments: [
                workout.activity.rawValue, workout.name, summary.start?.timeIntervalSince1970,
                summary.end?.timeIntervalSince1970, workout.timeZoneOffset, summary.distance, summary.duration,
                summary.elevationGain, summary.heartRateAverage, summary.heartRateMax, summary.pointCount, version,
                routeHash, heartRateHash, anchor, id.description,
            ])
        try db.execute(
            sql: "UPDATE series SET route = ?, heart_rate = ? WHERE workout_id = ?",
            arguments: [Data(route), Data(heartRate), id.description])
        // Clearing the lease makes a worker's late report on the old inputs stale.
        try db.execute(
            sql: """
                UPDATE job SET status = 'pending', reason = NULL, attempts = 0, lease_id = NULL, leased_to = NULL, lease_deadline = NULL,
                    not_before = NULL, updated_at = ?, anchor = ?
                WHERE workout_id = ?
                """,
            arguments: [Date().timeIntervalSince1970, anchor, id.description])
        return ImportReply(id: id, result: .updated, routeVersion: version)
    }

    /// Deletes workouts, their series and their jobs, leaving a tombstone for `changes`.
    /// - Returns: the pictures each deleted workout had, so their files can be removed; ids not in
    ///   the index are left out.
    public mutating func delete(_ ids: [WorkoutID]) throws -> [WorkoutID: [PictureID]] {
        var deleted: [WorkoutID: [PictureID]] = [:]
        for id in ids {
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM workout WHERE id = ?", arguments: [id.description]) != nil else { continue }
            let pictures = try Row.fetchAll(db, sql: "SELECT workout_id, kind, theme, scale FROM job WHERE workout_id = ?", arguments: [id.description])
                .map(Self.picture)
            try db.execute(sql: "DELETE FROM workout WHERE id = ?", arguments: [id.description])
            try db.execute(
                sql: "INSERT INTO deleted_workout (id, anchor) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET anchor = excluded.anchor",
                arguments: [id.description, nextAnchor()])
            deleted[id] = pictures
        }
        return deleted
    }

    // MARK: Jobs

    /// Makes sure the requested pictures exist and are current: missing jobs are created `pending`,
    /// `generated` ones whose cache key no longer matches their inputs become `pending` again.
    /// `failed-no-retry` jobs are left as they are.
    /// - Parameter cacheKey: the current cache key of a picture given its route and heart-rate hashes.
    public mutating func enqueue(
        _ request: EnqueueRequest, scales: [Int], now: Date = Date(),
        cacheKey: (PictureID, _ routeHash: String, _ heartRateHash: String) -> String
    ) throws -> EnqueueReply {
        var reply = EnqueueReply()
        let idsJSON: String? = request.ids.map { ids in
            "[" + ids.map { "\"\($0.description)\"" }.joined(separator: ",") + "]"
        }
        var conditions: [String] = []
        if idsJSON != nil { conditions.append("w.id IN (SELECT value FROM json_each(:ids))") }
        if request.activities != nil { conditions.append("w.activity IN (SELECT value FROM json_each(:activities))") }
        if request.since != nil { conditions.append("w.start_at >= :since") }
        if request.until != nil { conditions.append("w.start_at < :until") }
        let workoutFilter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        let activitiesJSON: String? = request.activities.map { list in
            "[" + list.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        }
        for kind in request.kinds {
            for theme in request.themes {
                for scale in request.scales ?? scales {
                    let anchor = nextAnchor()
                    let arguments: StatementArguments = [
                        "kind": kind.rawValue, "theme": theme.rawValue, "scale": scale, "ids": idsJSON,
                        "now": now.timeIntervalSince1970, "anchor": anchor, "priority": request.priority ?? 0,
                        "activities": activitiesJSON, "since": request.since?.timeIntervalSince1970,
                        "until": request.until?.timeIntervalSince1970,
                    ]
                    if request.existingOnly != true {
                        try db.execute(
                        sql: """
                            INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor)
                            SELECT w.id, :kind, :theme, :scale, 'pending', :priority, :now, :anchor FROM workout w
                            WHERE \(workoutFilter)
                            ORDER BY w.id -- in the unique index's order: appends instead of random B-tree inserts
                            ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                            """, arguments: arguments)
                        reply.created += db.changesCount
                    }

                    // Counting is SQL's work; only generated jobs need a look from Swift, to compare
                    // their cache key with the current one.
                    let scope =
                        conditions.isEmpty
                        ? "FROM job j WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale"
                        : "FROM job j JOIN workout w ON w.id = j.workout_id WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(workoutFilter)"
                    for row in try Row.fetchAll(
                        db, sql: "SELECT j.status, j.anchor = :anchor AS fresh, count(*) AS n \(scope) AND j.status != 'generated' GROUP BY 1, 2",
                        arguments: arguments)
                    {
                        let count: Int = row["n"]
                        switch JobStatus(rawValue: row["status"]) {
                        case .pending: if !(row["fresh"] as Bool) { reply.alreadyPending += count }
                        case .failedNoRetry: if request.includeFailed != true { reply.failed += count }
                        default: break
                        }
                    }
                    var stale: [Int64] = []
                    let generated = try Row.fetchCursor(
                        db,
                        sql: """
                            SELECT j.id, j.workout_id, j.cache_key, w.route_hash, w.hr_hash
                            FROM job j JOIN workout w ON w.id = j.workout_id
                            WHERE j.kind = :kind AND j.theme = :theme AND j.scale = :scale AND \(workoutFilter) AND j.status = 'generated'
                            """,
                        arguments: arguments)
                    while let row = try generated.next() {
                        let picture = PictureID(workoutID: WorkoutID(row["workout_id"] as String)!, kind: kind, theme: theme, scale: scale)
                        if row["cache_key"] as String? == cacheKey(picture, row["route_hash"], row["hr_hash"]) {
                            reply.current += 1
                        } else {
                            stale.append(row["id"])
                        }
                    }
                    var revive: [Int64] = []
                    if request.includeFailed == true {
                        revive = try Int64.fetchAll(db, sql: "SELECT j.id \(scope) AND j.status = 'failed-no-retry'", arguments: arguments)
                    }
                    let makeStale = try db.cachedStatement(
                        sql: "UPDATE job SET status = 'pending', attempts = 0, reason = NULL, priority = ?, updated_at = ?, anchor = ? WHERE id = ?")
                    for id in stale {
                        try makeStale.execute(arguments: [request.priority ?? 0, now.timeIntervalSince1970, anchor, id])
                    }
                    reply.stale += stale.count
                    for id in revive {
                        try db.execute(
                            sql: """
                                UPDATE job SET status = 'pending', attempts = 0, reason = NULL, not_before = NULL, priority = ?,
                                    updated_at = ?, anchor = ?
                                WHERE id = ?
                                """,
                            arguments: [request.priority ?? 0, now.timeIntervalSince1970, anchor, id])
                    }
                    reply.revived += revive.count
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

    /// Leases up to `limit` ready jobs (pending, not leased, past any back-off) to `worker`,
    /// highest priority first, then oldest.
    /// - Parameter nextLease: hands out a new lease id each call.
    /// - Parameter deadline: how long the worker has; past it the job is leased again (see ``expireLeases(now:retry:)``).
    public func lease(
        limit: Int, to worker: String, now: Date = Date(), deadline: Double = 120, nextLease: () -> UInt64
    ) throws -> [LeasedJob] {
        guard limit > 0 else { return [] }
        // Cached statements: leasing and reporting run for every job, thousands of times a second.
        let select = try db.cachedStatement(
            sql: """
                SELECT j.id, j.workout_id, j.kind, j.theme, j.scale, w.route_hash, w.hr_hash, s.route, s.heart_rate
                FROM job j JOIN workout w ON w.id = j.workout_id JOIN series s ON s.workout_id = j.workout_id
                WHERE j.status = 'pending' AND j.lease_id IS NULL AND (j.not_before IS NULL OR j.not_before <= ?)
                ORDER BY j.priority DESC, j.id
                LIMIT ?
                """)
        let rows = try Row.fetchAll(select, arguments: [now.timeIntervalSince1970, limit])
        var jobs: [LeasedJob] = []
        jobs.reserveCapacity(rows.count)
        let statement = try db.cachedStatement(sql: "UPDATE job SET lease_id = ?, leased_to = ?, lease_deadline = ? WHERE id = ?")
        let expires = now.timeIntervalSince1970 + deadline
        for row in rows {
            guard let id = WorkoutID(row["workout_id"] as String),
                let kind = JobKind(rawValue: row["kind"]), let theme = Theme(rawValue: row["theme"])
            else { continue }
            let lease = nextLease()
            let jobID: Int64 = row["id"]
            // SQLite integers are signed; the lease's bits are stored as they are.
            try statement.execute(arguments: [Int64(bitPattern: lease), worker, expires, jobID])
            let route: Data = row["route"]
            let heartRate: Data = row["heart_rate"]
            jobs.append(
                LeasedJob(
                    jobID: jobID, lease: lease, picture: PictureID(workoutID: id, kind: kind, theme: theme, scale: row["scale"]),
                    routeHash: row["route_hash"], heartRateHash: row["hr_hash"], route: Array(route), heartRate: Array(heartRate)))
        }
        return jobs
    }

    /// Records a worker's report on a lease.
    public mutating func complete(_ report: JobReportRecord, retry: RetryPolicy, now: Date = Date()) throws -> CompletionEffect {
        if report.outcome == .generated {
            // The common case in one statement: the update says which job it was, or (no row) that
            // the lease is no longer current.
            let update = try db.cachedStatement(
                sql: """
                    UPDATE job SET status = 'generated', cache_key = ?, reason = NULL, attempts = 0, priority = 0, lease_id = NULL,
                        leased_to = NULL, lease_deadline = NULL, not_before = NULL, updated_at = ?, anchor = ?
                    WHERE lease_id = ?
                    RETURNING workout_id, kind, theme, scale
                    """)
            guard
                let row = try Row.fetchOne(
                    update, arguments: [report.detail, now.timeIntervalSince1970, anchor + 1, Int64(bitPattern: report.lease)])
            else { return .staleLease }
            anchor += 1
            return .updated(try Self.picture(row), .generated, reason: nil, retryAt: nil)
        }
        let select = try db.cachedStatement(sql: "SELECT id, workout_id, kind, theme, scale, attempts FROM job WHERE lease_id = ?")
        guard let row = try Row.fetchOne(select, arguments: [Int64(bitPattern: report.lease)]) else { return .staleLease }
        let picture = try Self.picture(row)
        let jobID: Int64 = row["id"]
        let anchor = nextAnchor()
        if report.outcome == .failedNoRetry {
            try markFailed(jobID, reason: report.detail, now: now, anchor: anchor)
            return .updated(picture, .failedNoRetry, reason: report.detail, retryAt: nil)
        }
        return try retryOrFail(jobID, picture: picture, attempts: row["attempts"] as Int + 1, reason: report.detail, retry: retry, now: now, anchor: anchor)
    }

    /// Returns the jobs leased to a worker that is gone to the queue.
    /// - Parameter countAttempt: whether the loss counts against the jobs (a worker that died or went
    ///   silent may have been killed by the job; one that said goodbye was not).
    public mutating func releaseLeases(
        of worker: String, reason: String, countAttempt: Bool = true, retry: RetryPolicy, now: Date = Date()
    ) throws -> [CompletionEffect] {
        guard countAttempt else {
            try db.execute(
                sql: "UPDATE job SET lease_id = NULL, leased_to = NULL, lease_deadline = NULL, anchor = ? WHERE leased_to = ? AND lease_id IS NOT NULL",
                arguments: [nextAnchor(), worker])
            return []
        }
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, workout_id, kind, theme, scale, attempts FROM job WHERE leased_to = ? AND lease_id IS NOT NULL",
            arguments: [worker])
        var effects: [CompletionEffect] = []
        for row in rows {
            let anchor = nextAnchor()
            effects.append(
                try retryOrFail(row["id"], picture: try Self.picture(row), attempts: row["attempts"] as Int + 1, reason: reason, retry: retry, now: now, anchor: anchor))
        }
        return effects
    }

    /// Leases past their deadline go back to the queue, counting an attempt: a job that keeps
    /// timing out ends `failed-no-retry` instead of holding the pool forever.
    public mutating func expireLeases(now: Date = Date(), retry: RetryPolicy) throws -> [CompletionEffect] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT id, workout_id, kind, theme, scale, attempts, leased_to, lease_deadline FROM job
                WHERE lease_id IS NOT NULL AND lease_deadline < ?
                """,
            arguments: [now.timeIntervalSince1970])
        var effects: [CompletionEffect] = []
        for row in rows {
            let anchor = nextAnchor()
            let reason = "timed out on worker \(row["leased_to"] as String? ?? "?")"
            effects.append(
                try retryOrFail(row["id"], picture: try Self.picture(row), attempts: row["attempts"] as Int + 1, reason: reason, retry: retry, now: now, anchor: anchor))
        }
        return effects
    }

    /// Clears every lease without counting an attempt: at start-up, the leases of a previous run
    /// belong to no worker this coordinator knows.
    public func releaseAllLeases() throws -> Int {
        try db.execute(sql: "UPDATE job SET lease_id = NULL, leased_to = NULL, lease_deadline = NULL WHERE lease_id IS NOT NULL")
        return db.changesCount
    }

    private func markFailed(_ jobID: Int64, reason: String, now: Date, anchor: Int64) throws {
        try db.execute(
            sql: """
                UPDATE job SET status = 'failed-no-retry', reason = ?, lease_id = NULL, leased_to = NULL, lease_deadline = NULL,
                    not_before = NULL, updated_at = ?, anchor = ?
                WHERE id = ?
                """,
            arguments: [reason, now.timeIntervalSince1970, anchor, jobID])
    }

    private func retryOrFail(
        _ jobID: Int64, picture: PictureID, attempts: Int, reason: String, retry: RetryPolicy, now: Date, anchor: Int64
    ) throws -> CompletionEffect {
        if attempts >= retry.maximumAttempts {
            let final = "gave up after \(attempts) attempts: \(reason)"
            try markFailed(jobID, reason: final, now: now, anchor: anchor)
            return .updated(picture, .failedNoRetry, reason: final, retryAt: nil)
        }
        let retryAt = now.addingTimeInterval(retry.backoff(afterAttempt: attempts))
        try db.execute(
            sql: """
                UPDATE job SET status = 'pending', reason = ?, attempts = ?, lease_id = NULL, leased_to = NULL, lease_deadline = NULL,
                    not_before = ?, updated_at = ?, anchor = ?
                WHERE id = ?
                """,
            arguments: [reason, attempts, retryAt.timeIntervalSince1970, now.timeIntervalSince1970, anchor, jobID])
        return .updated(picture, .pending, reason: reason, retryAt: retryAt)
    }

    static func picture(_ row: Row) throws -> PictureID {
        guard let id = WorkoutID(row["workout_id"] as String), let kind = JobKind(rawValue: row["kind"]),
            let theme = Theme(rawValue: row["theme"])
        else { throw IndexError("corrupt job row \(row)") }
        return PictureID(workoutID: id, kind: kind, theme: theme, scale: row["scale"])
    }
}

/// A worker's report as the index records it (the wire's `JobReport`, without depending on the wire).
public struct JobReportRecord: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable { case generated, failedNoRetry, failedRetry }
    public var lease: UInt64
    public var outcome: Outcome
    /// The cache key for `generated`, the reason otherwise.
    public var detail: String

    public init(lease: UInt64, outcome: Outcome, detail: String) {
        self.lease = lease
        self.outcome = outcome
        self.detail = detail
    }
}

extension WorkoutID {
    /// A stable id for a source's workout, so that the same file gets the same id in any index:
    /// the first 16 bytes of SHA-256("source\u{0}sourceID"), marked as an RFC 9562 version 8 UUID.
    static func derived(source: WorkoutSource, sourceID: String) -> WorkoutID {
        var hasher = SHA256()
        hasher.update(source.rawValue + "\u{0}" + sourceID)
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
        return WorkoutID(uuid)
    }
}
