import Foundation
import PostgresNIO
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// Workers' reports checked in the transaction that stores them, whichever coordinator leased
/// the job (docs/postgres-index.md, "Reports checked in the transaction that stores them"),
/// against a real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresReportTests {
    /// A picture's key as the coordinators would compute it: its route hash and the owner's
    /// policy version (its zones), as the report's transaction last read it.
    final class Keys: @unchecked Sendable {
        var policy: Int64 = 1
        func key(_ picture: PictureID, _ inputs: PictureInputs) -> String {
            "key-\(inputs.routeHash)-\(picture.theme.rawValue)-\(inputs.owner)-v\(policy)"
        }
    }

    struct Leased {
        let fixture: PostgresFixture
        let session: PostgresSession
        let claims: [PostgresLeases.Claim]
        let keys = Keys()

        /// `count` jobs of ann leased by coordinator c1 to worker w1, each JOB sent with its key.
        init(count: Int = 1) throws {
            fixture = try PostgresFixture()
            session = try fixture.session("c1")
            try PostgresFixture.addJobs(owner: "ann", count: count, in: session)
            let session = self.session
            let keys = self.keys
            claims = try session.transaction("leasing") {
                let claims = try PostgresLeases.claim(coordinator: "c1", slots: [("w1", count)], lastServed: [:], deadline: 120, in: session)
                for claim in claims {
                    let job = claim.job
                    try PostgresLeases.recordCacheKey(keys.key(job.picture, job.inputs), for: job.lease, in: session)
                }
                return claims
            }
        }

        func key(of claim: PostgresLeases.Claim) -> String {
            keys.key(claim.job.picture, claim.job.inputs)
        }

        /// A report through `coordinator`'s session, in a transaction of its own.
        func report(
            _ claim: PostgresLeases.Claim, _ outcome: JobReportRecord.Outcome, detail: String? = nil, code: FailureCode? = nil,
            worker: String = "w1", through coordinator: PostgresSession? = nil
        ) throws -> PostgresReports.Outcome {
            let session = coordinator ?? self.session
            let record = JobReportRecord(lease: claim.job.lease, outcome: outcome, detail: detail ?? key(of: claim), map: .full, code: code)
            let keys = self.keys
            return try session.transaction("a report") {
                var anchors = PostgresAnchors()
                return try PostgresReports.complete(
                    record, from: worker, retry: RetryPolicy(), cacheKey: keys.key, policyAt: { _, version in keys.policy = version },
                    anchors: &anchors, in: session)
            }
        }

        /// The job's row: status, attempts, deferrals, cache key, reason code, whether it is leased, its anchor.
        func row(_ claim: PostgresLeases.Claim) throws -> (String, Int, Int, String?, String?, Bool, Int64) {
            try #require(
                try session.query(
                    """
                    SELECT status, attempts, deferrals, cache_key, reason_code, lease_id IS NOT NULL, anchor FROM job WHERE id = \(claim.job.jobID)
                    """, ""
                ).first { _ in true }
            ).decode((String, Int, Int, String?, String?, Bool, Int64).self)
        }
    }

    /// A picture reported through another coordinator than the one that leased the job is
    /// stored: the lease is in the row, not in a coordinator's memory. A second report on the
    /// same lease, or one from another worker, changes nothing.
    @Test func aReportThroughAnyCoordinatorIsStoredOnce() throws {
        let leased = try Leased()
        let claim = try #require(leased.claims.first)
        let c2 = try leased.fixture.session("c2")
        let before = try leased.row(claim)

        #expect(try leased.report(claim, .generated, worker: "w9", through: c2).effect == .staleLease)
        let stored = try leased.report(claim, .generated, through: c2)
        #expect(stored.effect == .updated(claim.job.picture, .generated, reason: nil, retryAt: nil, code: nil))
        #expect(stored.leftover == nil && stored.unstoredKey == nil)
        let after = try leased.row(claim)
        #expect(after.0 == "generated" && after.3 == leased.key(of: claim) && after.5 == false)
        #expect(after.6 > before.6, "a stored picture takes a new anchor")

        // Late: the lease ended with the first report. Its picture is named by key only.
        let late = try leased.report(claim, .generated, detail: "key-late")
        #expect(late.effect == .staleLease)
        #expect(late.leftover == LeftoverPicture(picture: nil, key: "key-late"))
        #expect(try leased.row(claim).3 == leased.key(of: claim))
    }

    /// An owner's zones changed while the worker drew: the picture is refused, the job ready
    /// again at once with no attempt counted, and what the worker wrote is a leftover.
    @Test func aPictureOfInputsThatChangedIsRefused() throws {
        let leased = try Leased()
        let claim = try #require(leased.claims.first)
        let drawn = leased.key(of: claim)
        try leased.session.transaction("adding a zone") {
            _ = try PostgresPrivacy.addZone(owner: "ann", latitude: 52, longitude: 4, radius: 200, in: leased.session)
        }
        let refused = try leased.report(claim, .generated, detail: drawn)
        #expect(refused.effect == .outdated(claim.job.picture))
        #expect(refused.leftover == LeftoverPicture(picture: claim.job.picture, key: drawn))
        let row = try leased.row(claim)
        #expect(row.0 == "pending" && row.1 == 0 && row.3 == nil && row.5 == false)
        let again = try leased.session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c2", slots: [("w2", 1)], lastServed: [:], deadline: 120, in: leased.session)
        }
        #expect(again.map(\.job.jobID) == [claim.job.jobID])
    }

    /// A transient failure counts an attempt and waits (the database's clock); the last attempt
    /// fails the job for good, saying so. A key the lease was not sent with counts as one.
    @Test func failuresCountAttemptsUntilTheLast() throws {
        let leased = try Leased(count: 2)
        let first = leased.claims[0]
        let failed = try leased.report(first, .failedRetry, detail: "timed out", code: .timedOut)
        guard case .updated(_, .pending, "timed out", let retryAt?, .timedOut?) = failed.effect else {
            Issue.record("\(failed.effect)")
            return
        }
        #expect(retryAt > Date().addingTimeInterval(-5) && retryAt < Date().addingTimeInterval(65))
        #expect(try leased.row(first).1 == 1)

        let mismatch = try leased.report(leased.claims[1], .generated, detail: "key-of-something-else")
        guard case .updated(_, .pending, let reason?, _, .keyMismatch?) = mismatch.effect else {
            Issue.record("\(mismatch.effect)")
            return
        }
        #expect(reason.contains("the worker reported cache key key-of-something-else"))
        #expect(mismatch.leftover == LeftoverPicture(picture: leased.claims[1].job.picture, key: "key-of-something-else"))

        // The attempts of a job at its last: failed for good.
        try leased.session.query("UPDATE job SET attempts = 2, not_before = NULL WHERE id = \(first.job.jobID)", "")
        let again = try leased.session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 1)], lastServed: [:], deadline: 120, in: leased.session)
        }
        let last = try leased.report(try #require(again.first), .failedRetry, detail: "timed out", code: .timedOut)
        #expect(
            last.effect == .updated(first.job.picture, .failedNoRetry, reason: "gave up after 3 attempts: timed out", retryAt: nil, code: .timedOut))
        #expect(try leased.row(first).0 == "failed-no-retry")
    }

    /// A full cache is the worker's surroundings, not the job: no attempt counts, the job waits
    /// longer each time. A route hidden whole by the owner's zones fails for good and its old
    /// picture's key goes with it.
    @Test func theWorkersSurroundingsCountNoAttemptAndAHiddenRouteWithdrawsItsKey() throws {
        let leased = try Leased(count: 2)
        let full = try leased.report(leased.claims[0], .failedRetry, detail: "no space", code: .cacheFull)
        guard case .updated(_, .pending, _, _?, .cacheFull?) = full.effect else {
            Issue.record("\(full.effect)")
            return
        }
        let row = try leased.row(leased.claims[0])
        #expect(row.1 == 0 && row.2 == 1)

        let hidden = leased.claims[1]
        try leased.session.query("UPDATE job SET cache_key = 'key-drawn-before' WHERE id = \(hidden.job.jobID)", "")
        let withdrawn = try leased.report(hidden, .failedNoRetry, detail: "the privacy zones hide the whole route", code: .hiddenByPrivacy)
        #expect(withdrawn.unstoredKey == "key-drawn-before")
        let after = try leased.row(hidden)
        #expect(after.0 == "failed-no-retry" && after.3 == nil && after.4 == FailureCode.hiddenByPrivacy.rawValue)
    }

    /// A worker that went silent loses its leases, each counting an attempt; its late report,
    /// through any coordinator, still names the picture it wrote. One that said goodbye costs
    /// its jobs nothing.
    @Test func aGoneWorkersLeasesAreTakenBackAndItsLateReportNamesItsPicture() throws {
        let leased = try Leased(count: 2)
        let effects = try leased.session.transaction("taking back") {
            var anchors = PostgresAnchors()
            return try PostgresLeases.takeBack(
                worker: "w1", of: "c1", reason: "worker w1 went silent", code: .workerSilent, countAttempt: true, retry: RetryPolicy(),
                anchors: &anchors, in: leased.session)
        }
        #expect(effects.count == 2)
        #expect(effects.allSatisfy { if case .updated(_, .pending, "worker w1 went silent", _?, .workerSilent?) = $0 { true } else { false } })
        #expect(try leased.claims.map { try leased.row($0).1 } == [1, 1])

        let c2 = try leased.fixture.session("c2")
        let late = try leased.report(leased.claims[0], .generated, through: c2)
        #expect(late.effect == .staleLease)
        #expect(late.leftover == LeftoverPicture(picture: leased.claims[0].job.picture, key: leased.key(of: leased.claims[0])))

        // Leased again and given back by a worker that said goodbye: no attempt counted.
        let again = try leased.session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 2)], lastServed: [:], deadline: 120, in: leased.session)
        }
        #expect(again.isEmpty, "both wait out their back-off")
        try leased.session.query("UPDATE job SET not_before = NULL", "")
        let back = try leased.session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 2)], lastServed: [:], deadline: 120, in: leased.session)
        }
        #expect(back.count == 2)
        let polite = try leased.session.transaction("taking back") {
            var anchors = PostgresAnchors()
            return try PostgresLeases.takeBack(
                worker: "w1", of: "c1", reason: "worker w1 said goodbye", code: .workerRestarted, countAttempt: false, retry: RetryPolicy(),
                anchors: &anchors, in: leased.session)
        }
        #expect(polite.isEmpty)
        #expect(try leased.claims.map { try leased.row($0).1 } == [1, 1])
        #expect(try leased.claims.map { try leased.row($0).5 } == [false, false])
    }

    /// A lease past its render deadline (the database's clock) is taken back by its coordinator
    /// and counts an attempt; another coordinator's leases are its own to expire.
    @Test func aLeasePastItsDeadlineCountsAnAttempt() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 2, in: session)
        let short = try session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 1)], lastServed: [:], deadline: 0.2, in: session)
        }
        _ = try session.transaction("leasing") {
            try PostgresLeases.claim(coordinator: "c2", slots: [("w2", 1)], lastServed: [:], deadline: 0.2, in: session)
        }
        Thread.sleep(forTimeInterval: 0.4)
        let expired = try session.transaction("expiring") {
            var anchors = PostgresAnchors()
            return try PostgresLeases.expireOverdue(of: "c1", retry: RetryPolicy(), anchors: &anchors, in: session)
        }
        #expect(expired.count == 1)
        guard case .updated(let picture, .pending, "timed out on worker w1", _?, .timedOut?) = try #require(expired.first) else {
            Issue.record("\(expired)")
            return
        }
        #expect(picture == short[0].job.picture)
        let leased = try session.query("SELECT lease_coordinator FROM job WHERE lease_id IS NOT NULL", "").map { try $0.decode(String.self) }
        #expect(leased == ["c2"])
    }

    /// A zone added through another coordinator while a report is checked: the report waits for
    /// the zone's transaction (the owner's policy row), then is checked against the zones it made
    /// and refused; it is never stored under the key of the zones before.
    @Test func aReportWaitsForAZoneChangeAndIsCheckedAgainstIt() throws {
        let leased = try Leased()
        let claim = try #require(leased.claims.first)
        let events = EventLog()
        let zoneAdded = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let fixture = leased.fixture
        Thread.detachNewThread {
            defer { committed.signal() }
            do {
                let c2 = try fixture.session("c2")
                try c2.transaction("adding a zone") {
                    _ = try PostgresPrivacy.addZone(owner: "ann", latitude: 52, longitude: 4, radius: 200, in: c2)
                    zoneAdded.signal()
                    Thread.sleep(forTimeInterval: 0.5)
                    events.append("zone committed")
                }
            } catch {
                events.append("zone failed: \(error)")
            }
        }
        zoneAdded.wait()
        let outcome = try leased.report(claim, .generated)
        events.append("report checked")
        committed.wait()
        #expect(events.all == ["zone committed", "report checked"])
        #expect(outcome.effect == .outdated(claim.job.picture))
        #expect(leased.keys.policy == 2)
        #expect(try leased.row(claim).0 == "pending")
    }
}
