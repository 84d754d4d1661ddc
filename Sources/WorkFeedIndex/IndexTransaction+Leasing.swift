public import Foundation
import GRDB
import WorkFeedModel

extension IndexTransaction {
    // MARK: Taking leases

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
            // Read whole before anything is leased; the workout's columns and its series are named
            // in errors by the job's workout id.
            let job = RowDecoder(select, table: "job")
            let workout = RowDecoder(select, table: "workout", idColumn: 1)
            let series = RowDecoder(select, table: "series", idColumn: 1)
            let picture = PictureID(
                workoutID: try job.rawWorkoutID(1, "workout_id"), kind: try job.rawKnown(2, "kind"), theme: try job.rawKnown(3, "theme"),
                scale: Int(select.int64(4)))
            let anchor = select.int64(5)
            let routeHash = try workout.rawText(6, "route_hash")
            let heartRateHash = try workout.rawText(7, "hr_hash")
            let route = try series.rawBytes(8, "route")
            let heartRate = try series.rawBytes(9, "heart_rate")
            let owner = try workout.rawText(10, "owner")

            while remaining[slot] == 0 { slot = (slot + 1) % remaining.count }
            remaining[slot] -= 1
            let worker = slots[slot].worker
            slot = (slot + 1) % remaining.count
            let lease = nextLease()
            leases.add(lease, LeaseTable.Lease(jobID: id, anchor: anchor, picture: picture, worker: worker, deadline: expires))
            jobs.append(
                LeasedJob(
                    jobID: id, lease: lease, worker: worker, picture: picture, owner: owner, routeHash: routeHash, heartRateHash: heartRateHash,
                    route: route, heartRate: heartRate))
        }
        return jobs
    }

    /// Remembers the cache key sent with a lease's JOB: a `generated` report quoting another one
    /// is not taken as the picture (see ``complete(_:from:retry:now:)``).
    public mutating func recordCacheKey(_ key: String, for lease: UInt64) {
        leases.setCacheKey(key, for: lease)
    }

    // MARK: Ending leases without a report

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
            if countAttempt {
                effects.append(try retryOrFail(entry, reason: reason, code: FailureCode.guess(fromReason: reason), retry: retry, now: now))
            }
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
}
