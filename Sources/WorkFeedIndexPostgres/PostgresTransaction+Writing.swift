public import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel
public import WorkFeedPrivacy

// MARK: The index contract's writes (IndexWriting) over the parts: leases, reports, zones

extension PostgresTransaction: IndexWriting {
    public var reader: PostgresReader { PostgresReader(session: session) }

    public mutating func discard(_ leftover: LeftoverPicture) {
        guard CacheLayout.isCacheKey(leftover.key) else { return }
        leftovers.append(leftover)
    }

    /// A SAVEPOINT: when `body` throws, the rows it changed are rolled back, and so is what this
    /// transaction keeps beside them (anchors, released keys, leftovers, changed buckets, the
    /// owners it locked, whose locks a rolled-back savepoint gives back). The savepoint is sent
    /// without waiting (answered with the body's first wait); its release is waited for, so that
    /// a statement of the body sent and not yet answered fails the step, not what comes after.
    public mutating func savepoint<T>(_ body: (inout PostgresTransaction) throws -> T) throws -> T {
        let before = self
        try session.send("SAVEPOINT workfeed_step", "starting a step")
        do {
            let result = try body(&self)
            try session.query("RELEASE SAVEPOINT workfeed_step", "ending a step")
            return result
        } catch {
            self = before
            try session.query("ROLLBACK TO SAVEPOINT workfeed_step", "undoing a step")
            try session.query("RELEASE SAVEPOINT workfeed_step", "ending an undone step")
            throw error
        }
    }

    // MARK: Workouts and settings, as the contract names them (the database's clock)

    public mutating func importWorkout(
        _ workout: ImportedWorkout, owner: String, allowDuplicates: Bool, originalKept: Bool, now: Date, replacedFile: (String) -> Void
    ) throws -> ImportReply {
        try importWorkout(workout, owner: owner, allowDuplicates: allowDuplicates, originalKept: originalKept, replacedFile: replacedFile)
    }

    public mutating func setOwnerSettings(_ settings: OwnerSettings, owner: String, now: Date) throws {
        try setOwnerSettings(settings, owner: owner)
    }

    // MARK: Leasing

    /// This coordinator's leases, as the transaction stands (a gauge: 0 when it cannot be read).
    public var leasedCount: Int { (try? PostgresLeases.count(of: coordinator, in: session)) ?? 0 }

    public func readyCount(now: Date) throws -> Int {
        try session.query(
            """
            SELECT count(*)::bigint FROM job WHERE status = 'pending' AND (not_before IS NULL OR not_before <= now())
                AND (lease_id IS NULL OR lease_expires_at < now())
            """, "counting the ready jobs"
        ).firstDecoded("the ready jobs") { try $0.decode(Int.self) } ?? 0
    }

    /// The fair claim (``PostgresLeases/claim(coordinator:slots:lastServed:deadline:leaseSeconds:in:)``):
    /// lease ids are the database's, so that no two coordinators ever hand out the same one;
    /// `nextLease` is not asked.
    public mutating func lease(_ slots: [(worker: String, count: Int)], now: Date, deadline: Double, nextLease: () -> UInt64) throws -> [LeasedJob] {
        let claims = try PostgresLeases.claim(
            coordinator: coordinator, slots: slots, lastServed: lastServed, deadline: deadline, leaseSeconds: leaseSeconds, in: session)
        lastServed = PostgresLeases.lastServed(after: claims, lastServed)
        return claims.sorted { $0.order < $1.order }.map(\.job)
    }

    public mutating func recordCacheKey(_ key: String, for lease: UInt64) throws {
        try recordCacheKeys([(key, lease)])
    }

    /// One statement for a turn's leases.
    public mutating func recordCacheKeys(_ keys: [(key: String, lease: UInt64)]) throws {
        try PostgresLeases.recordCacheKeys(keys, in: session)
    }

    public mutating func returnLease(_ lease: UInt64) throws -> Bool {
        try PostgresLeases.returnLease(lease, in: session)
    }

