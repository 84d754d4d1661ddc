import Foundation
import Logging
import Testing
import WorkFeedIndex
import WorkFeedIndexContract
import WorkFeedModel

/// The semantics ``WorkoutIndexStore`` promises the coordinator (``IndexStoreContract``), on the
/// SQLite index, opened through its ``IndexBackend``; the PostgreSQL index runs the same checks.
@Suite struct IndexStoreContractTests {
    @Test func theSQLiteIndexKeepsTheContract() throws {
        try IndexStoreContract.transactionsAreAtomic(TemporaryIndex().index)
        try IndexStoreContract.anchorsOnlyGoUp(TemporaryIndex().index)
        try IndexStoreContract.theOnlyWriterLeadsWithOneTerm(TemporaryIndex().index)
        try IndexStoreContract.zoneIDsAreNeverReused(TemporaryIndex().index)
        try IndexStoreContract.keysAreMadeOfTheStoredRoutesBox(TemporaryIndex().index)
        try IndexStoreContract.summaryRebuildsTakeOwnersInTurn(TemporaryIndex().index)
        try IndexStoreContract.removalsWaitUntilForgotten(TemporaryIndex().index)
        try IndexStoreContract.repliesAreKeptByOwnerAndKey(TemporaryIndex().index)
        try IndexStoreContract.keptOriginalsAndActivitiesAreTheWorkouts(TemporaryIndex().index)
        let temporary = try TemporaryIndex()
        try IndexStoreContract.leasesAreTheWritersAndTheirJobsPending(temporary.index)
        // An index of one writer keeps them in memory: they end with it, and after a restart every
        // pending job is ready again.
        let restarted = try temporary.restart()
        #expect(restarted.leasedCount == 0)
        #expect(try temporary.ready() == 3)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try IndexStoreContract.readersSeeCommittedTransactions(SQLiteIndexBackend(path: directory.appendingPathComponent("index.sqlite").path))
    }

    /// A second writer on an index of one writer is refused when it opens, with a code that says so.
    @Test func aSecondSQLiteWriterIsRefusedAsLocked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = SQLiteIndexBackend(path: directory.appendingPathComponent("index.sqlite").path)
        let first = try backend.openWriter(logger: Logger(label: "test"))
        let error = #expect(throws: IndexError.self) { _ = try backend.openWriter(logger: Logger(label: "test")) }
        #expect(error?.code == .locked)
        withExtendedLifetime(first) {}
    }
}
