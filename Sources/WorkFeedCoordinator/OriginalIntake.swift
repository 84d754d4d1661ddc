import Dispatch
import Foundation
import Logging
import Synchronization
import WorkFeedModel
import WorkFeedWire

/// Keeps the original files IMPORT and UPLOAD carry, on a thread of its own, before their
/// requests reach the index thread (issue 37, item 2: slow storage must not hold other replies).
/// With originals in a bucket, keeping one is a round trip (a HEAD, then a PUT of up to 16 MiB):
/// done in the index thread's transaction, a bucket that stalled held every reply of the turn.
/// Here a stall holds only the requests that carry files, each until its deadline at most.
///
/// What the intake found goes with the request (``ControlWork/original``); the dispatcher never
/// touches the originals' store for an import. A client's requests keep their order: while one of
/// its requests is here, its later ones wait behind it (``isHolding(_:)``).
final class OriginalIntake: Sendable {
    /// What became of the original a request carries, by its SHA-256.
    struct Outcome: Sendable, Hashable {
        /// The original is kept now (it was already, or this request's bytes were written).
        var kept: Bool
        /// This request's bytes were written (so that a duplicate's copy can go again).
        var written: Bool
    }

    private struct State {
        var queue: [ControlWork] = []
        var done: [ControlWork] = []
        /// Requests of each client here, queued or done and not yet taken.
        var holding: [[UInt8]: Int] = [:]
        var closed = false
    }

    private let originals: OriginalFileStore
    private let logger: Logger
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread.
    /// - Parameter doneEndpoint: an inproc PULL the loop has bound: a byte there wakes its poll.
    init(originals: OriginalFileStore, context: ZMQContext, doneEndpoint: String, logger: Logger) throws {
        self.originals = originals
        self.logger = logger
        try startSignallingThread(named: "coordinator-originals", context: context, doneEndpoint: doneEndpoint, finished: finished) {
            [self] done in
            while let work = next() {
                var kept = work
                kept.original = Self.keep(work.request, in: originals, logger: logger)
                state.withLock { $0.done.append(kept) }
                try? done.send([[1]])
            }
        }
    }

    /// Whether `request` may name an original file to keep (or to find kept): every IMPORT and
    /// UPLOAD goes through here, told apart by its command alone, so that the loop thread never
    /// decodes a body (this thread does, once; one without a file passes with no original).
    static func needsIntake(_ request: ControlRequest) -> Bool {
        switch request.command {
        case .importWorkout, .upload: true
        default: false
        }
    }

    /// Whether a request of `client` is here: its next ones go through here too, behind it.
    func isHolding(_ client: [UInt8]) -> Bool {
        state.withLock { $0.holding[client] != nil }
    }

    /// The requests through the intake, in their clients' order, for the inbox; the loop takes
    /// them before it admits new requests, so that a client's order holds.
    func takeDone() -> [ControlWork] {
        state.withLock { state in
            defer { state.done = [] }
            for work in state.done {
                state.holding[work.identity, default: 1] -= 1
                if state.holding[work.identity] == 0 { state.holding[work.identity] = nil }
            }
            return state.done
        }
    }

    func submit(_ work: ControlWork) {
        state.withLock { state in
            state.queue.append(work)
            state.holding[work.identity, default: 0] += 1
        }
        available.signal()
    }

    /// Ends the thread; requests still waiting are dropped (the coordinator is stopping).
    func close() {
        state.withLock { $0.closed = true }
        available.signal()
        finished.wait()
    }

    private func next() -> ControlWork? {
        while true {
            available.wait()
            let taken: ControlWork?? = state.withLock { state in
                if state.closed { return .some(nil) }
                return state.queue.isEmpty ? .none : .some(state.queue.removeFirst())
            }
            if let taken { return taken }
        }
    }

    /// The file an IMPORT or UPLOAD names (its first workout's, for an UPLOAD: the one whose
    /// original it carries), with the original's bytes when it carries them.
    private static func file(of request: ControlRequest) -> (sha256: String, bytes: [UInt8]?)? {
        switch request.command {
        case .importWorkout:
            guard let body = try? ControlCodec.decode(ImportRequest.self, from: request.body), let file = body.file else { return nil }
            return (file.sha256, request.attachments.count == 3 ? request.attachments[2] : nil)
        case .upload:
            guard let body = try? ControlCodec.decode(UploadRequest.self, from: request.body), let file = body.workouts.first?.file else {
                return nil
            }
            return (file.sha256, body.hasOriginal ? request.attachments.last : nil)
        default:
            return nil
        }
    }

    /// Keeps the original `request` carries, once per content; `nil` when it names none (or a
    /// hash that is not one: the dispatcher refuses the request).
    static func keep(_ request: ControlRequest, in originals: OriginalFileStore, logger: Logger) -> [String: Outcome]? {
        guard let (sha256, bytes) = file(of: request), OriginalFileStore.isValidHash(sha256) else { return nil }
        // Past its deadline it is answered `expired`: nothing to keep for it.
        guard !request.isPastDeadline() else { return [sha256: Outcome(kept: false, written: false)] }
        if originals.contains(sha256) { return [sha256: Outcome(kept: true, written: false)] }
        guard let bytes, !bytes.isEmpty else { return [sha256: Outcome(kept: false, written: false)] }
        do {
            try originals.store(bytes, sha256: sha256)
            return [sha256: Outcome(kept: true, written: true)]
        } catch {
            logger.warning("cannot keep the original file", metadata: ["sha256": "\(sha256)", "error": "\(error)"])
            return [sha256: Outcome(kept: false, written: false)]
        }
    }
}
