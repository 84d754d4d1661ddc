import Foundation
import Logging
import Synchronization
import WorkFeedModel
import WorkFeedWire

/// Follows the coordinators' event streams (one SUB socket, connected to each, on a thread of its
/// own) so that a picture request can wait for its picture instead of polling. Every listed
/// coordinator's stream is followed: the one that stores a picture publishes its status, whichever
/// coordinator the request went to.
///
/// A waiter is registered *before* the picture is requested, so that an event arriving between the
/// request and the wait is not missed. Events are hints: a slow subscriber may lose some (PUB drops
/// at its high-water mark), so whoever waits asks the coordinator for the truth afterwards, and a
/// wait that times out is answered 202 (try again), never an error.
final class PictureEvents: Sendable {
    private let waiters = Mutex<[PictureID: [PictureWaiter]]>([:])
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    /// Events received since start, for the metrics and the tests.
    let received = Atomic<Int>(0)

    /// Connects to each of `endpoints` and starts the thread.
    /// - Throws: ``ZMQError`` when the socket cannot be made.
    /// - Parameter released: called on the events thread with the cache keys of pictures the
    ///   coordinator removed.
    init(
        context: ZMQContext, endpoints: [String], curve: CurveClientKeys?, logger: Logger,
        released: @escaping @Sendable ([String]) -> Void = { _ in }
    ) throws {
        let opened = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let thread = Thread { [self] in
            defer { finished.signal() }
            guard let socket = Self.subscribe(context: context, endpoints: endpoints, curve: curve, failure: failure) else {
                opened.signal()
                return
            }
            opened.signal()
            while running.load(ordering: .relaxed) {
                do {
                    guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0] else { continue }
                    while let frames = try socket.receive(dontWait: true) {
                        if frames.count == 2, frames[0] == Array("released".utf8) {
                            if let event = try? ControlCodec.decode(ReleasedEvent.self, from: frames[1]) { released(event.keys) }
                            continue
                        }
                        guard frames.count == 2, let event = try? ControlCodec.decode(StatusEvent.self, from: frames[1]) else {
                            logger.debug("event stream: a message that is not a status event; skipped")
                            continue
                        }
                        received.add(1, ordering: .relaxed)
                        deliver(event)
                    }
                } catch let error as ZMQError where error.isTerminated {
                    return
                } catch {
                    logger.warning("event stream: receive failed", metadata: ["error": "\(error)"])
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
        }
        thread.name = "gateway-events"
        thread.start()
        opened.wait()
        if let error = failure.withLock({ $0 }) {
            finished.wait()
            throw error
        }
    }

    /// A SUB socket on every one of `endpoints` for the `status` and `released` topics, or `nil`
    /// with the error in `failure`.
    private static func subscribe(
        context: ZMQContext, endpoints: [String], curve: CurveClientKeys?, failure: borrowing Mutex<(any Error)?>
    ) -> ZMQSocket? {
        do {
            let socket = try ZMQSocket(context, type: .sub)
            if let curve { try socket.makeCurveClient(curve) }
            try socket.subscribe("status")
            try socket.subscribe("released")
            for endpoint in endpoints { try socket.connect(endpoint) }
            return socket
        } catch {
            failure.withLock { $0 = error }
            return nil
        }
    }

    /// A waiter for `picture`'s next final status (`generated` or `failed-no-retry`).
    func waiter(for picture: PictureID) -> PictureWaiter {
        let waiter = PictureWaiter()
        waiters.withLock { $0[picture, default: []].append(waiter) }
        return waiter
    }

    /// Forgets a waiter that is done (answered, timed out or cancelled).
    func remove(_ waiter: PictureWaiter, for picture: PictureID) {
        waiters.withLock { waiters in
            waiters[picture]?.removeAll { $0 === waiter }
            if waiters[picture]?.isEmpty == true { waiters[picture] = nil }
        }
    }

    private func deliver(_ event: StatusEvent) {
        guard event.status != .pending else { return }
        let picture = PictureID(workoutID: event.workoutID, kind: event.kind, theme: event.theme, scale: event.scale)
        let found = waiters.withLock { $0.removeValue(forKey: picture) } ?? []
        for waiter in found { waiter.signal(event.status) }
    }

    /// Stops the thread (which closes its socket). Blocks: call it off the cooperative pool.
    func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        finished.wait()
        let left = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters.values.joined()
        }
        for waiter in left { waiter.signal(nil) }
    }
}

/// One wait for a picture's final status; resumed at most once.
final class PictureWaiter: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<JobStatus?, Never>)
        case done(JobStatus?)
    }

    private let state = Mutex(State.idle)

    /// The status the picture reached, or `nil` after `timeout` (or when cancelled, or stopped).
    func wait(timeout: Duration) async -> JobStatus? {
        await withTaskGroup(of: JobStatus?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.signal(nil)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private func next() async -> JobStatus? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> JobStatus?? in
                    switch state {
                    case .done(let status): return .some(status)
                    case .idle, .waiting:
                        state = .waiting(continuation)
                        return .none
                    }
                }
                if case .some(let status) = ready { continuation.resume(returning: status) }
            }
        } onCancel: {
            signal(nil)
        }
    }

    /// Ends the wait with `status` (`nil`: none came); later calls change nothing.
    func signal(_ status: JobStatus?) {
        let continuation = state.withLock { state -> CheckedContinuation<JobStatus?, Never>? in
            switch state {
            case .done: return nil
            case .idle:
                state = .done(status)
                return nil
            case .waiting(let continuation):
                state = .done(status)
                return continuation
            }
        }
        continuation?.resume(returning: status)
    }
}
