import CZeroMQ

/// The socket types WorkFeed uses.
public enum ZMQSocketType: Sendable {
    case router, dealer, pub, sub, push, pull, pair, rep

    var rawValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        case .rep: ZMQ_REP
        }
    }
}

/// One libzmq socket. Sockets are not thread-safe, so the type is `~Copyable` and not `Sendable`:
/// the thread that creates it is the only one that uses it, and `deinit` closes it.
public struct ZMQSocket: ~Copyable {
    let handle: UnsafeMutableRawPointer

    /// Creates a socket with linger 0 (unsent messages are dropped at close: the index, not the
    /// socket queues, is where work waits).
    public init(_ context: ZMQContext, type: ZMQSocketType) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.rawValue) else { throw ZMQError("zmq_socket") }
        var linger: Int32 = 0
        guard zmq_setsockopt(handle, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size) == 0 else {
            let error = ZMQError("setsockopt LINGER")
            zmq_close(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        zmq_close(handle)
    }

    /// Binds and returns the endpoint actually bound (a `*` port is resolved).
    @discardableResult
    public func bind(_ endpoint: String) throws(ZMQError) -> String {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError("bind \(endpoint)") }
        return try lastEndpoint()
    }

    public func connect(_ endpoint: String) throws(ZMQError) {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError("connect \(endpoint)") }
    }

    /// Sets one of the options WorkFeed uses (``ZMQSocketOption``): callers never see libzmq's
    /// numbers or its C types.
    public func set(_ option: ZMQSocketOption) throws(ZMQError) {
        switch option {
        case .routerMandatory(let on): try setOption(ZMQ_ROUTER_MANDATORY, int32: on ? 1 : 0)
        case .maximumMessageSize(let bytes): try setOption(ZMQ_MAXMSGSIZE, int64: bytes)
        case .sendHighWaterMark(let messages): try setOption(ZMQ_SNDHWM, int32: messages)
        case .receiveHighWaterMark(let messages): try setOption(ZMQ_RCVHWM, int32: messages)
        case .sendTimeout(let milliseconds): try setOption(ZMQ_SNDTIMEO, int32: milliseconds)
        case .receiveTimeout(let milliseconds): try setOption(ZMQ_RCVTIMEO, int32: milliseconds)
        case .routingID(let name): try setOption(ZMQ_ROUTING_ID, string: name)
        case .linger(let milliseconds): try setOption(ZMQ_LINGER, int32: milliseconds)
        }
    }

    func setOption(_ option: Int32, int32 value: Int32) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError("setsockopt \(option)")
        }
    }

    func setOption(_ option: Int32, int64 value: Int64) throws(ZMQError) {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError("setsockopt \(option)")
        }
    }

    func setOption(_ option: Int32, bytes: [UInt8]) throws(ZMQError) {
        let result = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        guard result == 0 else { throw ZMQError("setsockopt \(option)") }
    }

    func setOption(_ option: Int32, string text: String) throws(ZMQError) {
        try setOption(option, bytes: Array(text.utf8))
    }

    /// Subscribes a SUB socket to messages whose first frame starts with `prefix` ("" for all).
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8))
    }

    /// The endpoint the socket last bound, e.g. `tcp://127.0.0.1:40123`.
    public func lastEndpoint() throws(ZMQError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { throw ZMQError("getsockopt LAST_ENDPOINT") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sends one multipart message.
    /// - Parameter dontWait: fail with `EAGAIN` instead of blocking when the peer's queue is full
    ///   (or, on a ROUTER with `ROUTER_MANDATORY`, when the peer is gone: `EHOSTUNREACH`).
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws(ZMQError) {
        for (index, frame) in frames.enumerated() {
            try send(frame, more: index < frames.count - 1, dontWait: dontWait)
        }
    }

    /// Sends `frames` to a ROUTER socket's peer: its identity frame first, then the message.
    public func send(_ frames: [[UInt8]], to identity: [UInt8], dontWait: Bool = false) throws(ZMQError) {
        try send(identity, more: true, dontWait: dontWait)
        try send(frames, dontWait: dontWait)
    }

    private func send(_ frame: [UInt8], more: Bool, dontWait: Bool) throws(ZMQError) {
        var flags: Int32 = dontWait ? wf_zmq_dontwait : 0
        if more { flags |= wf_zmq_sndmore }
        while true {
            let sent = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if sent >= 0 { return }
            let error = ZMQError("send")
            if error.isInterrupted { continue }
            throw error
        }
    }

    /// Receives one whole multipart message.
    /// - Parameter dontWait: return `nil` at once when no message is waiting.
    /// - Returns: the frames, or `nil` when `dontWait` and nothing is waiting.
    public func receive(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        try receiveWithUserID(dontWait: dontWait)?.frames
    }

    /// Receives one whole multipart message and the ZAP user id its connection was let in with
    /// (the `User-Id` property: on a CURVE server, what ``ZAP`` answered for the sender's key;
    /// `nil` without authentication).
    public func receiveWithUserID(dontWait: Bool = false) throws(ZMQError) -> (frames: [[UInt8]], userID: String?)? {
        var frames: [[UInt8]] = []
        var userID: String?
        // zmq_msg_t must not be copied or moved while initialised (small messages live inline),
        // so it lives in memory of its own for the whole receive.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        var more = true
        while more {
            zmq_msg_init(message)
            defer { zmq_msg_close(message) }
            // Only the first frame may be skipped for lack of a message; the rest of a multipart
            // message is always already there.
            let flags: Int32 = (dontWait && frames.isEmpty) ? wf_zmq_dontwait : 0
            while zmq_msg_recv(message, handle, flags) < 0 {
                let error = ZMQError("receive")
                if error.code == EAGAIN && flags != 0 { return nil }
                if error.isInterrupted { continue }
                throw error
            }
            // Not on the first frame: a ROUTER makes that one (the sender's routing id) itself,
            // without the connection's metadata. The frames that came over the wire carry it.
            if userID == nil, let property = zmq_msg_gets(message, "User-Id") {
                userID = String(cString: property)
            }
            let size = zmq_msg_size(message)
            if size == 0 {
                frames.append([])
            } else {
                let data = zmq_msg_data(message)!.assumingMemoryBound(to: UInt8.self)
                frames.append(Array(UnsafeBufferPointer(start: data, count: size)))
            }
            more = zmq_msg_more(message) != 0
        }
        return (frames, userID)
    }

    /// A non-owning entry for ``ZMQPoll/poll(_:timeoutMilliseconds:)``.
    public func pollItem(readable: Bool = true, writable: Bool = false) -> ZMQPollItem {
        ZMQPollItem(socket: handle, events: (readable ? wf_zmq_pollin : 0) | (writable ? wf_zmq_pollout : 0))
    }
}

/// One socket to wait on, without owning it.
public struct ZMQPollItem {
    let socket: UnsafeMutableRawPointer
    let events: Int16
}

public enum ZMQPoll {
    /// Waits until one of the sockets is readable (or writable, as asked) or the timeout passes.
    /// - Returns: for each item, whether it is ready.
    public static func poll(_ items: [ZMQPollItem], timeoutMilliseconds: Int) throws(ZMQError) -> [Bool] {
        var raw = items.map { zmq_pollitem_t(socket: $0.socket, fd: 0, events: $0.events, revents: 0) }
        while zmq_poll(&raw, Int32(raw.count), timeoutMilliseconds) < 0 {
            let error = ZMQError("poll")
            if error.isInterrupted { return Array(repeating: false, count: items.count) }
            throw error
        }
        return raw.map { $0.revents != 0 }
    }
}
