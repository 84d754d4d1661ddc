import Logging
import Synchronization

/// Log lines that a client can cause as often as it likes (a picture name planted in the cache, a
/// coordinator that does not answer), written at most once a second for each kind, with a count of
/// those not written: the log must not become anyone's flood.
final class ThrottledLog: Sendable {
    private struct Window {
        var last: ContinuousClock.Instant
        var suppressed = 0
    }

    private let windows = Mutex<[String: Window]>([:])
    let interval: Duration

    init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    func log(
        _ kind: String, _ message: Logger.Message, level: Logger.Level = .warning, metadata: Logger.Metadata = [:], logger: Logger,
        now: ContinuousClock.Instant = .now
    ) {
        let suppressed = windows.withLock { windows -> Int? in
            if var window = windows[kind], now - window.last < interval {
                window.suppressed += 1
                windows[kind] = window
                return nil
            }
            defer { windows[kind] = Window(last: now) }
            return windows[kind]?.suppressed ?? 0
        }
        guard let suppressed else { return }
        var metadata = metadata
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        logger.log(level: level, message, metadata: metadata)
    }
}
