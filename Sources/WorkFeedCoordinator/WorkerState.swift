// What the dispatcher keeps of its workers, whatever its index (kept apart from the generic
// ``Dispatcher`` so that every part names one type).

/// What the dispatcher knows of a connected worker. Credits are `capacity - inFlight.count`.
struct WorkerState {
    var name: String
    /// The worker process's instance from READY (empty from older workers).
    var instance: String = ""
    var key: String
    var capacity: Int
    var inFlight: Set<UInt64> = []
    var lastHeard: ContinuousClock.Instant
    var done = 0
    /// Transient failures reported one after the other, and when the first of them came.
    var failureStreak = 0
    var streakStarted: ContinuousClock.Instant?
    var credits: Int { max(0, capacity - inFlight.count) }
}

/// Which workers fail where others succeed: kept beside the workers, and like them only once
/// a batch commits.
struct WorkerHealth {
    /// When some worker last had a picture generated.
    var lastGenerated: ContinuousClock.Instant?
    /// Workers set aside, by name, until when.
    var setAside: [String: ContinuousClock.Instant] = [:]
}
