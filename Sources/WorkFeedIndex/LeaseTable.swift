import Synchronization
public import WorkFeedModel

/// The jobs out with workers right now.
///
/// Kept in memory, never in the index file: a lease says "this worker is rendering this job now",
/// which stops being true when the coordinator stops. A restarted coordinator starts with no
/// leases, so every `pending` job is ready again, and a late report for a lease of the previous run
/// finds nothing and is ignored. Not writing leases also halves the index writes per job.
///
/// A transaction works on a copy (see ``WorkoutIndex/write(_:)``): leases taken or ended in a
/// transaction that rolls back are forgotten with it.
public struct LeaseTable: Sendable {
    public struct Lease: Sendable, Hashable {
        public var jobID: Int64
        /// The job row's anchor when it was leased. Anything that changes the job meanwhile (new
        /// inputs, deletion) changes or removes it, which makes the worker's report stale.
        public var anchor: Int64
        public var picture: PictureID
        /// The worker's key (``IndexTransaction/lease(_:now:deadline:nextLease:)``).
        public var worker: String
        /// Seconds since 1970 after which the job is leased again.
        public var deadline: Double
        /// The cache key sent with the job; a `generated` report must quote it.
        public var cacheKey: String?
    }

    private(set) var byLease: [UInt64: Lease] = [:]
    /// The leased jobs' ids, which the search for ready jobs skips.
    private(set) var jobs: Set<Int64> = []
    /// The cache keys sent with current leases, with how many leases each: a picture under one of
    /// these may be being written right now, so its files must not be removed.
    private(set) var drawing: [String: Int] = [:]
    /// Leases that ended, remembered for a while (shared by every copy: see ``EndedLeases``).
    private let ended = EndedLeases()
    /// The owner whose job was leased last at each priority: the next lease at that priority
    /// starts with the owner after it (owners take turns; ``IndexTransaction/lease(_:now:deadline:nextLease:)``).
    /// Kept with the leases, so a rolled-back turn does not move it either.
    var lastOwnerServed: [Int64: String] = [:]

    public var count: Int { byLease.count }

    public subscript(lease: UInt64) -> Lease? { byLease[lease] }

    mutating func add(_ lease: UInt64, _ entry: Lease) {
        byLease[lease] = entry
        jobs.insert(entry.jobID)
        if let key = entry.cacheKey { drawing[key, default: 0] += 1 }
    }

    @discardableResult
    mutating func remove(_ lease: UInt64) -> Lease? {
        guard let entry = byLease.removeValue(forKey: lease) else { return nil }
        jobs.remove(entry.jobID)
        if let key = entry.cacheKey { stopDrawing(key) }
        ended.remember(lease, entry)
        return entry
    }

    func isLeased(job: Int64) -> Bool { jobs.contains(job) }

    /// Whether a current lease was sent with this cache key.
    func isDrawing(key: String) -> Bool { drawing[key] != nil }

    /// Whether a current lease is drawing `picture` under this cache key.
    func isDrawing(_ picture: PictureID, key: String) -> Bool {
        drawing[key] != nil && byLease.values.contains { $0.picture == picture && $0.cacheKey == key }
    }

    /// A lease that has ended (reported, taken back, expired, its workout deleted), while it is
    /// still remembered: what a late report on it names.
    public func ended(_ lease: UInt64) -> Lease? { ended[lease] }

    mutating func setCacheKey(_ key: String, for lease: UInt64) {
        guard let previous = byLease[lease] else { return }
        if let old = previous.cacheKey { stopDrawing(old) }
        byLease[lease]?.cacheKey = key
        drawing[key, default: 0] += 1
    }

    private mutating func stopDrawing(_ key: String) {
        if let count = drawing[key], count > 1 { drawing[key] = count - 1 } else { drawing[key] = nil }
    }

    /// The leases held by `worker`, oldest lease first.
    func leases(of worker: String) -> [(lease: UInt64, entry: Lease)] {
        byLease.filter { $0.value.worker == worker }.map { ($0.key, $0.value) }.sorted { $0.lease < $1.lease }
    }

    /// The leases whose deadline is before `now`, oldest lease first.
    func expired(at now: Double) -> [(lease: UInt64, entry: Lease)] {
        byLease.filter { $0.value.deadline < now }.map { ($0.key, $0.value) }.sorted { $0.lease < $1.lease }
    }

    /// The leases on pictures of these workouts.
    func leases(onWorkouts ids: Set<WorkoutID>) -> [UInt64] {
        byLease.filter { ids.contains($0.value.picture.workoutID) }.map(\.key)
    }
}

/// The leases that ended most recently (at most ``capacity``), so that a report arriving after its
/// lease ended (the job taken back, its workout deleted, its inputs changed) still names the
/// picture the worker wrote, which is then removed (``LeftoverPicture``).
///
/// One memory shared by every copy of a ``LeaseTable``, not rolled back with a transaction: an
/// entry left by a transaction that rolled back names a lease that is still current, and a current
/// lease is always looked up first.
final class EndedLeases: Sendable {
    /// Far more than the leases out at any time (every worker's slots), so that a burst of ended
    /// leases (a deleted owner's, a pool of workers gone) stays remembered.
    static let capacity = 16_384

    private struct State {
        var byLease: [UInt64: LeaseTable.Lease] = [:]
        var order: [UInt64] = []
        var next = 0
    }
    private let state = Mutex(State())

    func remember(_ lease: UInt64, _ entry: LeaseTable.Lease) {
        state.withLock { state in
            if state.order.count < Self.capacity {
                state.order.append(lease)
            } else {
                state.byLease[state.order[state.next]] = nil
                state.order[state.next] = lease
                state.next = (state.next + 1) % Self.capacity
            }
            state.byLease[lease] = entry
        }
    }

    subscript(lease: UInt64) -> LeaseTable.Lease? { state.withLock { $0.byLease[lease] } }
}
