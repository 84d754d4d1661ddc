import Dispatch
import Foundation
import Synchronization
public import Logging

/// Waiting for the signals that ask a process to stop.
public enum ProcessSignals {
    /// Blocks the calling thread until SIGTERM or SIGINT arrives, and returns its name.
    public static func waitForTermination() -> String {
        let received = DispatchSemaphore(value: 0)
        let name = LockedName()
        var sources: [any DispatchSourceSignal] = []
        for (number, label) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                name.set(label)
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
        received.wait()
        return name.get()
    }

    /// Waits (off Swift's cooperative pool) for SIGTERM or SIGINT, logs it, and runs `stop` on a
    /// thread of its own: how both daemons end.
    public static func runUntilTerminated(logger: Logger, stop: @escaping @Sendable () -> Void) async {
        let signal = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: waitForTermination()) }
        }
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                stop()
                continuation.resume()
            }
        }
    }

    private final class LockedName: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = ""
        func set(_ text: String) { lock.withLock { value = text } }
        func get() -> String { lock.withLock { value } }
    }
}

/// A request to stop, shared by whoever asks (`stop()`) and the loop that must end. The loop is
/// also woken through an inproc socket, at once; this flag, which it checks every turn, makes the
/// stop happen even when that socket cannot be made (a context out of sockets, say).
public final class StopRequest: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func request() { flag.store(true, ordering: .releasing) }

    public var isRequested: Bool { flag.load(ordering: .acquiring) }
}
