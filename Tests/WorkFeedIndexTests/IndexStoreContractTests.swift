import Foundation
import Logging
import Testing
import WorkFeedIndex
import WorkFeedModel

/// The semantics ``WorkoutIndexStore`` promises the coordinator, checked through the protocol
/// alone, so that a second backend runs the same checks (here: the SQLite index, opened through
/// its ``IndexBackend``).
@Suite struct IndexStoreContractTests {
    struct Refused: Error {}

    /// A transaction that throws keeps nothing: no workout, no anchor, no lease.
    func transactionsAreAtomic(_ store: some WorkoutIndexStore) throws {
        let anchor = store.anchor
        let error = #expect(throws: IndexError.self) {
            try store.write { transaction in
                _ = try transaction.importWorkout(
                    sampleWorkout(sourceID: "atomic"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(),
                    replacedFile: { _ in })
                var lease: UInt64 = 100
                _ = try transaction.lease([("w-1", 8)], now: Date(), deadline: 60) {
                    lease += 1
                    return lease
                }
                throw Refused()
            }
        }
        #expect(error?.cause is Refused)
        #expect(store.anchor == anchor)
        #expect(store.leases.count == 0)
        #expect(try store.read { try $0.workoutCount(owner: nil) } == 0)
    }

    /// Every change takes an anchor above the last committed one, and CHANGES lists it.
    func anchorsOnlyGoUp(_ store: some WorkoutIndexStore) throws {
        var last = store.anchor
        for number in 0..<3 {
            let reply = try store.write { transaction in
                try transaction.importWorkout(
                    sampleWorkout(sourceID: "anchor-\(number)"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false,
                    now: Date(), replacedFile: { _ in })
            }
            #expect(store.anchor > last)
            #expect(try store.read { try $0.currentAnchor() } == store.anchor)
            let changes = try store.read { try $0.changes(since: last, limit: 10, owner: nil) }.changes
            #expect(changes.map(\.id) == [reply.id])
            last = store.anchor
        }
    }

    /// Leases are the writer's: taken and committed, they are in ``WorkoutIndexStore/leases``, and
    /// the leased jobs are still pending in the index.
    func leasesAreTheWritersAndTheirJobsPending(_ store: some WorkoutIndexStore) throws {
        _ = try store.write { transaction in
            try transaction.enqueue(
                EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], now: Date(), interactivePerOwner: 100, cacheKey: anyKey)
        }
        var lease: UInt64 = 0
        let jobs = try store.write { transaction in
            try transaction.lease([("w-1", 8)], now: Date(), deadline: 60) {
                lease += 1
                return lease
            }
        }
        #expect(!jobs.isEmpty && store.leases.count == jobs.count)
        let pending = try store.read { try $0.statusCounts(owner: nil) }.filter { $0.status == .pending }.map(\.count).reduce(0, +)
        #expect(pending == jobs.count)
    }

    /// Readers opened through the backend see what the writer committed, and only that.
    func readersSeeCommittedTransactions<Backend: IndexBackend>(_ backend: Backend) throws {
        let writer = try backend.openWriter(logger: Logger(label: "test"))
        let reader = try backend.openReader(logger: Logger(label: "test"))
        _ = try writer.write { transaction in
            try transaction.importWorkout(
                sampleWorkout(sourceID: "seen"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(),
                replacedFile: { _ in })
        }
        #expect(try reader.read { try $0.workoutCount(owner: nil) } == 1)
        _ = try? writer.write { transaction in
            _ = try transaction.importWorkout(
                sampleWorkout(sourceID: "rolled back"), owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(),
                replacedFile: { _ in })
            throw Refused()
        }
        #expect(try reader.read { try $0.workoutCount(owner: nil) } == 1)
        #expect(try reader.read { try $0.currentAnchor() } == writer.anchor)
    }

    @Test func theSQLiteIndexKeepsTheContract() throws {
        try transactionsAreAtomic(TemporaryIndex().index)
        try anchorsOnlyGoUp(TemporaryIndex().index)
        let temporary = try TemporaryIndex()
        try anchorsOnlyGoUp(temporary.index)
        try leasesAreTheWritersAndTheirJobsPending(temporary.index)
        // An index of one writer keeps them in memory: they end with it, and after a restart every
        // pending job is ready again.
        let restarted = try temporary.restart()
        #expect(restarted.leases.count == 0)
        #expect(try temporary.ready() == 3)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try readersSeeCommittedTransactions(SQLiteIndexBackend(path: directory.appendingPathComponent("index.sqlite").path))
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
