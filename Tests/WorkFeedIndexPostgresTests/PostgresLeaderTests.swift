import Foundation
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedTesting

/// One coordinator of several does the periodic work at a time (docs/postgres-index.md, "The
/// leader"), against a real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresLeaderTests {
    /// One takes the lead; the other cannot while the term lives and is renewed; once it runs
    /// out, the other takes the next term, and the first one's renewal and fence find it gone.
    @Test func oneLeadsUntilItsTermRunsOutThenAnotherWithTheNextTerm() throws {
        let fixture = try PostgresFixture()
        let c1 = try fixture.session("c1")
        let c2 = try fixture.session("c2")
        #expect(try PostgresLeader.current(in: c1) == nil)

        let first = try #require(try PostgresLeader.takeOver(as: "c1", termSeconds: 1, in: c1))
        #expect(first == PostgresLeader.Term(holder: "c1", number: 1))
        #expect(try PostgresLeader.takeOver(as: "c2", termSeconds: 1, in: c2) == nil)
        #expect(try PostgresLeader.renew(first, termSeconds: 1, in: c1))
        let seen = try #require(try PostgresLeader.current(in: c2))
        #expect(seen.term == first && seen.secondsLeft > 0 && seen.secondsLeft <= 1)
        try c1.transaction("periodic work") { try PostgresLeader.fence(first, in: c1) }

        // c1 stalls past its term: c2 takes the next one.
        var second: PostgresLeader.Term?
        let deadline = ContinuousClock.now + .seconds(10)
        while second == nil, ContinuousClock.now < deadline {
            second = try PostgresLeader.takeOver(as: "c2", termSeconds: 5, in: c2)
            if second == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(second == PostgresLeader.Term(holder: "c2", number: 2))
        #expect(try PostgresLeader.renew(first, in: c1) == false)
        do {
            try c1.transaction("periodic work") { try PostgresLeader.fence(first, in: c1) }
            Issue.record("a leader whose term ended did periodic work")
        } catch {
            #expect(error.code == .lostLead)
            #expect(error.message.contains("term 1 of c1 has ended"), "\(error)")
        }
        // Giving back a term not held changes nothing.
        #expect(try PostgresLeader.resign(first, in: c1) == false)
        #expect(try PostgresLeader.current(in: c1)?.term == second)
    }

    /// A leader that stalls inside a periodic transaction holds the row: a take-over waits for
    /// that transaction to end, so two leaders' periodic work never overlaps.
    @Test func aTakeOverWaitsForTheLeadersPeriodicTransaction() throws {
        let fixture = try PostgresFixture()
        let c1 = try fixture.session("c1")
        let term = try #require(try PostgresLeader.takeOver(as: "c1", termSeconds: 0.5, in: c1))
        let tookOver = DispatchSemaphore(value: 0)
        let events = EventLog()
        try c1.transaction("periodic work") {
            try PostgresLeader.fence(term, in: c1)
            Thread.detachNewThread {
                // Past c1's term, while its transaction is open.
                Thread.sleep(forTimeInterval: 0.8)
                let taken = try? PostgresLeader.takeOver(as: "c2", in: try fixture.session("c2"))
                events.append("c2 took \(taken.map(\.description) ?? "nothing")")
                tookOver.signal()
            }
            Thread.sleep(forTimeInterval: 1.5)
            events.append("c1 commits")
        }
        tookOver.wait()
        #expect(events.all == ["c1 commits", "c2 took term 2 of c2"])
    }

    /// At shutdown a leader gives its term back: another takes over at once.
    @Test func aResignedTermIsTakenOverAtOnce() throws {
        let fixture = try PostgresFixture()
        let c1 = try fixture.session("c1")
        let c2 = try fixture.session("c2")
        let term = try #require(try PostgresLeader.takeOver(as: "c1", in: c1))
        #expect(try PostgresLeader.resign(term, in: c1))
        #expect(try PostgresLeader.takeOver(as: "c2", in: c2) == PostgresLeader.Term(holder: "c2", number: 2))
    }
}

/// Lines appended from several threads, in the order they happened.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
