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

    /// Records `worker`'s report on a lease, as ``IndexWriting/complete(_:from:retry:now:cacheKey:)``
    /// does: on a current lease of that worker only (anything else is
    /// ``CompletionEffect/staleLease`` and changes nothing), refused as
    /// ``CompletionEffect/outdated(_:)`` when the job's key is no longer the one it was leased
    /// with, otherwise generated, failed for good, tried again after a back-off, or put off
    /// without an attempt for a failure of the worker's surroundings. Times are the database's.
    /// - Parameter policyAt: called with the owner and its policy version (0 when it never changed)
    ///   before `cacheKey` is: the coordinator reloads the owner's zones and settings when its
    ///   copy is of another version, so that the key compared is the one the index holds now.
    public static func complete(
        _ report: JobReportRecord, from worker: String, retry: RetryPolicy, cacheKey: CacheKeyFunction,
        policyAt: (_ owner: String, _ version: Int64) throws(IndexError) -> Void = { _, _ in }, anchors: inout PostgresAnchors,
        in session: PostgresSession
    ) throws(IndexError) -> Outcome {
        let lease = Int64(bitPattern: report.lease)
        let drawn = report.outcome == .generated ? report.detail : nil
        let found = try LeasedRow.locked(
            "\(unescaped: LeasedRow.selection) WHERE j.lease_id = \(lease) FOR UPDATE OF j", "the job of lease \(lease)", in: session)
        guard let job = found.first, job.worker == worker else {
            // A late report: the lease ended, or was never this worker's. The picture it wrote is
            // nobody's; its by-picture name is known while the ended lease is remembered.
            guard let drawn else { return Outcome(effect: .staleLease) }
            let picture = try Self.endedLease(lease, in: session)
            return Outcome(effect: .staleLease, leftover: LeftoverPicture(picture: picture, key: drawn))
        }
        // The owner's policy as of now, held until the transaction ends: the coordinator brings
        // what its cache keys are made of up to that version before the key is compared.
        let version = try session.query(
            "SELECT policy_version FROM owner_state WHERE owner = \(job.owner) FOR SHARE", "locking the policy of \(job.owner)"
        ).firstDecoded("the policy version of \(job.owner)") { try $0.decode(Int64.self) }
        try policyAt(job.owner, version ?? 0)
        // The report ends the lease, whatever it says: on its own when nothing is stored, else in
        // the statement that stores the outcome (one row version, one round trip).
        let leftover = drawn.map { LeftoverPicture(picture: job.picture, key: $0) }
        // Still pending with the inputs it was leased with?
        guard job.isCurrent else {
            try LeasedRow.end([job], remembered: false, in: session)
            return Outcome(effect: .staleLease, leftover: leftover)
        }
        if let leased = job.leaseKey, cacheKey(job.picture, job.routeHash, job.heartRateHash, job.owner) != leased {
            try LeasedRow.end([job], remembered: false, in: session)
            return Outcome(effect: .outdated(job.picture), leftover: leftover)
        }
        switch report.outcome {
        case .generated where job.leaseKey != nil && job.leaseKey != report.detail:
            // Stored as generated, the key would claim a picture of other inputs.
            let reason = "the worker reported cache key \(report.detail.prefix(64)), the job's is \(job.leaseKey ?? "")"
            let effect = try retryOrFail(job, reason: reason, code: .keyMismatch, retry: retry, anchors: &anchors, in: session)
            return Outcome(effect: effect, leftover: leftover)
        case .generated:
            try session.query(
                """
                UPDATE job SET status = 'generated', cache_key = \(report.detail), reason = NULL, reason_code = NULL, attempts = 0,
                    deferrals = 0, priority = 0, not_before = NULL, updated_at = now(), anchor = workfeed_anchor(\(anchors.next())::int),
                    map = \(report.map.rawValue), \(unescaped: LeasedRow.endingLease)
                WHERE id = \(job.id)
                """, "storing the picture of job \(job.id)")
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
