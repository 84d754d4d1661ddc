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

extension ZMQContext {
    /// Wakes a loop that polls a PAIR socket bound at `endpoint`, so that it sees a stop it was
    /// asked for (a flag it checks every turn) at once rather than at its next tick; then calls
    /// `untilStopped`, which waits for the loop to end.
    ///
    /// The message never blocks: a loop that has seen the flag and ended already has no socket
    /// to take it, and a PAIR send would wait for a peer for ever, on the caller's thread. The
    /// socket stays open while `untilStopped` runs: closed at once (linger 0), the message could
    /// be dropped before the loop reads it.
    /// - Returns: why the loop could not be woken (it still stops at its next turn), or `nil`.
    @discardableResult
    public func wake(_ endpoint: String, untilStopped: () -> Void) -> ZMQError? {
        do throws(ZMQError) {
            let wake = try ZMQSocket(self, type: .pair)
            try wake.connect(endpoint)
            _ = try? wake.send([Array("STOP".utf8)], dontWait: true)
            untilStopped()
            return nil
        } catch {
            untilStopped()
            return error
        }
    }
}