    public mutating func releaseLeases(
        of worker: String, reason: String, code: FailureCode, countAttempt: Bool, retry: RetryPolicy, now: Date
    ) throws -> [CompletionEffect] {
        try PostgresLeases.takeBack(
            worker: worker, of: coordinator, reason: reason, code: code, countAttempt: countAttempt, retry: retry, anchors: &anchors, in: session)
    }

    /// Renews this coordinator's living leases first (the coordinator calls this about every
    /// second: a lease not renewed for ``leaseSeconds`` is anyone's to
    /// claim, as a dead coordinator's are), then takes back those past their render deadline.
    public mutating func expireLeases(now: Date, retry: RetryPolicy) throws -> [CompletionEffect] {
        _ = try PostgresLeases.renew(coordinator: coordinator, leaseSeconds: leaseSeconds, in: session)
        return try PostgresLeases.expireOverdue(of: coordinator, retry: retry, anchors: &anchors, in: session)
    }

    /// Renews this writer's term (the `UPDATE` holds the leader row until the transaction ends:
    /// the fence of whatever periodic work follows in it), or takes over a term that ran out; the
    /// leader also forgets ended leases past their hour, about once a minute. The coordinator's
    /// registration is renewed too, for `workctl status`.
    public mutating func lead(now: Date) throws -> LeadershipTerm? {
        try PostgresCoordinators.seen(coordinator, in: session)
        if let term = leadership.term, try !PostgresLeader.renew(term, termSeconds: leadership.termSeconds, in: session) {
            leadership.term = nil
        }
        if leadership.term == nil, try PostgresLeader.isVacant(in: session) {
            leadership.term = try PostgresLeader.takeOver(as: coordinator, termSeconds: leadership.termSeconds, in: session)
            leadership.lastUpkeep = nil
        }
        if leadership.term != nil, leadership.lastUpkeep.map({ now.timeIntervalSince($0) >= PostgresLeadership.upkeepSeconds }) ?? true {
            try PostgresLeases.forgetEnded(in: session)
            leadership.lastUpkeep = now
        }
        return leadership.term
    }

    // MARK: Reports

    public mutating func complete(
        _ report: JobReportRecord, from worker: String, retry: RetryPolicy, now: Date, cacheKey: CacheKeyFunction
    ) throws -> CompletionEffect {
        try complete([WorkerReport(report, from: worker)], retry: retry, now: now, policyAt: { _, _, _ in }, cacheKey: cacheKey)[0]
    }

    /// The batch checked and stored together (``PostgresReports/complete(_:retry:cacheKey:policyAt:anchors:in:)``).
    public mutating func complete(
        _ reports: [WorkerReport], retry: RetryPolicy, now: Date, policyAt: PolicyRefresh<PostgresReader>, cacheKey: CacheKeyFunction
    ) throws -> [CompletionEffect] {
        let reader = self.reader
        let outcomes = try PostgresReports.complete(
            reports, retry: retry, cacheKey: cacheKey, policyAt: { owner, version in try policyAt(owner, version, reader) }, anchors: &anchors,
            in: session)
        for leftover in outcomes.compactMap(\.leftover) { discard(leftover) }
        try release(outcomes.compactMap(\.unstoredKey))
        return outcomes.map(\.effect)
    }

    // MARK: Privacy

    public mutating func addPrivacyZone(owner: String, latitude: Double, longitude: Double, radius: Double, now: Date) throws -> PrivacyZone {
        try PostgresPrivacy.addZone(owner: owner, latitude: latitude, longitude: longitude, radius: radius, in: session)
    }

    public mutating func removePrivacyZone(owner: String, id: Int64) throws -> Bool {
        try PostgresPrivacy.removeZone(owner: owner, id: id, in: session)
    }

    public mutating func removePrivacyZones(owner: String) throws -> Int {
        try PostgresPrivacy.removeZones(owner: owner, in: session)
    }

    public mutating func privacySecret() throws -> [UInt8] { try PostgresPrivacy.secret(in: session) }

