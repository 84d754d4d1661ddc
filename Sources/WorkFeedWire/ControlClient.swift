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
public struct ControlClient: ~Copyable {
    private var socket: ZMQSocket
    private let context: ZMQContext
    private let curve: CurveClientKeys?
    public let endpoint: String
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
        socket = try Self.connect(context: context, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds, curve: curve)
        self.context = context
        self.curve = curve
        self.endpoint = endpoint
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

    private mutating func requestEncoded(
        _ command: ControlCommand, _ encoded: [UInt8], attachments: [[UInt8]], asksProgress: Bool = false,
        progress: (ControlProgress) -> Void = { _ in }
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
                    throw ControlClientError(
                        "no reply from the coordinator at \(endpoint) within \(timeoutMilliseconds / 1000) s"
                            + (asksProgress ? " of its last progress report" : "") + ": is workfeed-coordinator running there?")
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
                    throw error
                }
                return (reply.body, reply.attachments)
            }
        } catch let error as ZMQError where error.code == EAGAIN {
            reset()
            throw ControlClientError(
                "no connection to the coordinator at \(endpoint) within \(timeoutMilliseconds / 1000) s: is it running, and is this client's key allowed?"
            )
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
    /// The coordinator's code for its refusal, when it gave one (``ControlErrorCode``).
    public var code: ControlErrorCode?

    public init(_ description: String, fromCoordinator: Bool = false) {
        self.description = description
        self.fromCoordinator = fromCoordinator
    }
}
