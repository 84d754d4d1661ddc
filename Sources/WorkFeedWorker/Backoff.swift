/// How long a worker waits before trying again (reconnecting, probing its cache): `initial` at
/// first, doubled after each failure up to `maximum`, `initial` again after a success.
///
/// Pure arithmetic on durations and the instants it is given: the worker's loop passes its clock's
/// `now`, tests pass their own, so back-off is tested without sockets or sleeps.
struct Backoff: Sendable, Equatable {
    let initial: Duration
    let maximum: Duration
    /// The wait before the next try.
    private(set) var current: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        current = initial
    }

    /// A try failed: the next wait is twice as long, at most ``maximum``.
    mutating func grow() {
        current = min(current * 2, maximum)
    }

    /// A try succeeded (or the coordinator answered): back to ``initial``.
    mutating func reset() {
        current = initial
    }

    /// ``current`` in whole milliseconds, for logs.
    var milliseconds: Int64 { Self.milliseconds(current) }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// A worker whose cache could not be written takes no jobs and probes the cache: the first probe
/// after the back-off's initial wait, each later one after twice the wait before (capped), until a
/// probe succeeds.
struct CachePause: Sendable {
    /// Why the worker paused (the failed write's reason).
    let reason: String
    private(set) var backoff: Backoff
    /// When the next probe is due.
    private(set) var nextProbe: ContinuousClock.Instant

    /// Pauses at `now`, the back-off started over.
    init(reason: String, at now: ContinuousClock.Instant, backoff: Backoff) {
        self.reason = reason
        var backoff = backoff
        backoff.reset()
        self.backoff = backoff
        nextProbe = now + backoff.current
    }

    func isProbeDue(at now: ContinuousClock.Instant) -> Bool { now >= nextProbe }

    /// How long until the next probe, 0 when it is due.
    func remaining(at now: ContinuousClock.Instant) -> Duration { max(.zero, nextProbe - now) }

    /// A probe at `now` failed: the next one waits twice as long (capped).
    mutating func probeFailed(at now: ContinuousClock.Instant) {
        backoff.grow()
        nextProbe = now + backoff.current
    }
}