    public mutating func keepRemovals(_ names: [String], now: Date) throws {
        guard !names.isEmpty else { return }
        try session.query(
            """
            INSERT INTO removal (name, since) SELECT n, \(now.timeIntervalSince1970) FROM unnest(\(names)::text[]) AS n
            ON CONFLICT (name) DO NOTHING
            """, "keeping \(names.count) removals that wait")
    }

    public mutating func forgetRemovals(_ names: [String]) throws {
        guard !names.isEmpty else { return }
        try session.query("DELETE FROM removal WHERE name = ANY(\(names)::text[])", "forgetting \(names.count) removals done")
    }

    public mutating func keepReply(_ reply: [UInt8], owner: String, key: String, digest: String, now: Date) throws {
        try session.query(
            """
            INSERT INTO kept_reply (owner, key, digest, reply, at) VALUES (\(owner), \(key), \(digest), \(ByteBuffer(bytes: reply)), \(now.timeIntervalSince1970))
            ON CONFLICT (owner, key) DO NOTHING
            """, "keeping the reply to an idempotency key")
    }

    public mutating func forgetReplies(before: Date) throws -> Int {
        try session.query("DELETE FROM kept_reply WHERE at < \(before.timeIntervalSince1970) RETURNING 1::bigint", "forgetting kept replies")
            .decoded("forgotten replies") { try $0.decode(Int64.self) }.count
    }

    public mutating func indexIdentity() throws -> String {
        let made = IndexIdentity.random()
        try session.query(
            "INSERT INTO meta (key, bytes) VALUES ('index_id', \(ByteBuffer(bytes: made.bytes))) ON CONFLICT (key) DO NOTHING",
            "making the index's id")
        let stored = try session.query("SELECT bytes FROM meta WHERE key = 'index_id'", "reading the index's id")
            .firstDecoded("the index's id") { Array(try $0.decode(ByteBuffer.self).readableBytesView) }
        guard let stored, let identity = IndexIdentity(bytes: stored) else {
            throw IndexError.corruptRow(table: "meta", row: "index_id", column: "bytes", value: "\(stored?.count ?? 0) bytes, not 16")
        }
        return identity.text
    }

    public mutating func rememberWithdrawnPictures(owner: String, now: Date, keeping limit: Int, cacheKey: CacheKeyFunction) throws -> [String] {
        try PostgresPrivacy.rememberWithdrawn(owner: owner, keeping: limit, cacheKey: cacheKey, in: session)
    }

    public mutating func forgetWithdrawnPictures(owner: String) throws { try PostgresPrivacy.forgetWithdrawn(owner: owner, in: session) }

    // MARK: What the transaction leaves for nobody

    /// The files this transaction leaves for nobody, as it stands at its end (``ReleasedPictures/init(keys:leftovers:isReferenced:isReferencedPicture:storedKey:)``):
    /// a key is referenced while a job of any coordinator stores it or a lease of any coordinator
    /// was sent with it.
    public func releasedPictures() throws -> ReleasedPictures {
        try ReleasedPictures(
            keys: releasedKeys, leftovers: leftovers,
            isReferenced: { key in
                try session.query(
                    "SELECT 1 FROM job WHERE cache_key = \(key) OR (lease_id IS NOT NULL AND lease_key = \(key)) LIMIT 1",
                    "looking for the key \(key)"
                ).contains { _ in true }
            },
            isReferencedPicture: { picture, key in
                try session.query(
                    """
                    SELECT 1 FROM job
                    WHERE workout_id = \(picture.workoutID.uuid) AND kind = \(picture.kind.rawValue) AND theme = \(picture.theme.rawValue)
                        AND scale = \(picture.scale) AND (cache_key = \(key) OR (lease_id IS NOT NULL AND lease_key = \(key)))
                    """, "looking for \(picture) under the key \(key)"
                ).contains { _ in true }
            }, storedKey: reader.storedKey(of:))
    }
}
