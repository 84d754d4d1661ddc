import Dispatch
import Synchronization
import WorkFeedModel
import WorkFeedStore
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedWire

/// What the loop hands the dispatcher: the messages received since the last batch.
struct Batch: Sendable {
    /// A message as received: its sender, its frames, and the role of the key its connection was
    /// let in with (`nil` without CURVE: loopback only, every local process trusted alike).
    typealias Message = (identity: [UInt8], frames: [[UInt8]], role: ClientRole?)
    /// Worker messages, parsed by the loop thread (malformed ones are answered there).
    typealias WorkerInput = (identity: [UInt8], message: WorkerMessage)
    var workerMessages: [WorkerInput] = []
    /// Write requests (IMPORT, ENQUEUE, DELETE), parsed and admitted by the loop thread.
    var controlMessages: [ControlWork] = []
    /// JOBs the loop could not send (the worker is gone or not reading): their leases end at once
    /// instead of at their deadline.
    var unsent: [(identity: [UInt8], lease: UInt64)] = []
    /// When the batch was cut; the dispatcher's clock for heartbeat expiry.
    var received = ContinuousClock.now
    /// The last batch: record what it carries, lease nothing new.
    var stopping = false
    /// Pictures the start sweep found that nothing seemed to refer to (``OrphanSweep``): removed
    /// after the batch commits if neither a job nor a lease refers to them at its end.
    var leftovers: [LeftoverPicture] = []
    /// Removals the picture store refused, to keep in the index until done, and kept ones done
    /// now (``RemovalQueue``; docs/operations.md, "Removals that wait").
    var removalsToKeep: [Removal] = []
    var removalsDone: [Removal] = []

    var count: Int { workerMessages.count + controlMessages.count }
}

/// A control request the loop has parsed and admitted: who sent it, with which role, and its
/// size (what it counts against its client's bound until it is answered).
struct ControlWork: Sendable {
    var identity: [UInt8]
    var request: ControlRequest
    var role: ClientRole?
    var bytes: Int
    /// What a request carried out in steps, one a turn (a long DELETE), has done in the turns
    /// before this one; `nil` at its first step.
    var carried: DeleteReply? = nil
    /// What became of the original file the request carries, by its SHA-256, found by the
    /// ``OriginalIntake`` before the request reached the index thread; `nil` for a request that
    /// names none.
    var original: [String: OriginalIntake.Outcome]? = nil
}

/// Something to remove from storage once a batch has committed.
enum Removal: Sendable, Hashable {
    /// A picture's name by picture (a deleted workout's, or one a privacy zone now hides).
    case picture(PictureID)
    /// A by-content name nothing in the index refers to any more.
    case key(String)
    /// A picture's name by picture, if it still holds the picture drawn under this key (a refused
    /// or late report's, or an orphan's): one drawn since under another key stays. When it is
    /// removed and the job stores a picture under `restoring`, the name goes back to that one.
    case pictureIfKey(PictureID, String, restoring: String?)
    /// A kept original file (``OriginalFileStore``), by its SHA-256.
    case original(String)
}

extension Removal {
    /// The removal as the index keeps it while it waits (``IndexWriting/keepRemovals(_:now:)``):
    /// a word and the names, separated by spaces (no picture path, key or hash has one).
    var keptName: String {
        switch self {
        case .picture(let picture): "picture \(CacheLayout.relativePath(for: picture))"
        case .key(let key): "key \(key)"
        case .pictureIfKey(let picture, let key, let restoring):
            "picture-if-key \(CacheLayout.relativePath(for: picture)) \(key) \(restoring ?? "-")"
        case .original(let sha256): "original \(sha256)"
        }
    }

    /// The removal a kept name stands for; `nil` for text that is none (a damaged row is left).
    init?(keptName: String) {
        let words = keptName.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("picture", 2):
            guard let picture = CacheLayout.picture(atRelativePath: words[1]) else { return nil }
            self = .picture(picture)
        case ("key", 2):
            guard CacheLayout.isCacheKey(words[1]) else { return nil }
            self = .key(words[1])
        case ("picture-if-key", 4):
            guard let picture = CacheLayout.picture(atRelativePath: words[1]), CacheLayout.isCacheKey(words[2]) else { return nil }
            let restoring = words[3] == "-" ? nil : words[3]
            if let restoring, !CacheLayout.isCacheKey(restoring) { return nil }
            self = .pictureIfKey(picture, words[2], restoring: restoring)
        case ("original", 2):
            guard OriginalFileStore.isValidHash(words[1]) else { return nil }
            self = .original(words[1])
        default:
            return nil
        }
    }
}

