import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// Leases kept in the job rows, shared by every coordinator of one index (docs/postgres-index.md,
/// "Leases in the database"). A lease has two times: the render deadline (the job's fault: past
/// it the holder takes the job back and an attempt counts) and the expiry (the coordinator's: its
/// holder renews it while it lives; past it any coordinator's claim takes the job, no attempt
/// counted, as a restarted SQLite coordinator costs its jobs nothing). Both are the database's
/// `now()`: no coordinator's clock is compared with another's.
///
/// Every function runs inside the caller's transaction (``PostgresSession/transaction(_:_:)``).
public enum PostgresLeases {
    /// A job one claim leased.
    public struct Claim: Sendable, Hashable {
        /// Its place in the fair order of its claim: jobs are handed out in this order.
        public var order: Int
        public var job: LeasedJob
        public var priority: Int
        /// The job's anchor when it was leased: a report counts while the job keeps it.
        public var anchor: Int64
    }

    /// How long a lease lives without being renewed (``renew(coordinator:leaseSeconds:in:)``):
    /// a dead coordinator's jobs are claimed again this long after its last renewal.
    public static let defaultLeaseSeconds = 30.0

    /// Leases ready jobs (pending, not backing off, not leased or their lease expired), as
    /// ``IndexWriting/lease(_:now:deadline:nextLease:)`` orders them: the highest priority first;
    /// within a priority, owners in turn from the one after `lastServed`'s, each owner's oldest
    /// first; dealt one at a time over `slots` in the order given. A job another claim has
    /// locked at this moment is skipped, never waited for: two coordinators claiming at once get
    /// different jobs.
    /// - Parameters:
    ///   - lastServed: the owner this coordinator served last at each priority; its turns go on
    ///     from there (``lastServed(after:_:)``).
    ///   - deadline: the render deadline, seconds from now.
    /// - Returns: the leases in their fair order.
    public static func claim(
        coordinator: String, slots: [(worker: String, count: Int)], lastServed: [Int64: String], deadline: Double,
        leaseSeconds: Double = defaultLeaseSeconds, in session: PostgresSession
    ) throws(IndexError) -> [Claim] {
        // One entry a free slot, dealt in turn over the workers.
        var dealt: [String] = []
        var remaining = slots.map { max(0, $0.count) }
        while remaining.contains(where: { $0 > 0 }) {
            for index in slots.indices where remaining[index] > 0 {
                dealt.append(slots[index].worker)
                remaining[index] -= 1
            }
        }
        guard !dealt.isEmpty else { return [] }
        let served = lastServed.sorted { $0.key > $1.key }
        let priorities = served.map(\.key)
        let owners = served.map(\.value)
        // Candidates: four for every slot, room for the jobs other coordinators are claiming now.
        let candidates = 4 * dealt.count
        var query = PostgresQuery(unsafeSQL: "SELECT * FROM pg_temp.workfeed_claim($1, $2, $3, $4, $5, $6, $7, $8)")
        query.binds.append(coordinator)
        query.binds.append(dealt)
        query.binds.append(dealt.count)
        query.binds.append(priorities)
        query.binds.append(owners)
        query.binds.append(deadline)
        query.binds.append(leaseSeconds)
        query.binds.append(candidates)
        let rows = try session.query(query, "leasing jobs")
        let claims = try rows.decoded("the jobs leased") { row in
            let cells = row.makeRandomAccess()
            let jobID = try cells[1].decode(Int64.self)
            let picture = try picture(
                "job", row: String(jobID), workout: cells[6].decode(UUID.self), kind: cells[7].decode(String.self),
                theme: cells[8].decode(String.self), scale: cells[9].decode(Int.self))
            let job = LeasedJob(
                jobID: jobID, lease: UInt64(bitPattern: try cells[2].decode(Int64.self)), worker: try cells[3].decode(String.self),
                picture: picture, inputs: try inputs(row, workout: 6, from: 14),
                route: Array(try cells[11].decode(ByteBuffer.self).readableBytesView),
                heartRate: Array(try cells[12].decode(ByteBuffer.self).readableBytesView), policyVersion: try cells[13].decode(Int64.self))
            return Claim(
                order: try cells[0].decode(Int.self), job: job, priority: try cells[4].decode(Int.self), anchor: try cells[10].decode(Int64.self))
        }
        // RETURNING's order is not defined: the fair order is the claim's own.
        return claims.sorted { $0.order < $1.order }
    }

    /// What a picture's key is made of, from the cells of ``PictureInputs/columnNames`` from
    /// `index` on, read by the index's own decoder (``IndexReader/pictureInputs(_:)``) and named
    /// in its errors by the workout id in cell `workout`.
    static func inputs(_ row: PostgresRow, workout: Int, from index: Int) throws(IndexError) -> PictureInputs {
        try IndexReader.pictureInputs(
            row.storedValues(from: workout, names: ["workout_id"]) + row.storedValues(from: index, names: PictureInputs.columnNames))
    }

