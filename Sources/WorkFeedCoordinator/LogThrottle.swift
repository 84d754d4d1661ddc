import Logging

/// Logs a kind of event at most once a second, with the number not logged in between, so that a
/// stream of refused connections or malformed messages cannot flood the log (issue 13: 3,000
/// refused connections wrote 550 warning lines a second). Used on one thread.
struct LogThrottle {
    private struct Window {
        var lastLogged: ContinuousClock.Instant
        var suppressed = 0
        var level: Logger.Level
        var message: String
    }

    private var windows: [String: Window] = [:]
    let interval: Duration

    init(interval: Duration = .seconds(1)) { self.interval = interval }

    /// Logs `message` unless one of `kind` was logged less than ``interval`` ago; then counts it.
    mutating func log(
        _ kind: String, _ message: String, level: Logger.Level = .warning, metadata: Logger.Metadata = [:], logger: Logger,
        now: ContinuousClock.Instant = .now
    ) {
        if var window = windows[kind], now - window.lastLogged < interval {
            window.suppressed += 1
            windows[kind] = window
            return
        }
        let suppressed = windows[kind]?.suppressed ?? 0
        var metadata = metadata
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        logger.log(level: level, "\(message)", metadata: metadata)
        windows[kind] = Window(lastLogged: now, level: level, message: message)
    }

    /// Says how many of each kind were not logged, once their second is over: the count of the
    /// last burst is never lost. Call it now and then (each loop tick).
    mutating func flush(logger: Logger, now: ContinuousClock.Instant = .now) {
        for (kind, window) in windows where now - window.lastLogged >= interval {
            if window.suppressed > 0 {
                logger.log(level: window.level, "\(window.message) (repeated)", metadata: ["suppressed": "\(window.suppressed)", "kind": "\(kind)"])
            }
            windows[kind] = nil
        }
    }
}
