import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
import WorkFeedIndexContract
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// The index contract (``IndexStoreContract``) on the PostgreSQL index, opened through its
/// ``IndexBackend`` as a coordinator opens it, each check on a database of its own; and what an
/// index of several writers promises besides: a second writer is admitted, sees the first one's
/// commits, and never leases what the other holds. The anchors' horizon is the whole cluster's
/// (PostgresChangesTests): these tests have a server of their own, one test at a time.
@Suite(.serialized, .enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresContractTests {
    static let server = Result<PostgresTestServer, PostgresTestServerError> { () throws(PostgresTestServerError) in
        try PostgresTestServer()
    }

    func backend(
        _ coordinator: String = "c1", on fixture: PostgresFixture? = nil, termSeconds: Double = PostgresLeader.defaultTermSeconds
    ) throws
        -> PostgresIndexBackend
    {
        PostgresIndexBackend(
            try fixture?.location ?? PostgresFixture(migrated: false, on: Self.server.get()).location, coordinator: coordinator,
            termSeconds: termSeconds)
    }

    @Test func thePostgresIndexKeepsTheContract() throws {
        let logger = Logger(label: "test")
        try IndexStoreContract.transactionsAreAtomic(try backend().openWriter(logger: logger))
        try IndexStoreContract.anchorsOnlyGoUp(try backend().openWriter(logger: logger))
        try IndexStoreContract.theOnlyWriterLeadsWithOneTerm(try backend().openWriter(logger: logger))
        try IndexStoreContract.zoneIDsAreNeverReused(try backend().openWriter(logger: logger))
        try IndexStoreContract.keysAreMadeOfTheStoredRoutesBox(try backend().openWriter(logger: logger))
        try IndexStoreContract.summaryRebuildsTakeOwnersInTurn(try backend().openWriter(logger: logger))
        try IndexStoreContract.removalsWaitUntilForgotten(try backend().openWriter(logger: logger))
        try IndexStoreContract.repliesAreKeptByOwnerAndKey(try backend().openWriter(logger: logger))
        try IndexStoreContract.keptOriginalsAndActivitiesAreTheWorkouts(try backend().openWriter(logger: logger))
        let shared = try backend()
        try IndexStoreContract.leasesAreTheWritersAndTheirJobsPending(try shared.openWriter(logger: logger))
        // A coordinator opening the index again under its id (restarted) starts with no leases,
        // as SQLite's: every pending job is ready again.
        let restarted = try shared.openWriter(logger: logger)
        #expect(restarted.leasedCount == 0)
        #expect(try restarted.write { try $0.readyCount(now: Date()) } == 3)
        try IndexStoreContract.readersSeeCommittedTransactions(try backend())
    }

    @Test func aSecondWriterIsAdmittedAndSeesTheFirstOnesCommits() throws {
        let fixture = try PostgresFixture(migrated: false, on: Self.server.get())
        let logger = Logger(label: "test")
        let first = try backend("c1", on: fixture).openWriter(logger: logger)
        let second = try backend("c2", on: fixture).openWriter(logger: logger)
        for number in 0..<4 {
            _ = try (number % 2 == 0 ? first : second).write { transaction in
                try transaction.importWorkout(
                    IndexStoreContract.workout("shared-\(number)"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false,
                    now: Date(),
                    replacedFile: { _ in })
            }
        }
        #expect(try first.read { try $0.workoutCount(owner: nil) } == 4)
        _ = try second.write { transaction in
            try transaction.enqueue(
                EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], now: Date(), interactivePerOwner: 100,
                cacheKey: { _, _ in "k" })
        }
        let mine = try first.write { try $0.lease([("w-1", 3)], now: Date(), deadline: 60) { 0 } }
        let theirs = try second.write { try $0.lease([("w-2", 8)], now: Date(), deadline: 60) { 0 } }
        #expect(mine.count == 3 && theirs.count == 1)
        #expect(Set(mine.map(\.picture)).isDisjoint(with: theirs.map(\.picture)))
        #expect(first.leasedCount == 3 && second.leasedCount == 1)
    }

    /// Two coordinators' transactions that wait for each other: the server ends one (a
    /// deadlock), and its writer says so with a code of its own, without running the body again
    /// (the coordinator applies its batch again itself); the other commits.
    @Test func aDeadlockBetweenTwoWritersIsAConflictTheBodyIsNotRunAgainFor() throws {
        let fixture = try PostgresFixture(migrated: false, on: Self.server.get())
        let logger = Logger(label: "test")
        let backends = [try backend("c1", on: fixture), try backend("c2", on: fixture)]
        let runs = Mutex([0, 0])
        let outcomes = Mutex<[String]>([])
        let both = DispatchGroup()
        for (number, backend) in backends.enumerated() {
            both.enter()
            Thread.detachNewThread {
                defer { both.leave() }
                do {
                    // Each on a thread of its own with a writer of its own, as a coordinator's index thread.
                    try backend.openWriter(logger: logger).write { transaction in
                        runs.withLock { $0[number] += 1 }
                        let (first, second) = number == 0 ? (1, 2) : (2, 1)
                        try transaction.session.query("SELECT pg_advisory_xact_lock(\(first))", "taking the first lock")
                        Thread.sleep(forTimeInterval: 0.3)
                        try transaction.session.query("SELECT pg_advisory_xact_lock(\(second))", "taking the second lock")
                    }
                    outcomes.withLock { $0.append("committed") }
                } catch let error as IndexError {
                    outcomes.withLock { $0.append(error.code.rawValue) }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
        }
        both.wait()
        #expect(outcomes.withLock { $0.sorted() } == ["committed", "index-conflict"])
        #expect(runs.withLock { $0 } == [1, 1])
    }
}
