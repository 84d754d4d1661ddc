import Synchronization

/// Which picture keys the gateway may read from the store without asking the index (issue 37,
/// items 1 and 5). The store may still hold a picture the index has withdrawn or deleted (its
/// removal waits for a bucket that throttles: docs/operations.md, "Removals that wait"), and a
/// made-up key would cost a bucket round trip to find absent; so a key is read from the store
/// only once the index has called it current (PICTURE's `generated`), and then for ``lifetime``
/// without asking again, unless the coordinator's `released` event names it first.
///
/// A released key is remembered too (for ``lifetime``): what was learnt of it before the event
/// (a PICTURE answer or a picture request's reply still travelling) is not taken as current, and
/// bytes read before the event do not go into the memory cache. A key that becomes current again
/// (a zone removed brings an old key back) is asked about at each read until then.
final class PictureVerdicts: Sendable {
    /// How long a key the index called current is read without asking again, and how long a
    /// released key is remembered.
    static let lifetime: Duration = .seconds(300)

    private struct State {
        var current: [String: ContinuousClock.Instant] = [:]
        var released: [String: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    /// Keys held in each of the two lists at most (64 hex digits each: about 20 MB in all).
    let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Whether the index called `key` current within ``lifetime`` and no event released it since.
    func isCurrent(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard let since = state.current[key] else { return false }
            guard now - since < Self.lifetime else {
                state.current[key] = nil
                return false
            }
            return true
        }
    }

    /// The index called `key` current (or a reply the coordinator gave named it so); ignored for
    /// a key released within ``lifetime``, since what was said may be older than the release.
    func noteCurrent(_ key: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if let released = state.released[key], now - released < Self.lifetime { return }
            state.current[key] = now
            Self.bound(&state.current, to: capacity, now: now, keepNewest: false)
        }
    }

    /// The coordinator's `released` event: `keys` no longer name pictures it keeps.
    func release(_ keys: [String], now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            for key in keys {
                state.current[key] = nil
                state.released[key] = now
            }
            Self.bound(&state.released, to: capacity, now: now, keepNewest: true)
        }
    }

    /// Whether an event released `key` within ``lifetime``.
    func wasReleased(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in state.released[key].map { now - $0 < Self.lifetime } ?? false }
    }

    /// Drops expired entries of a list past `capacity`, then, if still past it, the oldest half
    /// (released keys, which protect) or any half (current ones, which only spare a question).
    private static func bound(
        _ list: inout [String: ContinuousClock.Instant], to capacity: Int, now: ContinuousClock.Instant, keepNewest: Bool
    ) {
        guard list.count > capacity else { return }
        list = list.filter { now - $0.value < lifetime }
        guard list.count > capacity else { return }
        let entries: [(key: String, value: ContinuousClock.Instant)] = keepNewest ? list.sorted { $0.value > $1.value } : Array(list)
        var kept: [String: ContinuousClock.Instant] = [:]
        for entry in entries.prefix(capacity / 2) { kept[entry.key] = entry.value }
        list = kept
    }
}
