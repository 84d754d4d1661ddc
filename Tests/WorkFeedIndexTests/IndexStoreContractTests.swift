import Foundation
import Testing
import WorkFeedIndex
import WorkFeedModel

/// The semantics ``WorkoutIndexStore`` promises the coordinator, checked through the protocol
/// alone, so that a second implementation can run the same checks (here: the SQLite index).
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

    /// Leases live in memory: taken and committed, they are in ``WorkoutIndexStore/leases``, and the
    /// leased jobs are still pending in the index.
    func leasesAreNotStored(_ store: some WorkoutIndexStore) throws {
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

    @Test func theSQLiteIndexKeepsTheContract() throws {
        try transactionsAreAtomic(TemporaryIndex().index)
        try anchorsOnlyGoUp(TemporaryIndex().index)
        let temporary = try TemporaryIndex()
        try anchorsOnlyGoUp(temporary.index)
        try leasesAreNotStored(temporary.index)
        // A restart forgets them: every pending job is ready again.
        let restarted = try temporary.restart()
        #expect(restarted.leases.count == 0)
        #expect(try temporary.ready() == 3)
    }
}
