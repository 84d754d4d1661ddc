public import Foundation
import GRDB
public import WorkFeedModel

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

    /// Leases ready jobs (pending, not leased, past any back-off) to workers with free slots: up to
    /// `count` each, dealt one at a time in the order given, so that a few ready jobs spread over
    /// idle workers instead of queueing on the first.
    ///
    /// Which jobs (``fairReadyJobs(wanted:now:)``): the highest priority first; within a priority,
    /// owners take turns, each owner's oldest job first. One owner's flood of pictures therefore
    /// shares the workers with every other owner that has work at the same priority instead of
    /// holding them until it is done (issue 23, finding 6).
    /// - Parameter nextLease: hands out a new lease id each call.
    /// - Parameter deadline: how long a worker has; past it the job is leased again
    ///   (see ``expireLeases(now:retry:)``).
    public mutating func lease(
        _ slots: [(worker: String, count: Int)], now: Date = Date(), deadline: Double = 120, nextLease: () -> UInt64
    ) throws -> [LeasedJob] {
        let wanted = slots.reduce(0) { $0 + max(0, $1.count) }
        guard wanted > 0 else { return [] }
        let ids = try fairReadyJobs(wanted: wanted, now: now)
        guard !ids.isEmpty else { return [] }

        // One statement for all of them, in the order found: the ids as a JSON array.
        let select = try RawStatement(
            db,
            sql: """
                SELECT j.id, j.workout_id, j.kind, j.theme, j.scale, j.anchor, s.route, s.heart_rate, \(PictureInputs.selection)
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
            let route = try series.rawBytes(6, "route")
            let heartRate = try series.rawBytes(7, "heart_rate")
            let inputs = try workout.inputs(from: 8)

            while remaining[slot] == 0 { slot = (slot + 1) % remaining.count }
            remaining[slot] -= 1
            let worker = slots[slot].worker
            slot = (slot + 1) % remaining.count
            let lease = nextLease()
            leases.add(lease, LeaseTable.Lease(jobID: id, anchor: anchor, picture: picture, worker: worker, deadline: expires))
            jobs.append(
                LeasedJob(jobID: id, lease: lease, worker: worker, picture: picture, inputs: inputs, route: route, heartRate: heartRate))
        }
        return jobs
    }

    /// Up to `wanted` ready jobs, fairly over owners, in the order they are to be leased.
    ///
    /// Priorities are served highest first. Within one priority the owners that have jobs there
    /// take turns, starting with the one after the owner served last at that priority
    /// (``LeaseTable/lastOwnerServed``, so turns go on across batches); each turn gives an owner
    /// an equal share of what is left to lease, its oldest ready jobs first, and owners that have
    /// fewer leave their share to the others. Everything is a seek in `job_fair` (priority,
    /// owner, id), never a scan of the queue: the next priority, the next owner at a priority, and
    /// an owner's next jobs; leased jobs and jobs in back-off are skipped as they come.
    private mutating func fairReadyJobs(wanted: Int, now: Date) throws -> [Int64] {
        let nextPriority = try RawStatement(
            db,
            sql: """
                SELECT priority FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority < ?1 ORDER BY priority DESC LIMIT 1
                """)
        let nextOwner = try RawStatement(
            db,
            sql: """
                SELECT owner FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority = ?1 AND owner > ?2 ORDER BY owner LIMIT 1
                """)
        let firstOwner = try RawStatement(
            db, sql: "SELECT owner FROM job INDEXED BY job_fair WHERE status = 'pending' AND priority = ?1 ORDER BY owner LIMIT 1")
        let ownersJobs = try RawStatement(
            db,
            sql: """
                SELECT id FROM job INDEXED BY job_fair
                WHERE status = 'pending' AND priority = ?1 AND owner = ?2 AND id > ?3 AND (not_before IS NULL OR not_before <= ?4)
                ORDER BY id
                """)
        let seconds = now.timeIntervalSince1970
        var ids: [Int64] = []
        ids.reserveCapacity(wanted)
        var priority = Int64.max
        while ids.count < wanted {
            nextPriority.bind(1, priority)
            defer { nextPriority.reset() }
            guard try nextPriority.step() else { break }
            priority = nextPriority.int64(0)
            // The owners at this priority in turn, from the one after the last served; listed as
            // they are needed, at most one for each slot left to fill.
            var owners: [String] = []
            var listed = Set<String>()
            var allListed = false
            var after = leases.lastOwnerServed[priority]
            var wrapped = false
            var lastID: [String: Int64] = [:]
            while ids.count < wanted {
                while !allListed, owners.count < wanted - ids.count {
                    let statement = after == nil ? firstOwner : nextOwner
                    statement.bind(1, priority)
                    if let after { statement.bind(2, after) }
                    let found = try statement.step() ? statement.text(0) : nil
                    statement.reset()
                    if let owner = found, listed.insert(owner).inserted {
                        owners.append(owner)
                        after = owner
                    } else if found == nil, !wrapped, after != nil {
                        // Past the last owner: on from the first.
                        wrapped = true
                        after = nil
                    } else {
                        allListed = true
                    }
                }
                if owners.isEmpty { break }
                // An equal share of what is left for each; an owner with fewer ready jobs than
                // its share is done at this priority and leaves the rest to the others.
                let share = max(1, (wanted - ids.count) / owners.count)
                var stillReady: [String] = []
                for owner in owners where ids.count < wanted {
                    ownersJobs.bind(1, priority)
                    ownersJobs.bind(2, owner)
                    ownersJobs.bind(3, lastID[owner] ?? -1)
                    ownersJobs.bind(4, seconds)
                    var taken = 0
                    let limit = min(share, wanted - ids.count)
                    while taken < limit, try ownersJobs.step() {
                        let id = ownersJobs.int64(0)
                        lastID[owner] = id
                        if leases.isLeased(job: id) { continue }
                        ids.append(id)
                        taken += 1
                    }
                    ownersJobs.reset()
                    if taken > 0 { leases.lastOwnerServed[priority] = owner }
                    if taken == limit { stillReady.append(owner) }
                }
                owners = stillReady
            }
        }
        return ids
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
    /// - Parameters:
    ///   - reason: for people, stored with the job when the loss counts.
    ///   - code: why, as a code (`worker-silent`, `worker-restarted`, `worker-unreachable`).
    ///   - countAttempt: whether the loss counts against the jobs (a worker that died or went
    ///     silent may have been killed by the job; one that said goodbye was not).
    /// - Returns: what happened to each job whose lease still mattered; the others are ready again
    ///   without a change to the index.
    public mutating func releaseLeases(
        of worker: String, reason: String, code: FailureCode, countAttempt: Bool = true, retry: RetryPolicy, now: Date = Date()
    ) throws -> [CompletionEffect] {
        var effects: [CompletionEffect] = []
        for (lease, entry) in leases.leases(of: worker) {
            leases.remove(lease)
            if countAttempt {
                effects.append(try retryOrFail(entry, reason: reason, code: code, retry: retry, now: now))
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

    /// The one writer of a SQLite index leads from open to close: one term, always the same, so
    /// that the coordinator does the start sweeps once per start.
    public mutating func lead(now: Date) -> LeadershipTerm? { LeadershipTerm(holder: "the only writer", number: 1) }
}