    /// The types of ``PictureInputs/columnNames``, as a function's result columns (`w_route_hash
    /// text, …`), prefixed so that they name no other column of the result.
    static let inputsColumns = PictureInputs.columnNames.map { name in
        let type: String
        switch name {
        case "tz_offset": type = "integer"
        case "route_hash", "hr_hash", "owner", "activity", "name", "device_figures", "place": type = "text"
        default: type = "float8"
        }
        return "w_\(name) \(type)"
    }.joined(separator: ", ")

    /// The picture a row names; a kind or theme this version does not know is a corrupt row.
    static func picture(_ table: String, row: String, workout: UUID, kind: String, theme: String, scale: Int) throws(IndexError) -> PictureID {
        guard let known = PictureKind(rawValue: kind) else { throw IndexError.corruptRow(table: table, row: row, column: "kind", value: "'\(kind)'") }
        guard let themed = Theme(rawValue: theme) else { throw IndexError.corruptRow(table: table, row: row, column: "theme", value: "'\(theme)'") }
        return PictureID(workoutID: WorkoutID(workout), kind: known, theme: themed, scale: scale)
    }

    /// `lastServed` after `claims`: at each priority, the owner of its last job.
    public static func lastServed(after claims: [Claim], _ lastServed: [Int64: String]) -> [Int64: String] {
        var served = lastServed
        for claim in claims { served[Int64(claim.priority)] = claim.job.owner }
        return served
    }

    /// How many jobs `coordinator`'s workers hold.
    public static func count(of coordinator: String, in session: PostgresSession) throws(IndexError) -> Int {
        try session.query(
            "SELECT count(*)::bigint FROM job WHERE lease_coordinator = \(coordinator) AND lease_id IS NOT NULL",
            "counting the leases of \(coordinator)"
        ).firstDecoded("the leases of \(coordinator)") { try $0.decode(Int.self) } ?? 0
    }

    /// Renews every lease `coordinator` holds for `leaseSeconds` from now: what it does while it
    /// lives (and, with it, its workers). How many it holds.
    @discardableResult
    public static func renew(coordinator: String, leaseSeconds: Double = defaultLeaseSeconds, in session: PostgresSession) throws(IndexError) -> Int {
        let result = try session.query(
            """
            UPDATE job SET lease_expires_at = now() + make_interval(secs => \(leaseSeconds))
            WHERE lease_coordinator = \(coordinator) AND lease_id IS NOT NULL
            """, "renewing the leases of \(coordinator)")
        return result.metadata.rows ?? 0
    }

    /// Ends every lease `coordinator` holds, counting no attempt: its jobs are ready again at once
    /// for every coordinator (a coordinator that stops cleanly, or opens again under the same id
    /// after a crash, whose workers' reports will find nothing). How many it held.
    @discardableResult
    public static func returnAll(of coordinator: String, in session: PostgresSession) throws(IndexError) -> Int {
        let rows = try LeasedRow.locked(
            "\(unescaped: LeasedRow.selection) WHERE j.lease_coordinator = \(coordinator) AND j.lease_id IS NOT NULL FOR UPDATE OF j",
            "the leases of \(coordinator)", in: session)
        try LeasedRow.end(rows, remembered: true, in: session)
        return rows.count
    }

    /// How long an ended lease is remembered for a late report (``LeasedRow/end(_:remembered:in:)``):
    /// far longer than any render's deadline.
    public static let endedLeaseRetentionSeconds = 3600.0

    /// Forgets leases that ended more than `seconds` ago (the leader's upkeep, about once a
    /// minute): a report that late has long been taken for lost. How many were forgotten.
    @discardableResult
    public static func forgetEnded(olderThan seconds: Double = endedLeaseRetentionSeconds, in session: PostgresSession) throws(IndexError) -> Int {
        try session.query(
            "DELETE FROM ended_lease WHERE ended_at < now() - make_interval(secs => \(seconds))", "forgetting leases ended long ago"
        ).metadata.rows ?? 0
    }

    /// Remembers the cache key sent with a lease's JOB: a `generated` report must quote it, and
    /// a report on a job whose key has changed since is refused (``PostgresReports``).
    public static func recordCacheKey(_ key: String, for lease: UInt64, in session: PostgresSession) throws(IndexError) {
        try recordCacheKeys([(key, lease)], in: session)
    }

