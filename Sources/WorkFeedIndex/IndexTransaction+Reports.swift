public import Foundation
import GRDB
public import WorkFeedModel

extension IndexTransaction {
    /// Records `worker`'s report on a lease. A report for a lease that is not current (never
    /// given, already reported, taken back, given to another worker, or on inputs that have changed
    /// since) changes nothing.
    ///
    /// A picture is stored as current only if it was drawn from the inputs current now: the key
    /// its lease was sent with must be the key `cacheKey` gives for the job's workout as it stands
    /// (its route and heart-rate hashes, its owner's privacy policy and settings). A report on
    /// older inputs (an owner added a zone while the worker drew) is ``CompletionEffect/outdated(_:)``:
    /// the job is ready again at once, without an attempt counted. Whatever a refused or late
    /// report's worker wrote is noted in ``leftovers``, to be removed after the commit.
    /// - Parameter cacheKey: the current cache key of a picture given its route and heart-rate
    ///   hashes and its workout's owner, as for ``enqueue(_:scales:now:cacheKey:)``.
    public mutating func complete(
        _ report: JobReportRecord, from worker: String, retry: RetryPolicy, now: Date = Date(), cacheKey: CacheKeyFunction
    ) throws -> CompletionEffect {
        guard let lease = leases[report.lease], lease.worker == worker else {
            // A late report: the lease ended (its workout deleted, the job taken back), or was never
            // this worker's. The picture it wrote is nobody's (a job that does store its key keeps
            // it: see releasedPictures()).
            if report.outcome == .generated {
                let picture = leases[report.lease] == nil ? leases.ended(report.lease)?.picture : nil
                discard(LeftoverPicture(picture: picture, key: report.detail))
            }
            return .staleLease
        }
        leases.remove(report.lease)
        // The job as it stands, if it still has the inputs it was leased with.
        guard let inputs = try currentInputs(of: lease) else {
            if report.outcome == .generated { discard(LeftoverPicture(picture: lease.picture, key: report.detail)) }
            return .staleLease
        }
        if let leased = lease.cacheKey, cacheKey(lease.picture, inputs.inputs) != leased {
            if report.outcome == .generated { discard(LeftoverPicture(picture: lease.picture, key: report.detail)) }
            return .outdated(lease.picture)
        }
        switch report.outcome {
        case .generated where lease.cacheKey != nil && lease.cacheKey != report.detail:
            // Stored as generated, the key would claim a picture of other inputs.
            discard(LeftoverPicture(picture: lease.picture, key: report.detail))
            return try retryOrFail(
                lease, reason: "the worker reported cache key \(report.detail.prefix(64)), the job's is \(lease.cacheKey ?? "")",
                code: .keyMismatch, retry: retry, now: now)
        case .generated:
            let previous = inputs.cacheKey
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
            let code = report.failureCode
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
            let code = report.failureCode
            if code.isEnvironmental { return try putOff(lease, reason: report.detail, code: code, retry: retry, now: now) }
            return try retryOrFail(lease, reason: report.detail, code: code, retry: retry, now: now)
        }
    }

    /// What the job of a lease is drawn from now, when it is still pending with the inputs it was
    /// leased with (the same anchor): its stored key and its workout's hashes and owner.
    private func currentInputs(of lease: LeaseTable.Lease) throws -> (cacheKey: String?, inputs: PictureInputs)? {
        let select = try RawStatement(
            db,
            sql: """
                SELECT j.id, j.cache_key, \(PictureInputs.selection) FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE j.id = ?1 AND j.anchor = ?2 AND j.status = 'pending'
                """)
        select.bind(1, lease.jobID)
        select.bind(2, lease.anchor)
        defer { select.reset() }
        guard try select.step() else { return nil }
        let job = RowDecoder(select, table: "job")
        return (try job.optionalValue(1, "cache_key"), try RowDecoder(select, table: "workout").inputs(from: 2))
    }

    // MARK: Retries and failures

    /// The job's attempts so far, when the lease is still current: the job is still pending with
    /// the inputs it was leased with.
    func attempts(of lease: LeaseTable.Lease) throws -> Int? {
        let select = try RawStatement(db, sql: "SELECT attempts FROM job WHERE id = ?1 AND anchor = ?2 AND status = 'pending'")
        select.bind(1, lease.jobID)
        select.bind(2, lease.anchor)
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : nil
    }

    func markFailed(_ jobID: Int64, reason: String, code: FailureCode, now: Date, anchor: Int64) throws {
        try db.execute(
            sql: "UPDATE job SET status = 'failed-no-retry', reason = ?, reason_code = ?, not_before = NULL, updated_at = ?, anchor = ? WHERE id = ?",
            arguments: [reason, code.rawValue, now.timeIntervalSince1970, anchor, jobID])
    }

    /// A lease that ended without a picture: the job waits and is tried again, or, after its last
    /// attempt, fails for good.
    mutating func retryOrFail(
        _ lease: LeaseTable.Lease, reason: String, code: FailureCode, retry: RetryPolicy, now: Date
    ) throws -> CompletionEffect {
        guard let previous = try attempts(of: lease) else { return .staleLease }
        let anchor = nextAnchor()
        let attempts: Int
        let retryAt: Date
        switch retry.afterFailedAttempt(previous, reason: reason) {
        case .fail(_, let final):
            try markFailed(lease.jobID, reason: final, code: code, now: now, anchor: anchor)
            return .updated(lease.picture, .failedNoRetry, reason: final, retryAt: nil, code: code)
        case .retry(let counted, let seconds):
            attempts = counted
            retryAt = now.addingTimeInterval(seconds)
        }
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
}
