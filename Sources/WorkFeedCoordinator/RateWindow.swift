/// Counts events over the last minute, in one-second buckets. Used by the ``Dispatcher`` on the
/// index thread only; a class so that its non-mutating helpers can count.
final class RateWindow {
    private var buckets = [Int](repeating: 0, count: 60)
    private var second: Int64 = 0
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init() { origin = clock.now }

    private func advance() {
        let now = (clock.now - origin).components.seconds
        if now - second >= 60 {
            buckets = [Int](repeating: 0, count: 60)
        } else {
            var s = second + 1
            while s <= now {
                buckets[Int(s % 60)] = 0
                s += 1
            }
        }
        second = max(second, now)
    }

    func add(_ count: Int = 1) {
        advance()
        buckets[Int(second % 60)] += count
    }

    /// Events in the last 60 seconds.
    func total() -> Int {
        advance()
        return buckets.reduce(0, +)
    }
}
