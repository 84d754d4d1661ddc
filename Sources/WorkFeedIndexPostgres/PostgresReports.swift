import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// The anchors one write transaction takes: its k-th change takes `workfeed_anchor(k)`
/// (docs/postgres-index.md, "Anchors"). A transaction counts its own.
public struct PostgresAnchors: Sendable, Hashable {
    /// Changes so far.
    public private(set) var taken: Int = 0

    public init() {}

    /// The next change's k.
    public mutating func next() -> Int {
        taken += 1
        return taken
    }

    /// The most changes one transaction may make: k is the low 20 bits of an anchor.
    public static let limit = (1 << 20) - 1

    /// k for `count` changes of one statement: the first of them (the i-th change, from 0,
    /// takes the first + i).
    /// - Throws: ``IndexError`` (`refused`) when the transaction would make more than ``limit``
    ///   changes (a request that large must be split).
    public mutating func reserve(_ count: Int) throws(IndexError) -> Int {
        guard taken + count <= Self.limit else {
            throw IndexError(.refused, "one transaction may change at most \(Self.limit) rows of the index; this one would change \(taken + count)")
        }
        defer { taken += count }
        return taken + 1
    }
}

/// Workers' reports, checked in the transaction that stores them against the job as it stands,
/// whichever coordinator leased it (docs/postgres-index.md, "Reports checked in the transaction
/// that stores them"): the job row is locked `FOR UPDATE`, and its owner's `owner_state` row
/// `FOR SHARE`, which every change a cache key hashes (zones, heart-rate zones) updates first, so
/// that no such change commits between the check and the store.
public enum PostgresReports {
    /// What a report did: its effect, the picture it wrote that no job stores (a refused or late
    /// report's), and the key the job stored before and no longer does.
    public struct Outcome: Sendable, Hashable {
        public var effect: CompletionEffect
        public var leftover: LeftoverPicture?
        /// The key the job stored before this report replaced or withdrew it: its files go unless
        /// another job stores it (checked when the transaction ends).
        public var unstoredKey: String?
    }

    /// Records workers' reports, as ``IndexWriting/complete(_:from:retry:now:cacheKey:)`` records
    /// each: on a current lease of that worker only (anything else is
    /// ``CompletionEffect/staleLease`` and changes nothing), refused as
    /// ``CompletionEffect/outdated(_:)`` when the job's key is no longer the one it was leased
    /// with, otherwise generated, failed for good, tried again after a back-off, or put off
    /// without an attempt for a failure of the worker's surroundings. Times are the database's.
    ///
    /// The batch is one turn's: the reported job rows are locked in one statement (in id order),
    /// their owners' rows `FOR SHARE` in another (in owner order), and every `generated` outcome,
    /// the common one, is stored by one `UPDATE` over arrays, so that the kept counts' trigger runs
    /// once for the batch; the rarer outcomes take a statement each.
    /// - Parameter policyAt: called with each reported owner and their policy version (0 when it
    ///   never changed), held until the transaction ends, before any key is compared: the
    ///   coordinator reloads the owner's zones and settings when its copy is of another version,
    ///   so that the key compared is the one the index holds now.
    /// - Returns: the outcomes in the reports' order.
    public static func complete(
        _ reports: [WorkerReport], retry: RetryPolicy, cacheKey: CacheKeyFunction,
        policyAt: (_ owner: String, _ version: Int64) throws -> Void = { _, _ in }, anchors: inout PostgresAnchors,
        in session: PostgresSession
    ) throws -> [Outcome] {
        guard !reports.isEmpty else { return [] }
        let leases = reports.map { Int64(bitPattern: $0.report.lease) }
        // The jobs locked, then their owners' policies as of now, held until the transaction
        // ends (the two sent together): the coordinator brings what its cache keys are made of
        // up to those versions before any key is compared.
        let locking = try LeasedRow.lock(leases: leases, "the jobs of \(reports.count) reported leases", in: session)
        let policies = try session.send(
            "SELECT * FROM pg_temp.workfeed_lock_policies(\(leases))", "locking the policies of the owners of \(reports.count) reported leases")
        let found = try LeasedRow.rows(locking, "the jobs of \(reports.count) reported leases", in: session)
        let versions = try session.result(of: policies).decoded("the policy versions") { try $0.decode((String, Int64).self) }
        let byLease = Dictionary(found.map { ($0.lease, $0) }, uniquingKeysWith: { first, _ in first })
        let owners = Set(
            reports.compactMap { each in byLease[Int64(bitPattern: each.report.lease)].flatMap { $0.worker == each.worker ? $0.owner : nil } })
        let known = Dictionary(versions, uniquingKeysWith: { first, _ in first })
        for owner in owners.sorted() { try policyAt(owner, known[owner] ?? 0) }
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(reports.count)
        var reported: Set<Int64> = []
        var ending: [LeasedRow] = []
        var stored: [(row: LeasedRow, key: String, map: String, k: Int)] = []
        for (each, lease) in zip(reports, leases) {
            let report = each.report
            let drawn = report.outcome == .generated ? report.detail : nil
            guard let job = byLease[lease], job.worker == each.worker, reported.insert(lease).inserted else {
                // A late report: the lease ended (or this batch has already ended it), or was never
                // this worker's. The picture it wrote is nobody's; its by-picture name is known while
                // the ended lease is remembered.
                guard let drawn else {
                    outcomes.append(Outcome(effect: .staleLease))
                    continue
                }
                let picture = try Self.endedLease(lease, in: session)
                outcomes.append(Outcome(effect: .staleLease, leftover: LeftoverPicture(picture: picture, key: drawn)))
                continue
            }
            // The report ends the lease, whatever it says: on its own when nothing is stored, else in
            // the statement that stores the outcome (one row version).
            let leftover = drawn.map { LeftoverPicture(picture: job.picture, key: $0) }
            // Still pending with the inputs it was leased with?
            guard job.isCurrent else {
                ending.append(job)
                outcomes.append(Outcome(effect: .staleLease, leftover: leftover))
                continue
            }
            if let leased = job.leaseKey, cacheKey(job.picture, job.inputs) != leased {
                ending.append(job)
                outcomes.append(Outcome(effect: .outdated(job.picture), leftover: leftover))
                continue
            }
            outcomes.append(try outcome(of: report, job, leftover: leftover, retry: retry, stored: &stored, anchors: &anchors, in: session))
        }
        try LeasedRow.end(ending, remembered: false, in: session)
        try store(stored, in: session)
        return outcomes
    }

