import CZeroMQ

/// A control-protocol client: what `workctl` uses to talk to the coordinator.
///
/// It owns a DEALER socket, so it is `~Copyable` and used from one thread. Each request waits for
/// its reply up to a timeout; a reply to an earlier, timed-out request is recognised by its id and
/// dropped.
///
/// A request that timed out is never sent later: the socket is closed at once (linger 0) and a new
/// one connected, so a request still queued for a coordinator that is down or restarting goes with
/// it. With ``sendsDeadlines`` each request also carries a deadline the coordinator checks, so one
/// already on its way is not carried out once this client has given up (docs/security.md,
/// "A 503 is final").
///
/// Given several endpoints (the coordinators of one PostgreSQL index, any of which answers any
/// request), the client talks to one at a time and stays with it while it answers. A request it
/// does not answer (no connection, or no reply within the timeout) is sent to the next one in the
/// list, round robin, until each has been tried once; ``failover`` is told of each move. A request
/// that timed out may have been carried out all the same: the control requests that change the
/// index (imports, enqueues, deletes, settings, zones) are idempotent by the index's rules, so
/// carrying one out twice changes nothing more (docs/operations.md, "Several coordinators on
/// PostgreSQL"). An answer with an error is the answer: it is not sent elsewhere.
public struct ControlClient: ~Copyable {
    private var socket: ZMQSocket
    private let context: ZMQContext
    private let curve: CurveClientKeys?
    /// The endpoint in use: the one that answered last, or the first.
    public private(set) var endpoint: String
    /// Every endpoint this client may use, in the order to try them.
    public let endpoints: [String]
    /// The place of ``endpoint`` in ``endpoints``.
    public private(set) var endpointIndex = 0
    /// Told `(from, to, why)` when a request that `from` did not answer goes to `to`.
    private let failover: (@Sendable (_ from: String, _ to: String, _ reason: String) -> Void)?
    public let timeoutMilliseconds: Int
    /// Requests larger than this are not sent (see ``requestWithAttachments(_:_:attachments:)``).
    public let maximumMessageSize: Int64
    /// Whether each request carries a deadline (``ControlRequest/deadline``).
    public let sendsDeadlines: Bool
    private var nextID: UInt64 = 1

    /// - Parameters:
    ///   - curve: the keys to connect with when the coordinator requires CURVE.
    ///   - maximumMessageSize: the coordinator's limit; lower only to test what happens past it.
    ///   - sendsDeadlines: give each request a deadline (``deadlineMargin(timeoutMilliseconds:)``
    ///     before this client stops waiting), past which the coordinator refuses to carry it out.
    public init(
        context: ZMQContext, endpoint: String, timeoutMilliseconds: Int = 15_000, curve: CurveClientKeys? = nil,
        maximumMessageSize: Int64 = WorkerMessage.maximumMessageSize, sendsDeadlines: Bool = false
    ) throws(ZMQError) {
        try self.init(
            context: context, endpoints: [endpoint], timeoutMilliseconds: timeoutMilliseconds, curve: curve,
            maximumMessageSize: maximumMessageSize, sendsDeadlines: sendsDeadlines)
    }

    /// A client of several coordinators: it starts with the first of `endpoints` and moves on when
    /// one does not answer (see the type's documentation).
    /// - Parameter failover: told `(from, to, why)` each time a request goes on to the next
    ///   endpoint (workctl says so on standard error, the gateway in its log).
    /// - Throws: ``ZMQError`` when the first endpoint's socket cannot be made, or `endpoints` is empty (EINVAL).
    public init(
        context: ZMQContext, endpoints: [String], timeoutMilliseconds: Int = 15_000, curve: CurveClientKeys? = nil,
        maximumMessageSize: Int64 = WorkerMessage.maximumMessageSize, sendsDeadlines: Bool = false,
        failover: (@Sendable (_ from: String, _ to: String, _ reason: String) -> Void)? = nil
    ) throws(ZMQError) {
        guard let first = endpoints.first else { throw ZMQError("connect to no endpoint", code: EINVAL) }
        socket = try Self.connect(context: context, endpoint: first, timeoutMilliseconds: timeoutMilliseconds, curve: curve)
        self.context = context
        self.curve = curve
        self.endpoint = first
        self.endpoints = endpoints
        self.failover = failover
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maximumMessageSize = min(maximumMessageSize, WorkerMessage.maximumMessageSize)
        self.sendsDeadlines = sendsDeadlines
    }

    private static func connect(
        context: ZMQContext, endpoint: String, timeoutMilliseconds: Int, curve: CurveClientKeys?
    ) throws(ZMQError) -> ZMQSocket {
        let socket = try ZMQSocket(context, type: .dealer)
        try socket.setOption(ZMQ_MAXMSGSIZE, int64: WorkerMessage.maximumMessageSize)
        if let curve { try socket.makeCurveClient(curve) }
        // A DEALER blocks on send while it has no connection (coordinator down, or our key refused):
        // give up after the same timeout as for replies.
        try socket.setOption(ZMQ_SNDTIMEO, int32: Int32(clamping: timeoutMilliseconds))
        try socket.connect(endpoint)
        return socket
    }

