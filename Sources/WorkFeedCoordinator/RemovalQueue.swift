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
/// files from their store (``OriginalFileStore/remove(_:)``, in batches too). The control replies of the batch that asked for the removals are
/// held until its removals have been tried once, then handed to the loop like the read threads'
/// replies (``results`` and a byte at the loop's PULL socket): a client told "deleted" finds the
/// pictures gone. Removals that failed because the store was unavailable are tried again with a
/// back-off (0.5 s doubling, 6 tries), without holding anything; others are logged and left (a
/// picture no job names is never served; the orphan sweep finds it at the next start).
final class RemovalQueue: Sendable {
    typealias Reply = (identity: [UInt8], reply: ControlReply, bytes: Int)

    private struct Work: Sendable {
        var removals: [Removal]
        var replies: [Reply]
    }

    private struct Retry: Sendable {
        var removal: Removal
        var attempt: Int
        var due: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var queue: [Work] = []
        var retries: [Retry] = []
        var closed = false
        var busy = false
    }

    let store: any PictureStore
    let originals: OriginalFileStore
    /// Replies released after their removals, for the loop to send.
    let results: Handoff<[Reply]>
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let logger: Logger

    static let maximumAttempts = 6
    static let firstRetryDelay = Duration.milliseconds(500)

    /// Starts the thread.
    /// - Parameter doneEndpoint: the loop's inproc PULL socket: a byte there makes it send ``results``.
    init(
        store: any PictureStore, originals: OriginalFileStore, results: Handoff<[Reply]>, context: ZMQContext, doneEndpoint: String,
        logger: Logger
    ) throws {
        self.store = store
        self.originals = originals
        self.results = results
        self.logger = logger
        let opened = Handoff<(any Error)?>()
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                let done = try ZMQSocket(context, type: .push)
                try done.connect(doneEndpoint)
                opened.put(nil)
                run(done: done)
            } catch {
                opened.put(error)
            }
        }
        thread.name = "coordinator-removals"
        thread.start()
        if let error = opened.take() {
            finished.wait()
            throw error
        }
    }

    /// Queues `removals`, holding `replies` until they have been tried.
    func enqueue(_ removals: [Removal], holding replies: [Reply]) {
        guard !removals.isEmpty || !replies.isEmpty else { return }
        state.withLock { $0.queue.append(Work(removals: removals, replies: replies)) }
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
                state.busy = !work.isEmpty
                return (work, due, state.closed)
            }
            if !work.isEmpty {
                let failed = remove(work.flatMap(\.removals))
                let replies = work.flatMap(\.replies)
                if !replies.isEmpty {
                    results.put(replies)
                    try? done.send([[1]])
                }
                schedule(failed.map { Retry(removal: $0, attempt: 1, due: .now) })
                state.withLock { $0.busy = false }
            }
            if !due.isEmpty {
                let attempts = Dictionary(due.map { ($0.removal, $0.attempt) }, uniquingKeysWith: max)
                let failed = remove(due.map(\.removal))
                schedule(failed.map { Retry(removal: $0, attempt: (attempts[$0] ?? 0) + 1, due: .now) })
            }
            if closed {
                let left = state.withLock { $0.retries.count + $0.queue.count }
                if left > 0 {
                    logger.warning("removals not done at stop; the orphan sweep finds them at the next start", metadata: ["left": "\(left)"])
                }
                return
            }
        }
    }

    /// Schedules failed removals again with a doubling delay, dropping those out of attempts.
    private func schedule(_ retries: [Retry]) {
        var kept: [Retry] = []
        for var retry in retries {
            guard retry.attempt < Self.maximumAttempts else {
                logger.warning("removal given up after its retries", metadata: ["what": "\(retry.removal)", "attempts": "\(retry.attempt)"])
                continue
            }
            retry.due = .now + Self.firstRetryDelay * (1 << (retry.attempt - 1))
            kept.append(retry)
        }
        guard !kept.isEmpty else { return }
        state.withLock { $0.retries += kept }
    }

    /// Removes each; never throws: what cannot be removed is logged and left.
    /// - Returns: the removals that failed because the store was unavailable (worth trying again).
    private func remove(_ removals: [Removal]) -> [Removal] {
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
                    logger.warning("could not remove from the picture store", metadata: ["what": "\(removal)", "error": "\(error)"])
                }
            case .original(let sha256): hashes.append(sha256)
            }
        }
        for failure in originals.remove(hashes) {
            if failure.error.isTransient { again.append(.original(failure.sha256)) }
            logger.warning("could not remove a kept original", metadata: ["sha256": "\(failure.sha256)", "error": "\(failure.error)"])
        }
        for failure in store.delete(pictures: pictures, keys: keys) {
            let removal: Removal =
                switch failure.name {
                case .picture(let picture): .picture(picture)
                case .key(let key): .key(key)
                }
            if failure.error.isTransient { again.append(removal) }
            logger.warning("could not remove from the picture store", metadata: ["what": "\(failure.name)", "error": "\(failure.error)"])
        }
        return again
    }
}