    /// ``recordCacheKey(_:for:in:)`` for a turn's leases, in one statement.
    public static func recordCacheKeys(_ keys: [(key: String, lease: UInt64)], in session: PostgresSession) throws(IndexError) {
        guard !keys.isEmpty else { return }
        // Nothing is read back: the answer is waited for with the turn's next statement (its COMMIT).
        try session.send(
            "SELECT pg_temp.workfeed_record_keys(\(keys.map { Int64(bitPattern: $0.lease) }), \(keys.map(\.key)))",
            "recording the keys of \(keys.count) leases")
    }

    /// ``recordCacheKeys(_:in:)``'s statement: $1 the leases, $2 their keys.
    static let recordKeysFunction = PostgresSession.function(
        "workfeed_record_keys", "bigint[], text[]", returns: "void",
        "UPDATE job SET lease_key = u.key FROM unnest($1, $2) AS u(lease, key) WHERE job.lease_id = u.lease")

    /// Ends a lease whose JOB never reached its worker, counting no attempt: the job is ready
    /// again at once. Whether the lease was current (it may have expired and been claimed anew).
    @discardableResult
    public static func returnLease(_ lease: UInt64, in session: PostgresSession) throws(IndexError) -> Bool {
        let result = try session.query(
            """
            UPDATE job SET \(unescaped: LeasedRow.endingLease) WHERE lease_id = \(Int64(bitPattern: lease))
            """, "returning lease \(lease)")
        return (result.metadata.rows ?? 0) > 0
    }

    /// Takes back the leases `coordinator`'s worker holds (the worker is gone), counting an
    /// attempt against each job when asked (a worker that died or went silent may have been
    /// killed by its job; one that said goodbye was not), as
    /// ``IndexWriting/releaseLeases(of:reason:code:countAttempt:retry:now:)`` does.
    /// - Returns: what happened to each job whose lease still held a claim on it.
    public static func takeBack(
        worker: String, of coordinator: String, reason: String, code: FailureCode, countAttempt: Bool, retry: RetryPolicy,
        anchors: inout PostgresAnchors, in session: PostgresSession
    ) throws(IndexError) -> [CompletionEffect] {
        let rows = try LeasedRow.locked(
            """
            \(unescaped: LeasedRow.selection)
            WHERE j.lease_coordinator = \(coordinator) AND j.lease_worker = \(worker) AND j.lease_id IS NOT NULL FOR UPDATE OF j
            """, "the leases of worker \(worker)", in: session)
        try LeasedRow.end(rows, remembered: true, in: session)
        guard countAttempt else { return [] }
        var effects: [CompletionEffect] = []
        for row in rows where row.isCurrent {
            effects.append(try PostgresReports.retryOrFail(row, reason: reason, code: code, retry: retry, anchors: &anchors, in: session))
        }
        return effects
    }

    /// Takes back `coordinator`'s leases past their render deadline, counting an attempt: a job
    /// that keeps timing out ends `failed-no-retry` instead of holding the pool for ever
    /// (``IndexWriting/expireLeases(now:retry:)``). The deadline is the database's clock.
    public static func expireOverdue(
        of coordinator: String, retry: RetryPolicy, anchors: inout PostgresAnchors, in session: PostgresSession
    ) throws(IndexError) -> [CompletionEffect] {
        let rows = try LeasedRow.locked(
            """
            \(unescaped: LeasedRow.selection)
            WHERE j.lease_coordinator = \(coordinator) AND j.lease_id IS NOT NULL AND j.lease_deadline < now() FOR UPDATE OF j
            """, "the overdue leases of \(coordinator)", in: session)
        try LeasedRow.end(rows, remembered: true, in: session)
        var effects: [CompletionEffect] = []
        for row in rows where row.isCurrent {
            let effect = try PostgresReports.retryOrFail(
                row, reason: "timed out on worker \(row.worker)", code: .timedOut, retry: retry, anchors: &anchors, in: session)
            effects.append(effect)
        }
        return effects
    }

    /// The claim as a function of each session's own (``PostgresSession/definitions``), so that
    /// its plan is made once a connection instead of once a claim: planned each time, the claim
    /// cost 2.2 ms of planning for 0.7 ms of work, the largest part of a turn on PostgreSQL
    /// (docs/postgres-index.md, "The claim's plan"). The plan is the generic one (`SET
    /// plan_cache_mode`): with 200,000 pending jobs it runs as fast as the plans made for each
    /// claim's values.
    static let claimFunction = PostgresSession.function(
        "workfeed_claim", "text, text[], bigint, bigint[], text[], float8, float8, bigint",
        returns: """
            TABLE (
                seq bigint, id bigint, lease_id bigint, worker text, priority integer, owner text, workout_id uuid, kind text, theme text,
                scale integer, anchor bigint, route bytea, heart_rate bytea, policy_version bigint, \(inputsColumns))
            """, claimStatement)