    /// How long before the client stops waiting a request's deadline falls: the time the
    /// coordinator has to commit what it began before the deadline and for the reply to travel
    /// (a quarter of the timeout, at most a second).
    public static func deadlineMargin(timeoutMilliseconds: Int) -> Int {
        min(timeoutMilliseconds / 4, 1_000)
    }

    /// Drops whatever the socket still holds (a request that timed out, queued for a coordinator
    /// that is not there): the old socket closes with linger 0 and a new one connects. When no new
    /// one can be made the old one stays; its request may then still be sent, but past its deadline.
    private mutating func reset() {
        guard let fresh = try? Self.connect(context: context, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds, curve: curve)
        else { return }
        socket = fresh
    }

    /// Uses `endpoints[index]` from the next request on (a fresh socket: whatever the old one
    /// still holds is dropped with it). The gateway's clients follow the one that last moved.
    /// - Returns: whether the client uses it now (`false` for an index out of range, or a socket
    ///   that cannot be made; the client then keeps the endpoint it had).
    @discardableResult
    public mutating func use(endpointAt index: Int) -> Bool {
        guard endpoints.indices.contains(index) else { return false }
        guard index != endpointIndex else { return true }
        guard
            let fresh = try? Self.connect(
                context: context, endpoint: endpoints[index], timeoutMilliseconds: timeoutMilliseconds, curve: curve)
        else { return false }
        socket = fresh
        endpointIndex = index
        endpoint = endpoints[index]
        return true
    }

    /// Sends a request and decodes its reply.
    /// - Throws: ``ControlClientError`` when there is no reply in time, the reply is malformed, or
    ///   the coordinator answered with an error.
    public mutating func request<Reply: Decodable>(
        _ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = [], as: Reply.Type = Reply.self
    ) throws(ControlClientError) -> Reply {
        let bytes = try requestRaw(command, body, attachments: attachments)
        do {
            return try ControlCodec.decode(Reply.self, from: bytes)
        } catch {
            throw ControlClientError("the reply to \(command.rawValue) could not be read: \(error)")
        }
    }

    /// Sends a request that asked for PROGRESS replies (a DELETE with `progress`) and decodes its
    /// final reply. The timeout is then one of silence: each PROGRESS starts it again, so a long
    /// request that keeps reporting is waited for however long it takes.
    /// - Parameter progress: called with each PROGRESS reply's body, in order.
    public mutating func request<Reply: Decodable>(
        _ command: ControlCommand, _ body: some Encodable, as: Reply.Type = Reply.self, progress: (ControlProgress) -> Void
    ) throws(ControlClientError) -> Reply {
        let encoded: [UInt8]
        do { encoded = try ControlCodec.encode(body) } catch { throw ControlClientError("could not encode \(command.rawValue): \(error)") }
        let bytes = try requestEncoded(command, encoded, attachments: [], asksProgress: true, progress: progress).body
        do {
            return try ControlCodec.decode(Reply.self, from: bytes)
        } catch {
            throw ControlClientError("the reply to \(command.rawValue) could not be read: \(error)")
        }
    }

    /// Sends a request and returns the reply's JSON body as it came.
    public mutating func requestRaw(
        _ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = []
    ) throws(ControlClientError) -> [UInt8] {
        try requestWithAttachments(command, body, attachments: attachments).body
    }

    /// Sends a request and returns the reply's JSON body and its attachments.
    /// - Throws: ``ControlClientError``; with ``ControlClientError/isTooLarge`` set, and nothing
    ///   sent, when the request is larger than the coordinator accepts
    ///   (``WorkerMessage/maximumMessageSize``): libzmq would drop it and close the connection,
    ///   which looks like a coordinator that is not running.
    public mutating func requestWithAttachments(
        _ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = []
    ) throws(ControlClientError) -> (body: [UInt8], attachments: [[UInt8]]) {
        let encoded: [UInt8]
        do { encoded = try ControlCodec.encode(body) } catch { throw ControlClientError("could not encode \(command.rawValue): \(error)") }
        return try requestEncoded(command, encoded, attachments: attachments)
    }

    /// Sends a request whose body is `body` as it is (JSON no Codable type would write, for tests
    /// and `workfeed-bench attack`) and returns the reply's body.
    public mutating func requestRaw(
        _ command: ControlCommand, body encoded: [UInt8], attachments: [[UInt8]] = []
    ) throws(ControlClientError) -> [UInt8] {
        try requestEncoded(command, encoded, attachments: attachments).body
    }