/// Everything a batch wants sent once its transaction has committed.
struct Outbox: Sendable {
    var worker: [(identity: [UInt8], message: WorkerMessage)] = []
    /// Replies to write requests, with the bytes of their request (the client's load goes down by
    /// them; a PROGRESS reply is not the answer and lowers nothing).
    var control: [(identity: [UInt8], reply: ControlReply, bytes: Int)] = []
    /// Requests carried out in steps that go on in the next batch (the loop hands them back).
    var continuing: [ControlWork] = []
    var events: [CoordinatorEvent] = []
    /// Pictures and kept files that go once the batch has committed (removed by the dispatcher).
    var removals: [Removal] = []
    /// What the batch adds to the metrics (recorded by the dispatcher after the commit).
    var tally = Tally()
    /// The workers connected after the batch, whom the loop keeps sending heartbeats.
    var workers: [[UInt8]] = []
    /// The outbox of the last batch, after a stop: the loop says goodbye to the workers and ends.
    var isLast = false
    /// A term as the one that does the periodic work began with this batch: the start sweeps run.
    var beganTerm: LeadershipTerm?
}

/// The metrics a batch's changes add up to, recorded once its transaction has committed: a
/// rolled-back batch counts nothing, and the metrics' locks are taken once a batch, not once a job.
struct Tally: Sendable {
    struct Result: Hashable, Sendable {
        var kind: PictureKind
        var status: JobStatus
    }
    var results: [Result: Int] = [:]
    /// Render times of generated pictures, with their kind.
    var renders: [(kind: PictureKind, microseconds: UInt64)] = []
    var failures: [FailureCode] = []
    /// IMPORTs answered with a result (an IMPORT answered with an error counts nothing).
    var imports: [ImportResult: Int] = [:]
    /// Workouts deleted.
    var deletedWorkouts = 0
    /// Leases taken back from workers, by why.
    var leaseLosses: [CoordinatorMetrics.LeaseLoss: Int] = [:]

    mutating func record(_ effect: CompletionEffect, renderMicroseconds: UInt64?) {
        guard case .updated(let picture, let status, let reason, _, let code) = effect else { return }
        results[Result(kind: picture.kind, status: status), default: 0] += 1
        if let renderMicroseconds { renders.append((picture.kind, renderMicroseconds)) }
        if reason != nil { failures.append(code ?? .transient) }
    }
}

