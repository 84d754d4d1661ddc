import Foundation
import Logging
import Synchronization
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

/// Removes what committed batches no longer refer to, on a thread of its own, so that the index
/// thread never waits for the store (with an object store, a round trip per request).
///
/// Pictures' and keys' names go in batches (``PictureStore/delete(pictures:keys:)``: S3's
/// DeleteObjects, up to 1,000 keys a request); conditional removals one by one; kept original
/// files from their store (``OriginalFileStore/remove(_:)``, in batches too). The control replies
/// of the batch that asked for the removals are held until its removals have been tried once, or
/// for ``longestReplyHold`` at most (``HeldReplies``): with a store that answers, a client told
/// "deleted" finds the pictures gone; with one that stalls, no reply waits for it (every reply of
/// the batch would, other owners' too), the removals go on, and the gateway answers the keys the
/// index no longer calls current 404 or 410 meanwhile (docs/gateway.md). Removals that failed because the store was unavailable (a bucket answering
/// SlowDown, a dropped connection) are kept in the index (``keep``, through the dispatcher's next
/// transaction) and tried again with a back-off (0.5 s doubling, at most 30 s) until they are
/// done, however long that takes, without holding anything; a restart takes them up again
/// (docs/operations.md, "Removals that wait"). Other failures (a refusal, a permission) are
/// logged and left: trying again would not change them.
final class RemovalQueue: Sendable {
    typealias Reply = (identity: [UInt8], reply: ControlReply, bytes: Int)

    private struct Work: Sendable {
        var removals: [Removal]
        var replies: HeldReplies.Ticket?
    }

    private struct Retry: Sendable {
        var removal: Removal
        var attempt: Int
        var due: ContinuousClock.Instant
    }

    /// Where the removals that wait are kept: `keep` those that failed for the first time,
    /// `done` kept ones that are done (both go to the dispatcher's next transaction).
    typealias Keeping = @Sendable (_ keep: [Removal], _ done: [Removal]) -> Void

    private struct State: Sendable {
        var queue: [Work] = []
        var retries: [Retry] = []
        var closed = false
        var busy = false
        /// Retries being tried now (out of ``retries`` until they succeed or are scheduled again).
        var retrying = 0
    }

    let store: any PictureStore
    let originals: OriginalFileStore
    /// Replies held for the removals, for the loop to send once they are tried (or held too long).
    let held: HeldReplies
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let logger: Logger
    private let keeping: Keeping

    static let firstRetryDelay = Duration.milliseconds(500)
    static let longestRetryDelay = Duration.seconds(30)
    /// The longest a reply waits for its batch's removals: well inside the gateway's wait for a
    /// reply (`coordinator.timeout_ms`, 5 s by default), so that a stalled store never turns a
    /// change carried out into a 503.
    static let longestReplyHold = Duration.seconds(1)

    /// Removals waiting to be tried again, those being tried now included.
    var waiting: Int { state.withLock { $0.retries.count + $0.retrying } }

    /// Starts the thread.
    /// - Parameter doneEndpoint: the loop's inproc PULL socket: a byte there makes it send what
    ///   ``held`` released.
    /// - Parameters:
    ///   - waiting: the removals the index kept (a run before this one could not do them): tried
    ///     at once.
    ///   - keeping: where removals that fail go to be kept, and kept ones done.
    init(
        store: any PictureStore, originals: OriginalFileStore, held: HeldReplies, context: ZMQContext, doneEndpoint: String,
        waiting: [Removal] = [], keeping: @escaping Keeping = { _, _ in }, logger: Logger
    ) throws {
        self.store = store
        self.originals = originals
        self.held = held
        self.logger = logger
        self.keeping = keeping
        let now = ContinuousClock.now
        state.withLock { $0.retries = waiting.map { Retry(removal: $0, attempt: 1, due: now) } }
        try startSignallingThread(named: "coordinator-removals", context: context, doneEndpoint: doneEndpoint, finished: finished) {
            [self] done in run(done: done)
        }
    }

    /// Queues `removals`, holding `replies` until they have been tried (``longestReplyHold`` at most).
    func enqueue(_ removals: [Removal], holding replies: [Reply]) {
        guard !removals.isEmpty || !replies.isEmpty else { return }
        let ticket = replies.isEmpty ? nil : held.hold(replies, for: Self.longestReplyHold)
        state.withLock { $0.queue.append(Work(removals: removals, replies: ticket)) }
        wake.signal()
    }

    /// Removes `removals` now, on the caller's thread (the last batch, at a stop).
    func removeNow(_ removals: [Removal]) {
        _ = remove(removals)
    }

    /// Ends the thread once what is queued has been tried (retries still due are dropped and logged).
    func close() {
        state.withLock { $0.closed = true }
        wake.signal()
        finished.wait()
    }

    /// Whether nothing is queued or being removed (tests).
    var isIdle: Bool { state.withLock { $0.queue.isEmpty && !$0.busy } }