    /// Sends a request to the endpoint in use and, while it goes unanswered, to each next one.
    private mutating func requestEncoded(
        _ command: ControlCommand, _ encoded: [UInt8], attachments: [[UInt8]], asksProgress: Bool = false,
        progress: (ControlProgress) -> Void = { _ in }
    ) throws(ControlClientError) -> (body: [UInt8], attachments: [[UInt8]]) {
        var tried = 1
        while true {
            do {
                return try requestOnce(command, encoded, attachments: attachments, asksProgress: asksProgress, progress: progress)
            } catch let error where error.unanswered && endpoints.count > 1 {
                let from = endpoint
                // The next endpoint whose socket can be made (one that cannot counts as tried).
                var next = endpointIndex
                var moved = false
                while !moved && tried < endpoints.count {
                    next = (next + 1) % endpoints.count
                    tried += 1
                    moved = use(endpointAt: next)
                }
                guard moved else {
                    var none = ControlClientError(
                        "no reply from any of the coordinators at \(endpoints.joined(separator: ", ")) within \(timeoutMilliseconds / 1000) s each"
                            + (asksProgress ? " of its last progress report" : "") + ": is workfeed-coordinator running there?")
                    none.unanswered = true
                    throw none
                }
                failover?(from, endpoint, error.description)
            }
        }
    }

    /// Sends a request to the endpoint in use, and waits for its reply.
    private mutating func requestOnce(
        _ command: ControlCommand, _ encoded: [UInt8], attachments: [[UInt8]], asksProgress: Bool,
        progress: (ControlProgress) -> Void
    ) throws(ControlClientError) -> (body: [UInt8], attachments: [[UInt8]]) {
        let size = attachments.reduce(Int64(encoded.count + 32)) { $0 + Int64($1.count) }
        guard size <= maximumMessageSize else {
            var error = ControlClientError(
                "the \(command.rawValue) message would be \(Self.describe(size)), over the control protocol's limit of "
                    + "\(Self.describe(maximumMessageSize)): not sent")
            error.isTooLarge = true
            throw error
        }
        let id = nextID
        nextID += 1
        let sentBy =
            sendsDeadlines
            ? ControlRequest.now() + UInt64(max(1, timeoutMilliseconds - Self.deadlineMargin(timeoutMilliseconds: timeoutMilliseconds))) : nil
        do {
            try socket.send(ControlRequest(id: id, command: command, body: encoded, attachments: attachments, deadline: sentBy).frames)
            var deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
            while true {
                let left = deadline - ContinuousClock.now
                let leftMilliseconds = Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
                guard leftMilliseconds > 0, try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: leftMilliseconds)[0] else {
                    reset()
                    var error = ControlClientError(
                        "no reply from the coordinator at \(endpoint) within \(timeoutMilliseconds / 1000) s"
                            + (asksProgress ? " of its last progress report" : "") + ": is workfeed-coordinator running there?")
                    error.unanswered = true
                    throw error
                }
                guard let frames = try socket.receive(dontWait: true) else { continue }
                let reply: ControlReply
                do { reply = try ControlReply(frames: frames) } catch {
                    if let first = frames.first, let reached = WireProtocol(frame: first), reached != .control {
                        throw ControlClientError(
                            WireProtocol.control.wrongEndpoint(endpoint, reached: reached)
                                + ": give the control endpoint (--coordinator, WORKFEED_CONTROL)")
                    }
                    throw ControlClientError("malformed reply from \(endpoint): \(error)")
                }
                guard reply.id == id else { continue }
                if reply.isProgress {
                    // Still at work: the wait for the next word starts again.
                    deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
                    if let body = try? ControlCodec.decode(ControlProgress.self, from: reply.body) { progress(body) }
                    continue
                }
                guard reply.ok else {
                    let body = try? ControlCodec.decode(ControlErrorBody.self, from: reply.body)
                    var error = ControlClientError(body?.message ?? "unreadable error", fromCoordinator: true)
                    error.code = body?.code
                    error.reason = body?.reason
                    throw error
                }
                return (reply.body, reply.attachments)
            }
        } catch let error as ZMQError where error.code == EAGAIN {
            reset()
            var error = ControlClientError(
                "no connection to the coordinator at \(endpoint) within \(timeoutMilliseconds / 1000) s: is it running, and is this client's key allowed?"
            )
            error.unanswered = true
            throw error
        } catch let error as ZMQError {
            throw ControlClientError("talking to the coordinator at \(endpoint): \(error)")
        } catch let error as ControlClientError {
            throw error
        } catch {
            throw ControlClientError("\(error)")
        }
    }
}

extension ControlClient {
    static func describe(_ bytes: Int64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}

/// A control request that failed: no reply, a malformed one, or the coordinator's own error message.
public struct ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// The coordinator understood the request and refused it (bad id, ...), as opposed to a transport failure.
    public var fromCoordinator: Bool
    /// The request was not sent: it is larger than the coordinator accepts. The connection is fine.
    public var isTooLarge = false
    /// The coordinator did not answer: no connection, or no reply in time. The request may have
    /// been carried out all the same; a client of several coordinators tries the next.
    public var unanswered = false
    /// The coordinator's code for its refusal, when it gave one (``ControlErrorCode``).
    public var code: ControlErrorCode?
    /// The finer code under ``code``, where the coordinator gave one (``ControlErrorBody/reason``).
    public var reason: String?

    public init(_ description: String, fromCoordinator: Bool = false) {
        self.description = description
        self.fromCoordinator = fromCoordinator
    }
}
