import CZeroMQ

/// A libzmq call failed. Carries errno as libzmq reported it at once, and what we were doing.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errno value libzmq set.
    public var code: Int32
    /// What was being done, for example `bind tcp://127.0.0.1:5555`.
    public var operation: String

    init(_ operation: String, code: Int32 = wf_errno()) {
        self.code = code
        self.operation = operation
    }

    /// The call was interrupted by a signal; callers usually retry.
    public var isInterrupted: Bool { code == EINTR }
    /// The context was terminated: the process is shutting down.
    public var isTerminated: Bool { code == ETERM }
    /// A send without waiting found the peer's queue full (EAGAIN): it is not reading.
    public var isWouldBlock: Bool { code == EAGAIN }

    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(code))) (errno \(code))"
    }
}
