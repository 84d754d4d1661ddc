import Foundation
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// Leases in the job rows, shared by several coordinators (docs/postgres-index.md, "Leases in the
/// database"), against a real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresLeaseTests {
    /// Within a priority owners take turns from the one after the owner served last, each owner's
    /// oldest first: one owner's flood takes one place a round like everybody else's few. A
    /// higher priority goes first; the jobs are dealt over the workers' slots in turn.
    @Test func aClaimIsFairOverOwnersAndDealtOverWorkers() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "flood", count: 200, in: session)
        for owner in ["ann", "bob", "cat"] { try PostgresFixture.addJobs(owner: owner, count: 3, in: session) }
        try PostgresFixture.addJobs(owner: "urgent", count: 2, priority: 100, in: session)

        let first = try session.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 4), ("w2", 4)], lastServed: [:], deadline: 120, in: session)
        }
        #expect(first.map(\.job.owner) == ["urgent", "urgent", "ann", "bob", "cat", "flood", "ann", "bob"])
        #expect(first.map(\.priority) == [100, 100, 0, 0, 0, 0, 0, 0])
        #expect(first.map(\.job.worker) == ["w1", "w2", "w1", "w2", "w1", "w2", "w1", "w2"])
        #expect(Set(first.map(\.job.lease)).count == 8)
        // Each owner's oldest first.
        let annsWorkouts = try session.query("SELECT id FROM job WHERE owner = 'ann' ORDER BY id", "").map { try $0.decode(Int64.self) }
        #expect(first.filter { $0.job.owner == "ann" }.map(\.job.jobID) == Array(annsWorkouts.prefix(2)))
        // The route and series come with the lease.
        #expect(first[0].job.route == [1, 2] && first[0].job.heartRate == [3])
        #expect(first[0].job.picture.kind == .route && first[0].job.picture.theme == .light)

        // The next claim goes on after the last owner served (bob at priority 0).
        let served = PostgresLeases.lastServed(after: first, [:])
        #expect(served == [100: "urgent", 0: "bob"])
        let second = try session.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 6)], lastServed: served, deadline: 120, in: session)
        }
        #expect(second.map(\.job.owner) == ["cat", "flood", "ann", "bob", "cat", "flood"])
        // Nothing leased twice.
        #expect(Set((first + second).map(\.job.jobID)).count == 14)
    }

    /// Two coordinators claiming from one queue at the same time, a batch a transaction and each
    /// batch finished in the next: every job is leased once, none is lost.
    @Test func twoCoordinatorsClaimingAtOnceNeverShareAJob() throws {
        let fixture = try PostgresFixture()
        let setup = try fixture.session("setup")
        for owner in 0..<20 { try PostgresFixture.addJobs(owner: "owner-\(owner)", count: 100, in: setup) }

        let leased = Mutex<[String: [Int64]]>([:])
        let started = ContinuousClock.now
        let failures = fixture.concurrently(["c1", "c2"]) { coordinator, session in
            var served: [Int64: String] = [:]
            var previous: [PostgresLeases.Claim] = []
            while true {
                // A turn: the last batch's reports and the next claim in one transaction.
                let claims = try session.transaction("a turn of \(coordinator)") {
                    try PostgresFixture.finish(previous, in: session)
                    return try PostgresLeases.claim(
                        coordinator: coordinator, slots: [("\(coordinator)-w1", 8), ("\(coordinator)-w2", 8)], lastServed: served,
                        deadline: 120, in: session)
                }
                leased.withLock { $0[coordinator, default: []] += claims.map(\.job.jobID) }
                if claims.isEmpty, previous.isEmpty { break }
                served = PostgresLeases.lastServed(after: claims, served)
                previous = claims
            }
        }
        let took = ContinuousClock.now - started
        #expect(failures.isEmpty, "\(failures)")
        let byCoordinator = leased.withLock { $0 }
        let all = byCoordinator.values.joined()
        #expect(all.count == 2_000, "leased \(all.count) times")
        #expect(Set(all).count == 2_000, "\(all.count - Set(all).count) jobs leased twice")
        // Both took part (neither waited for the other's locks: SKIP LOCKED).
        #expect(byCoordinator.values.allSatisfy { $0.count > 100 }, "\(byCoordinator.mapValues(\.count))")
        let counts = try setup.query("SELECT status, count(*)::bigint, sum(attempts)::bigint FROM job GROUP BY status", "")
            .map { try $0.decode((String, Int64, Int64).self) }
        #expect(counts.map(\.0) == ["generated"] && counts.first?.1 == 2_000 && counts.first?.2 == 2_000)
        print(
            "two coordinators, one PostgreSQL queue (test server, fsync off): 2,000 jobs in \(took), "
                + "\(byCoordinator.mapValues(\.count).sorted { $0.key < $1.key }) (not a benchmark)")
    }

    /// A coordinator that dies stops renewing its leases: its jobs are claimed by another once
    /// the leases expire, not before; one that lives renews them and keeps its jobs.
    @Test func aDeadCoordinatorsJobsAreClaimedOnceItsLeasesExpire() throws {
        let fixture = try PostgresFixture()
        let c1 = try fixture.session("c1")
        let c2 = try fixture.session("c2")
        try PostgresFixture.addJobs(owner: "ann", count: 4, in: c1)

        let held = try c1.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 2)], lastServed: [:], deadline: 120, leaseSeconds: 1, in: c1)
        }
        #expect(held.count == 2)
        // While c1's leases live, c2 gets the other jobs only.
        let others = try c2.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c2", slots: [("w2", 4)], lastServed: [:], deadline: 120, in: c2)
        }
        #expect(Set(others.map(\.job.jobID)).isDisjoint(with: held.map(\.job.jobID)) && others.count == 2)
        #expect(try c1.transaction("renewing") { try PostgresLeases.renew(coordinator: "c1", leaseSeconds: 1, in: c1) } == 2)

        // c1 dies (its session ends without a word); after its leases' second, c2 takes its jobs.
        c1.close()
        var taken: [PostgresLeases.Claim] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while taken.isEmpty, ContinuousClock.now < deadline {
            taken = try c2.transaction("claiming") {
                try PostgresLeases.claim(coordinator: "c2", slots: [("w2", 4)], lastServed: [:], deadline: 120, in: c2)
            }
            if taken.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(Set(taken.map(\.job.jobID)) == Set(held.map(\.job.jobID)))
        #expect(taken.allSatisfy { $0.job.worker == "w2" })
        // New lease ids: a late report on c1's old ones matches nothing.
        #expect(Set(taken.map(\.job.lease)).isDisjoint(with: held.map(\.job.lease)))
    }

    /// A JOB that never reached its worker is returned: the job is ready again at once, and its
    /// old lease is gone.
    @Test func aReturnedLeaseMakesItsJobReadyAtOnce() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 1, in: session)
        let claim = try session.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 1)], lastServed: [:], deadline: 120, in: session)
        }
        let lease = try #require(claim.first).job.lease
        #expect(
            try session.transaction("claiming") {
                try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 1)], lastServed: [:], deadline: 120, in: session)
            }.isEmpty)
        #expect(try session.transaction("returning") { try PostgresLeases.returnLease(lease, in: session) })
        #expect(try session.transaction("returning") { try PostgresLeases.returnLease(lease, in: session) } == false)
        let again = try session.transaction("claiming") {
            try PostgresLeases.claim(coordinator: "c1", slots: [("w1", 1)], lastServed: [:], deadline: 120, in: session)
        }
        #expect(again.map(\.job.jobID) == claim.map(\.job.jobID))
    }
}
