import Synchronization
import WorkFeedWire

/// What the dispatcher knows that is not in the index (the workers, the leases, the jobs finished
/// lately), as of its last committed batch: the read service puts it in STATUS replies without
/// asking the index thread.
final class DispatchState: Sendable {
    struct Snapshot: Sendable {
        struct Worker: Sendable {
            var name: String
            var capacity: Int
            var busy: Int
            var done: Int
            var lastHeard: ContinuousClock.Instant
        }
        var workers: [Worker] = []
        var leased = 0
        var finishedLastMinute = 0

        /// The workers as STATUS lists them, by name.
        func statusWorkers(now: ContinuousClock.Instant = .now) -> [StatusReply.Worker] {
            workers.sorted { $0.name < $1.name }.map {
                let silent = now - $0.lastHeard
                return StatusReply.Worker(
                    name: $0.name, capacity: $0.capacity, busy: $0.busy, done: $0.done,
                    silentSeconds: Double(silent.components.seconds) + Double(silent.components.attoseconds) / 1e18)
            }
        }
    }

    private let snapshot = Mutex(Snapshot())

    func publish(_ value: Snapshot) { snapshot.withLock { $0 = value } }
    func read() -> Snapshot { snapshot.withLock { $0 } }
}
