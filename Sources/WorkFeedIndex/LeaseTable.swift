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
    /// The owner whose job was leased last at each priority: the next lease at that priority
    /// starts with the owner after it (owners take turns; ``IndexTransaction/lease(_:now:deadline:nextLease:)``).
    /// Kept with the leases, so a rolled-back turn does not move it either.
    var lastOwnerServed: [Int64: String] = [:]

    public var count: Int { byLease.count }

    public subscript(lease: UInt64) -> Lease? { byLease[lease] }

    mutating func add(_ lease: UInt64, _ entry: Lease) {
        byLease[lease] = entry
        jobs.insert(entry.jobID)
    }

    @discardableResult
    mutating func remove(_ lease: UInt64) -> Lease? {
        guard let entry = byLease.removeValue(forKey: lease) else { return nil }
        jobs.remove(entry.jobID)
        return entry
    }

    func isLeased(job: Int64) -> Bool { jobs.contains(job) }

    mutating func setCacheKey(_ key: String, for lease: UInt64) {
        byLease[lease]?.cacheKey = key
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
