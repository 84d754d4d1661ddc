import Dispatch
import Foundation
import WorkFeedWire

/// Starts a thread of the coordinator that wakes the loop when it has something for it: a PUSH
/// socket of its own on the loop's inproc PULL `doneEndpoint` (a byte there wakes the loop's
/// poll), then `body` with it. Returns once the socket is connected, or throws why it could not
/// be; `finished` is signalled when the thread ends.
func startSignallingThread(
    named name: String, context: ZMQContext, doneEndpoint: String, finished: DispatchSemaphore,
    _ body: @escaping @Sendable (borrowing ZMQSocket) -> Void
) throws {
    let opened = Handoff<(any Error)?>()
    let thread = Thread {
        defer { finished.signal() }
        do {
            let done = try ZMQSocket(context, type: .push)
            try done.connect(doneEndpoint)
            opened.put(nil)
            body(done)
        } catch {
            opened.put(error)
        }
    }
    thread.name = name
    thread.start()
    if let error = opened.take() {
        finished.wait()
        throw error
    }
}