    private func run(done: borrowing ZMQSocket) {
        while true {
            let next: ContinuousClock.Instant? = state.withLock { state in state.retries.map(\.due).min() }
            if let next {
                let wait = max(Duration.zero, next - .now)
                let milliseconds = Int(wait.components.seconds) * 1000 + Int(wait.components.attoseconds / 1_000_000_000_000_000)
                _ = wake.wait(timeout: .now() + .milliseconds(milliseconds))
            } else {
                wake.wait()
            }
            let (work, due, closed) = state.withLock { state in
                let work = state.queue
                state.queue = []
                let now = ContinuousClock.now
                let due = state.retries.filter { $0.due <= now }
                state.retries.removeAll { $0.due <= now }
                state.retrying = due.count
                state.busy = !work.isEmpty
                return (work, due, state.closed)
            }
            if !work.isEmpty {
                let failed = remove(work.flatMap(\.removals), logEach: true)
                if held.release(work.compactMap(\.replies)) { try? done.send([[1]]) }
                // Kept before they are tried again, so that a restart takes them up.
                keeping(Array(Set(failed)), [])
                schedule(failed.map { Retry(removal: $0, attempt: 1, due: .now) })
                state.withLock { $0.busy = false }
            }
            if !due.isEmpty {
                let attempts = Dictionary(due.map { ($0.removal, $0.attempt) }, uniquingKeysWith: max)
                let failed = remove(due.map(\.removal), logEach: false)
                let failing = Set(failed)
                keeping([], Array(Set(due.map(\.removal)).subtracting(failing)))
                if !failing.isEmpty {
                    logger.warning(
                        "removals from the picture store still fail; tried again until they are done",
                        metadata: ["waiting": "\(failing.count + state.withLock { $0.retries.count })"])
                }
                schedule(failed.map { Retry(removal: $0, attempt: (attempts[$0] ?? 0) + 1, due: .now) })
                state.withLock { $0.retrying = 0 }
            }
            if closed {
                let left = state.withLock { $0.retries.count + $0.queue.count }
                if left > 0 {
                    logger.warning(
                        "removals not done at stop; kept in the index, they are tried again at the next start", metadata: ["left": "\(left)"])
                }
                return
            }
        }
    }

    /// Schedules failed removals again with a delay that doubles up to ``longestRetryDelay``.
    private func schedule(_ retries: [Retry]) {
        guard !retries.isEmpty else { return }
        let scheduled = retries.map { retry in
            var retry = retry
            retry.due = .now + Self.delay(attempt: retry.attempt)
            return retry
        }
        state.withLock { $0.retries += scheduled }
    }

    /// The wait after the `attempt`-th failure: 0.5 s, 1 s, 2 s, … 30 s, then 30 s.
    static func delay(attempt: Int) -> Duration {
        min(longestRetryDelay, firstRetryDelay * (1 << min(max(attempt - 1, 0), 10)))
    }

    /// Removes each; never throws: what cannot be removed is logged (`logEach`; else the caller
    /// says how many) and left.
    /// - Returns: the removals that failed because the store was unavailable (worth trying again).
    private func remove(_ removals: [Removal], logEach: Bool = true) -> [Removal] {
        var pictures: [PictureID] = []
        var keys: [String] = []
        var hashes: [String] = []
        var again: [Removal] = []
        for removal in removals {
            switch removal {
            case .picture(let picture): pictures.append(picture)
            case .key(let key): keys.append(key)
            case .pictureIfKey(let picture, let key, let restoring):
                do {
                    if try store.delete(picture, ifKey: key), let restoring { try store.name(key: restoring, as: picture) }
                } catch {
                    if error.isTransient { again.append(removal) }
                    if logEach || !error.isTransient {
                        logger.warning("could not remove from the picture store", metadata: ["what": "\(removal)", "error": "\(error)"])
                    }
                }
            case .original(let sha256): hashes.append(sha256)
            }
        }
        for failure in originals.remove(hashes) {
            if failure.error.isTransient { again.append(.original(failure.sha256)) }
            if logEach || !failure.error.isTransient {
                logger.warning("could not remove a kept original", metadata: ["sha256": "\(failure.sha256)", "error": "\(failure.error)"])
            }
        }
        for failure in store.delete(pictures: pictures, keys: keys) {
            let removal: Removal =
                switch failure.name {
                case .picture(let picture): .picture(picture)
                case .key(let key): .key(key)
                }
            if failure.error.isTransient { again.append(removal) }
            if logEach || !failure.error.isTransient {
                logger.warning("could not remove from the picture store", metadata: ["what": "\(failure.name)", "error": "\(failure.error)"])
            }
        }
        return again
    }
}

/// Control replies waiting for their batch's removals, shared by the removal thread (which
/// releases them once the removals were tried) and the loop (which sends what is released, and
/// what was held past its time, every turn).
final class HeldReplies: Sendable {
    typealias Reply = RemovalQueue.Reply
    typealias Ticket = Int

    private struct Hold {
        var until: ContinuousClock.Instant
        var replies: [Reply]
    }

    private struct State {
        var next: Ticket = 0
        var holding: [Ticket: Hold] = [:]
        var released: [Reply] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Holds `replies` for `longest` at most.
    func hold(_ replies: [Reply], for longest: Duration) -> Ticket {
        state.withLock { state in
            defer { state.next += 1 }
            state.holding[state.next] = Hold(until: .now + longest, replies: replies)
            return state.next
        }
    }

    /// Releases the replies of `tickets` (those not already sent for waiting too long).
    /// - Returns: whether any was released now.
    func release(_ tickets: [Ticket]) -> Bool {
        state.withLock { state in
            let found = tickets.compactMap { state.holding.removeValue(forKey: $0) }
            state.released += found.flatMap(\.replies)
            return !found.isEmpty
        }
    }

    /// The replies to send now: released ones, and those held until `now` or before.
    func take(now: ContinuousClock.Instant = .now) -> [Reply] {
        state.withLock { state in
            let overdue = state.holding.filter { $0.value.until <= now }
            for ticket in overdue.keys { state.holding[ticket] = nil }
            defer { state.released = [] }
            return state.released + overdue.sorted { $0.key < $1.key }.flatMap(\.value.replies)
        }
    }

    /// How long until the first held reply is due, if any is held.
    func untilDue(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in state.holding.values.map(\.until).min().map { max(.zero, $0 - now) } }
    }
}
