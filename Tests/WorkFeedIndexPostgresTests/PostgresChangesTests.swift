import Foundation
import PostgresNIO
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// CHANGES over anchors made of transaction ids, read below the horizon (docs/postgres-index.md,
/// "Anchors"), against a real server.
///
/// The horizon is the whole cluster's: the other tests' transactions on the shared server would
/// hold it back at moments of their own. These tests have a server of their own, one test at a
/// time, so that what they read is what their own transactions allow.
@Suite(.serialized, .enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresChangesTests {
    static let server = Result<PostgresTestServer, PostgresTestServerError> { () throws(PostgresTestServerError) in
        try PostgresTestServer()
    }

    /// The race that makes a plain sequence skip: B takes its transaction first, A commits a
    /// change before B does. A reader sees neither until B ends, then both in order; going on
    /// from the last anchor it was given, it misses nothing.
    @Test func aReaderNeverSkipsAChangeOfATransactionThatCommitsLater() throws {
        let fixture = try PostgresFixture(on: Self.server.get())
        let a = try fixture.session("a")
        let b = try fixture.session("b")
        let reader = try fixture.session("reader")
        let start = try PostgresChanges.currentAnchor(in: reader)

        try b.query("BEGIN", "")
        try b.query("SELECT pg_current_xact_id()", "b takes its transaction id first")
        try PostgresFixture.addJobs(owner: "ann", count: 1, in: a)  // A: its own transaction, committed
        var read = try PostgresChanges.changes(since: start, limit: 100, owner: nil, in: reader)
        #expect(read.changes.isEmpty, "A's change is above the horizon while B runs: \(read.changes)")
        #expect(try PostgresChanges.currentAnchor(in: reader) < PostgresFixture.anchors(of: "ann", in: reader).min()!)

        try PostgresFixture.addJobs(owner: "bob", count: 1, in: b)
        try b.query("COMMIT", "")
        read = try PostgresChanges.changes(since: start, limit: 100, owner: nil, in: reader)
        // B's anchors are below A's (its transaction id is), and both are read now, in order.
        #expect(read.changes.map(\.change) == [.workout, .pictures, .workout, .pictures])
        #expect(read.changes.map(\.anchor) == read.changes.map(\.anchor).sorted())
        let owners = try read.changes.map { change in
            try reader.query("SELECT owner FROM workout WHERE id = \(change.id.uuid)", "").first { _ in true }!.decode(String.self)
        }
        #expect(owners == ["bob", "bob", "ann", "ann"])
        #expect(read.more == false)

        // Going on from the last anchor: nothing again, then the next change only.
        let last = try #require(read.changes.last).anchor
        #expect(try PostgresChanges.changes(since: last, limit: 100, owner: nil, in: reader).changes.isEmpty)
        try PostgresFixture.addJobs(owner: "ann", count: 1, in: a)
        let next = try PostgresChanges.changes(since: last, limit: 100, owner: "ann", in: reader)
        #expect(next.changes.count == 2 && next.changes.allSatisfy { $0.anchor > last })
        #expect(try PostgresChanges.changes(since: last, limit: 100, owner: "bob", in: reader).changes.isEmpty)
    }

    /// Pages of `limit` say whether more follow, and a rolled-back transaction leaves a gap, not
    /// a change.
    @Test func pagesAndGaps() throws {
        let fixture = try PostgresFixture(on: Self.server.get())
        let session = try fixture.session("writer")
        let start = try PostgresChanges.currentAnchor(in: session)
        try session.query("BEGIN", "")
        try PostgresFixture.addJobs(owner: "gone", count: 3, in: session)
        try session.query("ROLLBACK", "")
        try PostgresFixture.addJobs(owner: "ann", count: 3, in: session)
        let first = try PostgresChanges.changes(since: start, limit: 4, owner: nil, in: session)
        #expect(first.changes.count == 4 && first.more)
        let rest = try PostgresChanges.changes(since: first.changes.last!.anchor, limit: 4, owner: nil, in: session)
        #expect(rest.changes.count == 2 && !rest.more)
        #expect(Set((first.changes + rest.changes).map(\.id)).count == 3)
    }
}

extension PostgresFixture {
    /// The anchors of `owner`'s workouts.
    static func anchors(of owner: String, in session: PostgresSession) throws -> [Int64] {
        try session.query("SELECT anchor FROM workout WHERE owner = \(owner)", "").map { try $0.decode(Int64.self) }
    }
}
