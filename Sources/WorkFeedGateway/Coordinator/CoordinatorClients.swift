import Foundation
import Logging
import Synchronization
import WorkFeedWire

/// Requests to the coordinator's control socket from async code.
///
/// ZeroMQ sockets are not thread-safe and ``ControlClient`` blocks, so neither may live on Swift's
/// cooperative pool (two threads here). A fixed number of threads each own one ``ControlClient``
/// (created on that thread, closed there); a request is handed to whichever thread is free, and the
/// caller's continuation is resumed with the reply.
///
/// When every thread is busy the request waits in a bounded queue; past ``maximumQueued`` it fails
/// at once as ``CoordinatorError/unavailable(_:)`` instead of piling up behind a coordinator that
/// does not answer.
///
/// Given several coordinators (`coordinator.control`, comma-separated), each client fails over as
/// ``ControlClient`` does (a request one did not answer goes to the next), and the pool follows
/// the last move: every thread uses the endpoint a thread last moved to from its next request on,
/// so that a dead coordinator costs one timeout, not one per thread.
final class CoordinatorClients: Sendable {
    /// One request: runs on a client thread with that thread's client, or is cancelled (the
    /// gateway is stopping) without one.
    struct Job: Sendable {
        let run: @Sendable (inout ControlClient) -> Void
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var jobs: [Job] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    let maximumQueued: Int
    let endpoints: [String]
    let count: Int
    /// The place in ``endpoints`` of the coordinator the clients use: where a client last moved.
    private let preferred = Atomic<Int>(0)
    /// Requests moved on to the next coordinator because one did not answer, since start.
    let failovers = Atomic<Int>(0)

    /// Starts `count` client threads.
    /// - Throws: ``ZMQError`` when a client socket cannot be made (a bad endpoint).
    init(count: Int, context: ZMQContext, endpoints: [String], timeoutMilliseconds: Int, curve: CurveClientKeys?, logger: Logger) throws {
        self.endpoints = endpoints
        self.count = count
        maximumQueued = 256 * count
        // Sockets are made on their own threads; the first failure is reported here.
        let opened = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        for number in 0..<count {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                var client: ControlClient
                do {
                    // Deadlines: a request answered 503 is never carried out later (docs/security.md).
                    client = try ControlClient(
                        context: context, endpoints: endpoints, timeoutMilliseconds: timeoutMilliseconds, curve: curve, sendsDeadlines: true,
                        failover: { from, to, reason in
                            self.failovers.add(1, ordering: .relaxed)
                            logger.warning(
                                "coordinator did not answer; trying the next",
                                metadata: ["coordinator": "\(from)", "next": "\(to)", "reason": "\(reason)"])
                        })
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    opened.signal()
                    return
                }
                opened.signal()
                while let job = next() {
                    client.use(endpointAt: preferred.load(ordering: .relaxed))
                    let before = client.endpointIndex
                    job.run(&client)
                    if client.endpointIndex != before { preferred.store(client.endpointIndex, ordering: .relaxed) }
                }
                logger.debug("coordinator client thread ends", metadata: ["thread": "\(number)"])
            }
            thread.name = "gateway-control-\(number)"
            thread.start()
        }
        for _ in 0..<count { opened.wait() }
        if let error = failure.withLock({ $0 }) {
            stop()
            throw error
        }
    }

    private func next() -> Job? {
        while true {
            available.wait()
            let (job, stopped) = state.withLock { state -> (Job?, Bool) in
                (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.stopped)
            }
            if let job { return job }
            if stopped { return nil }
        }
    }

    /// Sends a request and decodes its reply.
    /// - Throws: ``CoordinatorError``: `.refused` with the coordinator's code and message when it answered
    ///   with an error, `.unavailable` when it did not answer in time or the queue is full.
    func request<Reply: Decodable & Sendable>(
        _ command: ControlCommand, _ body: some Encodable & Sendable, attachments: [[UInt8]] = [], as: Reply.Type = Reply.self
    ) async throws(CoordinatorError) -> Reply {
        let bytes = try await requestRaw(command, body, attachments: attachments)
        do {
            return try ControlCodec.decode(Reply.self, from: bytes)
        } catch {
            throw .refused(nil, "the reply to \(command.rawValue) could not be read: \(error)")
        }
    }

    /// Sends a request and returns its reply's JSON body as it came.
    func requestRaw(
        _ command: ControlCommand, _ body: some Encodable & Sendable, attachments: [[UInt8]] = []
    ) async throws(CoordinatorError) -> [UInt8] {
        let result: Result<[UInt8], CoordinatorError> = await withCheckedContinuation { continuation in
            let job = Job(
                run: { client in
                    do throws(ControlClientError) {
                        continuation.resume(returning: .success(try client.requestRaw(command, body, attachments: attachments)))
                    } catch {
                        // What the coordinator's code means for the client is decided in one place,
                        // Problem.from: here only whether it answered at all.
                        continuation.resume(
                            returning: .failure(error.fromCoordinator ? .refused(error.code, error.description) : .unavailable(error.description)))
                    }
                },
                cancel: { continuation.resume(returning: .failure(.unavailable("the gateway is stopping"))) })
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped, state.jobs.count < maximumQueued else { return false }
                state.jobs.append(job)
                return true
            }
            if accepted {
                available.signal()
            } else {
                let listed = endpoints.joined(separator: ", ")
                continuation.resume(returning: .failure(.unavailable("too many requests waiting for the coordinator at \(listed)")))
            }
        }
        return try result.get()
    }

    /// Requests still waiting are answered "unavailable". Blocks: call it off the cooperative pool.
    func stop() {
        let waiting = state.withLock { state -> [Job] in
            state.stopped = true
            defer { state.jobs.removeAll() }
            return Array(state.jobs)
        }
        for job in waiting { job.cancel() }
        for _ in 0..<count { available.signal() }
        finished.wait()
    }
}

/// Why a request to the coordinator failed. The messages are for the log: they name the
/// coordinator's endpoint, which a client of the gateway is not told.
enum CoordinatorError: Error, Sendable, CustomStringConvertible {
    /// The coordinator answered with an error: its code (what the gateway maps to a status;
    /// `nil` from a coordinator of before codes, or a code this gateway does not know) and its
    /// message (for the log).
    case refused(ControlErrorCode?, String)
    /// No answer in time: it is down, restarting, or overloaded. The request was not carried out
    /// and will not be: it was dropped from the client's socket and its deadline has passed.
    case unavailable(String)

    var description: String {
        switch self {
        case .refused(_, let message), .unavailable(let message): message
        }
    }
}
