import Foundation
import Logging
import PostgresNIO
import Testing
import WorkFeedIndex
import WorkFeedIndexContract
@testable import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// The periodic work of several coordinators' writers (``IndexWriting/lead(now:)``): one of them
/// leads at a time, the others' periodic work is fenced off, a writer that leaves gives back its
/// term and its leases at once, one that stalls past its term does nothing beside the next
/// leader, and the leader's upkeep forgets old ended leases.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresPeriodicWorkTests {
    static let logger = Logger(label: "postgres-periodic-tests")

    func writer(
        _ coordinator: String, on fixture: PostgresFixture, termSeconds: Double = PostgresLeader.defaultTermSeconds
    ) throws
        -> PostgresIndexStore
    {
        try PostgresIndexBackend(fixture.location, coordinator: coordinator, termSeconds: termSeconds).openWriter(logger: Self.logger)
    }

    @Test func oneOfTwoWritersLeadsAndTheOtherTakesOverAtOnceWhenItLeaves() throws {
        let fixture = try PostgresFixture(migrated: false)
        let first = try writer("c1", on: fixture)
        let second = try writer("c2", on: fixture)
        #expect(try first.write { try $0.lead(now: Date()) } == LeadershipTerm(holder: "c1", number: 1))
        #expect(try second.write { try $0.lead(now: Date()) } == nil)
        #expect(try first.write { try $0.lead(now: Date()) } == LeadershipTerm(holder: "c1", number: 1))
        #expect(try first.write { try $0.fencePeriodicWork() })
        #expect(try second.write { try $0.fencePeriodicWork() } == false)
        let session = try fixture.session("test")
        #expect(Set(try PostgresCoordinators.all(in: session).map(\.id)) == ["c1", "c2"])

        // The first one's workers hold every job when it stops: the second leases them at once,
        // not when the leases would have lapsed.
        for number in 0..<3 {
            _ = try first.write { transaction in
                try transaction.importWorkout(
                    IndexStoreContract.workout("periodic-\(number)"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false,
                    now: Date(), replacedFile: { _ in })
            }
        }
        _ = try first.write { transaction in
            try transaction.enqueue(
                EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], now: Date(),
                interactivePerOwner: 100, cacheKey: { _, _ in "k" })
        }
        #expect(try first.write { try $0.lease([("w-1", 8)], now: Date(), deadline: 60) { 1 } }.count == 3)
        #expect(try second.write { try $0.lease([("w-2", 8)], now: Date(), deadline: 60) { 2 } }.isEmpty)
        try first.leave()
        #expect(try second.write { try $0.lease([("w-2", 8)], now: Date(), deadline: 60) { 3 } }.count == 3)
        #expect(try second.write { try $0.lead(now: Date()) } == LeadershipTerm(holder: "c2", number: 2))
        #expect(try second.write { try $0.fencePeriodicWork() })
        #expect(try PostgresCoordinators.all(in: session).map(\.id) == ["c2"])
    }

    /// A leader that stalls (a paused machine) past its term: another takes the next term, and
    /// the stalled one's periodic work is fenced off; it asks again at its next turn and hears
    /// that another leads.
    @Test func aLeaderThatStalledPastItsTermDoesNoPeriodicWorkBesideTheNext() throws {
        let fixture = try PostgresFixture(migrated: false)
        let stalled = try writer("c1", on: fixture, termSeconds: 0.3)
        let next = try writer("c2", on: fixture)
        let term = try #require(try stalled.write { try $0.lead(now: Date()) })
        #expect(try next.write { try $0.lead(now: Date()) } == nil)
        var taken: LeadershipTerm?
        let deadline = ContinuousClock.now + .seconds(10)
        while taken == nil, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            taken = try next.write { try $0.lead(now: Date()) }
        }
        #expect(taken == LeadershipTerm(holder: "c2", number: term.number + 1))
        #expect(try stalled.write { try $0.fencePeriodicWork() } == false)
        #expect(try stalled.write { try $0.lead(now: Date()) } == nil)
        // Leaving without a term gives back no other's.
        try stalled.leave()
        #expect(try PostgresLeader.current(in: fixture.session("test"))?.term == taken)
    }

    /// Leases that ended without their report are remembered for an hour (a late report still
    /// names its picture); the leader forgets older ones, a writer that does not lead never does.
    @Test func theLeaderForgetsLeasesEndedOverAnHourAgo() throws {
        let fixture = try PostgresFixture(migrated: false)
        let follower = try writer("c2", on: fixture)
        let session = try fixture.session("test")
        try session.query(
            """
            INSERT INTO ended_lease (lease_id, workout_id, kind, theme, scale, ended_at) VALUES
                (1, gen_random_uuid(), 'route', 'light', 1, now() - interval '2 hours'),
                (2, gen_random_uuid(), 'route', 'light', 1, now() - interval '10 minutes')
            """, "remembering two ended leases")
        let other = try #require(try PostgresLeader.takeOver(as: "c0", termSeconds: 30, in: session))
        #expect(try follower.write { try $0.lead(now: Date()) } == nil)
        let remembered = { () throws -> [Int64] in
            try session.query("SELECT lease_id FROM ended_lease ORDER BY lease_id", "reading").decoded("leases") { try $0.decode(Int64.self) }
        }
        #expect(try remembered() == [1, 2])
        try PostgresLeader.resign(other, in: session)
        let leader = try writer("c1", on: fixture)
        #expect(try leader.write { try $0.lead(now: Date()) } != nil)
        #expect(try remembered() == [2])
    }
}
