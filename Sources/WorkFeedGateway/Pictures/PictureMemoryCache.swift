import Synchronization

/// The most recently served pictures, in memory, up to a number of bytes. Pictures are named by
/// their content, so an entry never shows other bytes; but a picture can be removed (replaced, or
/// hidden by a privacy zone), so entries go when the coordinator says so (``remove(_:)``, from its
/// `released` events) and, in case such an event was lost, after ``lifetime`` at the latest.
final class PictureMemoryCache: Sendable {
    private struct Entry {
        var bytes: [UInt8]
        var lastUse: UInt64
        var inserted: ContinuousClock.Instant
    }

    /// How long an entry is served from memory before the file is read again.
    static let lifetime: Duration = .seconds(60)

    private struct State {
        var entries: [String: Entry] = [:]
        var size = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    /// - Parameter capacity: bytes; 0 keeps nothing.
    init(capacity: Int) {
        self.capacity = capacity
    }

    func bytes(for key: String) -> [UInt8]? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            guard ContinuousClock.now - entry.inserted < Self.lifetime else {
                state.entries[key] = nil
                state.size -= entry.bytes.count
                return nil
            }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.bytes
        }
    }

    /// Forgets these pictures (the coordinator removed them).
    func remove(_ keys: [String]) {
        state.withLock { state in
            for key in keys {
                if let entry = state.entries.removeValue(forKey: key) { state.size -= entry.bytes.count }
            }
        }
    }

    func insert(_ bytes: [UInt8], for key: String) {
        guard bytes.count <= capacity / 8 else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(bytes: bytes, lastUse: state.clock, inserted: .now), forKey: key) {
                state.size -= old.bytes.count
            }
            state.size += bytes.count
            guard state.size > capacity else { return }
            // Evict the least recently used eighth at once, so that eviction is rare.
            let victims = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(1, state.entries.count / 8))
            for (key, entry) in victims {
                state.entries[key] = nil
                state.size -= entry.bytes.count
            }
        }
    }
}