    /// One report, as ``complete(_:retry:cacheKey:policyAt:anchors:in:)`` records a batch.
    public static func complete(
        _ report: JobReportRecord, from worker: String, retry: RetryPolicy, cacheKey: CacheKeyFunction,
        policyAt: (_ owner: String, _ version: Int64) throws -> Void = { _, _ in }, anchors: inout PostgresAnchors,
        in session: PostgresSession
    ) throws -> Outcome {
        try complete([WorkerReport(report, from: worker)], retry: retry, cacheKey: cacheKey, policyAt: policyAt, anchors: &anchors, in: session)[0]
    }

    /// What a report on a current lease does; a `generated` one is added to `stored`, to be
    /// written with the others of its batch (``store(_:in:)``).
    private static func outcome(
        of report: JobReportRecord, _ job: LeasedRow, leftover: LeftoverPicture?, retry: RetryPolicy,
        stored: inout [(row: LeasedRow, key: String, map: String, k: Int)], anchors: inout PostgresAnchors, in session: PostgresSession
    ) throws(IndexError) -> Outcome {
        switch report.outcome {
        case .generated where job.leaseKey != nil && job.leaseKey != report.detail:
            // Stored as generated, the key would claim a picture of other inputs.
            let reason = "the worker reported cache key \(report.detail.prefix(64)), the job's is \(job.leaseKey ?? "")"
            let effect = try retryOrFail(job, reason: reason, code: .keyMismatch, retry: retry, anchors: &anchors, in: session)
            return Outcome(effect: effect, leftover: leftover)
        case .generated:
            stored.append((job, report.detail, report.map.rawValue, anchors.next()))
            let replaced = job.cacheKey.flatMap { $0 == report.detail ? nil : $0 }
            return Outcome(effect: .updated(job.picture, .generated, reason: nil, retryAt: nil, code: nil), unstoredKey: replaced)
        case .failedNoRetry:
            let code = report.failureCode
            // The picture drawn before the owner's zones hid the whole route shows what is now
            // hidden: it must not stay readable under its old key.
            let withdraws = code == .hiddenByPrivacy
            try markFailed(job, reason: report.detail, code: code, withdrawingKey: withdraws, anchors: &anchors, in: session)
            return Outcome(
                effect: .updated(job.picture, .failedNoRetry, reason: report.detail, retryAt: nil, code: code),
                unstoredKey: withdraws ? job.cacheKey : nil)
        case .failedRetry:
            let code = report.failureCode
            guard code.isEnvironmental else {
                return Outcome(effect: try retryOrFail(job, reason: report.detail, code: code, retry: retry, anchors: &anchors, in: session))
            }
            // Not the job's fault: no attempt counted, a longer wait each time.
            let seconds = retry.environmentBackoff(afterDeferral: job.deferrals + 1)
            let retryAt = try waitAgain(
                job, reason: report.detail, code: code, attempts: job.attempts, deferrals: job.deferrals + 1, seconds: seconds, anchors: &anchors,
                in: session)
            return Outcome(effect: .updated(job.picture, .pending, reason: report.detail, retryAt: retryAt, code: code))
        }
    }