    /// The claim (docs/postgres-index.md, "The claim", where each part is explained and measured):
    /// $1 coordinator, $2 workers (one a free slot, in the order jobs are dealt), $3 slots,
    /// $4/$5 the last owner served at each priority, $6 the render deadline in seconds, $7 the
    /// lease's time in seconds, $8 the candidates in all, shared by the owners found. Each job
    /// comes with its owner's policy version (``LeasedJob/policyVersion``).
    static let claimStatement = """
        WITH RECURSIVE
        last_served AS (SELECT * FROM unnest($4::bigint[], $5::text[]) AS l(priority, owner)),
        levels(priority) AS (
            (SELECT priority FROM job WHERE status = 'pending' ORDER BY priority DESC LIMIT 1)
          UNION ALL
            SELECT (SELECT j.priority FROM job j WHERE j.status = 'pending' AND j.priority < levels.priority
                    ORDER BY j.priority DESC LIMIT 1)
            FROM levels WHERE levels.priority IS NOT NULL
        ),
        heads(priority, owner, pass, depth) AS (
            SELECT l.priority, f.owner, f.pass, 1
            FROM levels l LEFT JOIN last_served s ON s.priority = l.priority
            CROSS JOIN LATERAL (
                (SELECT j.owner, 0 AS pass FROM job j
                 WHERE j.status = 'pending' AND j.priority = l.priority AND j.owner > coalesce(s.owner, '') ORDER BY j.owner LIMIT 1)
                UNION ALL
                (SELECT j.owner, 1 FROM job j WHERE j.status = 'pending' AND j.priority = l.priority ORDER BY j.owner LIMIT 1)
                LIMIT 1) f
            WHERE l.priority IS NOT NULL
          UNION ALL
            SELECT h.priority, n.owner, n.pass, h.depth + 1
            FROM heads h LEFT JOIN last_served s ON s.priority = h.priority
            CROSS JOIN LATERAL (
                (SELECT j.owner, h.pass AS pass FROM job j
                 WHERE j.status = 'pending' AND j.priority = h.priority AND j.owner > h.owner
                   AND (h.pass = 0 OR j.owner <= s.owner) ORDER BY j.owner LIMIT 1)
                UNION ALL
                (SELECT j.owner, 1 FROM job j
                 WHERE h.pass = 0 AND s.owner IS NOT NULL AND j.status = 'pending' AND j.priority = h.priority AND j.owner <= s.owner
                 ORDER BY j.owner LIMIT 1)
                LIMIT 1) n
            WHERE h.depth < $3
        ),
        candidates AS (
            SELECT c.id, h.priority, h.owner, h.pass, c.turn
            FROM heads h CROSS JOIN LATERAL (
                SELECT j.id, row_number() OVER (ORDER BY j.id) AS turn
                FROM job j
                WHERE j.status = 'pending' AND j.priority = h.priority AND j.owner = h.owner
                  AND (j.not_before IS NULL OR j.not_before <= now())
                  AND (j.lease_id IS NULL OR j.lease_expires_at < now())
                ORDER BY j.id LIMIT (SELECT ceil($8::numeric / count(*))::int FROM heads)) c
        ),
        ordered AS (
            SELECT id, priority, owner, row_number() OVER (ORDER BY priority DESC, turn, pass, owner) AS seq FROM candidates
        ),
        locked AS (
            SELECT l.id, o.seq, o.priority, o.owner
            FROM (SELECT * FROM ordered ORDER BY seq) o
            CROSS JOIN LATERAL (
                SELECT j.id FROM job j
                WHERE j.id = o.id AND j.status = 'pending' AND (j.lease_id IS NULL OR j.lease_expires_at < now())
                FOR UPDATE SKIP LOCKED) l
            ORDER BY o.seq LIMIT $3
        ),
        dealt AS (
            SELECT l.id, l.seq, w.worker
            FROM (SELECT *, row_number() OVER (ORDER BY seq) AS slot FROM locked) l
            JOIN unnest($2::text[]) WITH ORDINALITY AS w(worker, slot) ON w.slot = l.slot
        )
        UPDATE job SET
            lease_id = nextval('lease_id_seq'), lease_coordinator = $1, lease_worker = d.worker, lease_anchor = job.anchor,
            lease_key = NULL, lease_deadline = now() + make_interval(secs => $6),
            lease_expires_at = now() + make_interval(secs => $7)
        FROM dealt d, workout w, series s
        WHERE job.id = d.id AND w.id = job.workout_id AND s.workout_id = job.workout_id
        RETURNING d.seq, job.id, job.lease_id, job.lease_worker, job.priority, job.owner, job.workout_id, job.kind, job.theme, job.scale,
            job.anchor, s.route, s.heart_rate, coalesce((SELECT o.policy_version FROM owner_state o WHERE o.owner = job.owner), 0),
            \(PictureInputs.selection)
        """
}
