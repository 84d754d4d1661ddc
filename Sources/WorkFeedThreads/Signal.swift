import Synchronization

/// Something that happens once, awaited without polling: a thread fires it (``fire()``), any
/// number of tasks wait for it (``wait()``), before or after it fired.
///
/// ```swift
/// let ended = Signal()
/// thread: loop.run(); ended.fire()
/// task:   await ended.wait()
/// ```
public final class Signal: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, Never>])
        case fired
    }

    private let state = Mutex(State.waiting([]))

    public init() {}

    /// Marks it happened and resumes every waiter; later calls change nothing.
    public func fire() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .waiting(let waiting) = state else { return [] }
            state = .fired
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    public var hasFired: Bool { state.withLock { if case .fired = $0 { true } else { false } } }

    /// Returns once it has fired (at once if it has).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state -> Bool in
                guard case .waiting(var waiting) = state else { return true }
                waiting.append(continuation)
                state = .waiting(waiting)
                return false
            }
            if fired { continuation.resume() }
        }
    }
}
