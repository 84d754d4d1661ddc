import Dispatch
import Foundation

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

    private final class LockedName: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = ""
        func set(_ text: String) { lock.withLock { value = text } }
        func get() -> String { lock.withLock { value } }
    }
}