    /// Stores the pictures of a batch's `generated` reports, their leases ended, each job its own
    /// anchor: one statement.
    private static func store(_ stored: [(row: LeasedRow, key: String, map: String, k: Int)], in session: PostgresSession) throws(IndexError) {
        guard !stored.isEmpty else { return }
        // Nothing is read back: the answer is waited for with the turn's next statement.
        try session.send(
            "SELECT pg_temp.workfeed_store(\(stored.map(\.row.id)), \(stored.map(\.key)), \(stored.map(\.map)), \(stored.map { Int32($0.k) }))",
            "storing \(stored.count) pictures")
    }

    /// The policy versions of the owners of the jobs leased as `$1`, locked `FOR SHARE` in owner
    /// order (planned each time, its plan cost six times its work).
    static let lockPoliciesFunction = PostgresSession.function(
        "workfeed_lock_policies", "bigint[]", returns: "TABLE (owner text, policy_version bigint)",
        "SELECT owner, policy_version FROM owner_state WHERE owner IN (SELECT owner FROM job WHERE lease_id = ANY($1)) ORDER BY owner FOR SHARE")

    /// ``store(_:in:)``'s statement: $1 the jobs, $2 their keys, $3 their maps, $4 each one's k
    /// (``PostgresAnchors``).
    static let storeFunction = PostgresSession.function(
        "workfeed_store", "bigint[], text[], text[], integer[]", returns: "void",
        """
        UPDATE job SET status = 'generated', cache_key = u.key, reason = NULL, reason_code = NULL, attempts = 0, deferrals = 0, priority = 0,
            not_before = NULL, updated_at = now(), anchor = workfeed_anchor(u.k), map = u.map, \(LeasedRow.endingLease)
        FROM unnest($1, $2, $3, $4) AS u(id, key, map, k)
        WHERE job.id = u.id
        """)

    /// A lease that ended without a picture: the job waits and is tried again, or, after its last
    /// attempt, fails for good (``RetryPolicy/afterFailedAttempt(_:reason:)``).
    static func retryOrFail(
        _ job: LeasedRow, reason: String, code: FailureCode, retry: RetryPolicy, anchors: inout PostgresAnchors, in session: PostgresSession
    ) throws(IndexError) -> CompletionEffect {
        switch retry.afterFailedAttempt(job.attempts, reason: reason) {
        case .fail(_, let final):
            try markFailed(job, reason: final, code: code, withdrawingKey: false, anchors: &anchors, in: session)
            return .updated(job.picture, .failedNoRetry, reason: final, retryAt: nil, code: code)
        case .retry(let attempts, let seconds):
            let retryAt = try waitAgain(
                job, reason: reason, code: code, attempts: attempts, deferrals: job.deferrals, seconds: seconds, anchors: &anchors, in: session)
            return .updated(job.picture, .pending, reason: reason, retryAt: retryAt, code: code)
        }
    }

    /// The job pending again, ready `seconds` from now (the database's); when that is.
    static func waitAgain(
        _ job: LeasedRow, reason: String, code: FailureCode, attempts: Int, deferrals: Int, seconds: Double, anchors: inout PostgresAnchors,
        in session: PostgresSession
    ) throws(IndexError) -> Date {
        let rows = try session.query(
            """
            UPDATE job SET reason = \(reason), reason_code = \(code.rawValue), attempts = \(attempts), deferrals = \(deferrals),
                not_before = now() + make_interval(secs => \(seconds)), updated_at = now(), anchor = workfeed_anchor(\(anchors.next())::int),
                \(unescaped: LeasedRow.endingLease)
            WHERE id = \(job.id) RETURNING not_before
            """, "putting off job \(job.id)")
        guard let retryAt = try rows.firstDecoded("when job \(job.id) is tried again", { try $0.decode(Date.self) }) else {
            throw IndexError(.failed, "job \(job.id) went while locked")
        }
        return retryAt
    }

    static func markFailed(
        _ job: LeasedRow, reason: String, code: FailureCode, withdrawingKey: Bool, anchors: inout PostgresAnchors, in session: PostgresSession
    ) throws(IndexError) {
        try session.query(
            """
            UPDATE job SET status = 'failed-no-retry', reason = \(reason), reason_code = \(code.rawValue), not_before = NULL,
                updated_at = now(), anchor = workfeed_anchor(\(anchors.next())::int),
                cache_key = CASE WHEN \(withdrawingKey) THEN NULL ELSE cache_key END, \(unescaped: LeasedRow.endingLease)
            WHERE id = \(job.id)
            """, "failing job \(job.id)")
    }

    /// The picture of a lease that ended without its report, while it is remembered.
    static func endedLease(_ lease: Int64, in session: PostgresSession) throws(IndexError) -> PictureID? {
        let rows = try session.query(
            "SELECT workout_id, kind, theme, scale FROM ended_lease WHERE lease_id = \(lease)", "finding ended lease \(lease)")
        return try rows.firstDecoded("ended lease \(lease)") { row in
            let (workout, kind, theme, scale) = try row.decode((UUID, String, String, Int).self)
            return try PostgresLeases.picture("ended_lease", row: String(lease), workout: workout, kind: kind, theme: theme, scale: scale)
        }
    }
}
