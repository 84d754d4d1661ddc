import Dispatch
import Foundation
import Synchronization

/// A sweep the coordinator runs once per term as the one that does the periodic work (with one
/// writer: once per start; ``IndexWriting/lead(now:)``) on a thread of its own (never Swift's
/// cooperative pool: it reads the store and the index), which can be asked to end early:
/// ``KeyLinkSweep`` and ``OrphanSweep``.
final class SweepThread: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Whether ``stop()`` was asked: a sweep looks between steps and ends.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Starts `body` on a thread named `name`; `body` is given this thread to look at ``isStopping``.
    init(name: String, _ body: @escaping @Sendable (SweepThread) -> Void) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            body(self)
        }
        thread.name = name
        thread.start()
    }

    /// Ends the sweep early and waits for its thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
