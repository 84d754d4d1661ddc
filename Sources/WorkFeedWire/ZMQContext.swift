import CZeroMQ

/// A libzmq context: thread-safe, shared by every socket of a process.
///
/// Terminating the context (``shutdown()``, or deinit) makes every blocking call on its sockets
/// return `ETERM`, which is how socket threads learn to stop.
public final class ZMQContext: Sendable {
    nonisolated(unsafe) let handle: UnsafeMutableRawPointer

    public init() {
        // zmq_ctx_new only fails when the process is out of memory or file descriptors.
        guard let handle = zmq_ctx_new() else { fatalError("zmq_ctx_new failed: \(ZMQError("zmq_ctx_new"))") }
        self.handle = handle
    }

    /// Makes blocking calls on this context's sockets fail with `ETERM`, without waiting for them to close.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        while zmq_ctx_term(handle) != 0 && wf_errno() == EINTR {}
    }
}