/// Messages the loop has received and the dispatcher not yet taken. The dispatcher takes
/// everything there is as soon as it has finished its previous batch, so its next transaction
/// starts without waiting for the loop.
final class Inbox: Sendable {
    private struct State {
        var batch = Batch()
        /// Something for the dispatcher to do: messages, a tick, or the stop.
        var ready = false
    }
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)

    /// Worker messages waiting, for the loop to stop receiving while a batch is full.
    var workerCount: Int { state.withLock { $0.batch.workerMessages.count } }

    func add(worker: [Batch.WorkerInput], control: [ControlWork], unsent: [(identity: [UInt8], lease: UInt64)] = []) {
        guard !worker.isEmpty || !control.isEmpty || !unsent.isEmpty else { return }
        state.withLock {
            $0.batch.workerMessages += worker
            $0.batch.controlMessages += control
            $0.batch.unsent += unsent
            $0.ready = true
        }
        signal.signal()
    }

    /// Hands the dispatcher pictures the start sweep found unreferenced, for the exact check
    /// inside its next transaction.
    func add(leftovers: [LeftoverPicture]) {
        guard !leftovers.isEmpty else { return }
        state.withLock {
            $0.batch.leftovers += leftovers
            $0.ready = true
        }
        signal.signal()
    }

    /// Hands the dispatcher removals to keep in the index (the store refused them) and kept ones
    /// done, for its next transaction.
    func add(removalsToKeep: [Removal], done: [Removal]) {
        guard !removalsToKeep.isEmpty || !done.isEmpty else { return }
        state.withLock {
            $0.batch.removalsToKeep += removalsToKeep
            $0.batch.removalsDone += done
            $0.ready = true
        }
        signal.signal()
    }

    /// Asks for a batch even if nothing came in, so that expiries and back-offs are looked at.
    func tick() {
        state.withLock { $0.ready = true }
        signal.signal()
    }

    /// Whether ``close()`` was called: the coordinator is stopping.
    var isClosing: Bool { state.withLock { $0.batch.stopping } }

    /// Makes the next batch the last: it records what it carries and leases nothing new, and the
    /// dispatcher ends after it.
    func close() {
        state.withLock {
            $0.batch.stopping = true
            $0.ready = true
        }
        signal.signal()
    }

    /// Waits until there is something to do and takes all of it. A batch's fixed cost (its
    /// transaction, its commit) is spread over what it carries: when fewer than ``smallBatch``
    /// reports came in, it waits for the next message to arrive, a millisecond at most, and takes
    /// that too. (Waiting only when many jobs are out with workers made no difference: with 2 × 8
    /// slots, 9,400–10,000 jobs/s either way.) A batch of control requests alone does not wait:
    /// they are reads, mostly (a gateway's feed pages), whose answer the wait would only delay.
    func take() -> Batch {
        var batch = waitForBatch()
        let controlOnly = batch.workerMessages.isEmpty && batch.unsent.isEmpty && !batch.controlMessages.isEmpty
        if !controlOnly, batch.workerMessages.count < Self.smallBatch, !batch.stopping,
            let more = takeReady(waitingUntil: .now() + .milliseconds(1))
        {
            batch.workerMessages += more.workerMessages
            batch.controlMessages += more.controlMessages
            batch.unsent += more.unsent
            batch.leftovers += more.leftovers
            batch.removalsToKeep += more.removalsToKeep
            batch.removalsDone += more.removalsDone
            batch.stopping = more.stopping
        }
        batch.received = .now
        return batch
    }

    /// Below this many worker messages, a batch waits a moment for more.
    static let smallBatch = 32

    /// At most this many write requests go into one batch, taken in turn from each client, so
    /// that a flood of IMPORTs from one client makes neither a long transaction nor another
    /// client's request wait behind all of it; the rest wait for the next batch.
    static let maximumControlPerBatch = 64

    /// Waits as long as it takes for a batch.
    private func waitForBatch() -> Batch {
        while true {
            signal.wait()
            if let taken = takeIfReady() { return taken }
        }
    }

    /// A batch if one is ready by `deadline`, else `nil`.
    private func takeReady(waitingUntil deadline: DispatchTime) -> Batch? {
        while signal.wait(timeout: deadline) == .success {
            if let taken = takeIfReady() { return taken }
        }
        return nil
    }

    /// What is ready now, after the semaphore was signalled: `nil` when the signal found nothing.
    private func takeIfReady() -> Batch? {
        let (taken, more): (Batch?, Bool) = state.withLock { state in
            guard state.ready else { return (nil, false) }
            var batch = state.batch
            state = State()
            if batch.controlMessages.count > Self.maximumControlPerBatch {
                let (now, later) = Self.fairShare(batch.controlMessages, limit: Self.maximumControlPerBatch)
                batch.controlMessages = now
                state.batch.controlMessages = later
                state.ready = true
                return (batch, true)
            }
            return (batch, false)
        }
        // What was left waits for the next take, which must not block.
        if more { signal.signal() }
        return taken
    }

    /// Up to `limit` requests, one from each client in turn (each client's in its order), and the rest.
    static func fairShare(_ works: [ControlWork], limit: Int) -> (taken: [ControlWork], left: [ControlWork]) {
        var queues: [[UInt8]: [Int]] = [:]
        var order: [[UInt8]] = []
        for (position, work) in works.enumerated() {
            if queues[work.identity] == nil { order.append(work.identity) }
            queues[work.identity, default: []].append(position)
        }
        var chosen = Set<Int>()
        var round = 0
        while chosen.count < limit {
            var any = false
            for identity in order where chosen.count < limit {
                guard let positions = queues[identity], round < positions.count else { continue }
                chosen.insert(positions[round])
                any = true
            }
            if !any { break }
            round += 1
        }
        let taken = works.indices.filter(chosen.contains).map { works[$0] }
        let left = works.indices.filter { !chosen.contains($0) }.map { works[$0] }
        return (taken, left)
    }
}

/// Items passed from one thread to another, in order; `take()` waits for the next.
final class Handoff<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    private let available = DispatchSemaphore(value: 0)

    func put(_ item: Item) {
        items.withLock { $0.append(item) }
        available.signal()
    }

    func take() -> Item {
        available.wait()
        return items.withLock { $0.removeFirst() }
    }

    /// The next item if one is waiting, without waiting.
    func poll() -> Item? {
        guard available.wait(timeout: .now()) == .success else { return nil }
        return items.withLock { $0.removeFirst() }
    }
}
