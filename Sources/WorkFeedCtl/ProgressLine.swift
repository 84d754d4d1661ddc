import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Progress for long operations, on standard error: a line redrawn in place on a terminal, plain
/// lines every few seconds otherwise (so a log file gets a readable record, not carriage returns).
struct ProgressLine {
    let total: Int
    let unit: String
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private let interactive = isatty(STDERR_FILENO) != 0
    private var drewInPlace = false

    init(total: Int, unit: String) {
        self.total = total
        self.unit = unit
    }

    /// Seconds since the operation started.
    var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    mutating func update(done: Int, extra: String = "") {
        let now = ContinuousClock.now
        let every: Duration = interactive ? .milliseconds(200) : .seconds(5)
        if let lastDrawn, now - lastDrawn < every, done < total { return }
        lastDrawn = now
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var text = "\(done)/\(total) \(unit)"
        if total > 0 { text += String(format: " (%.0f%%)", 100 * Double(done) / Double(total)) }
        text += String(format: ", %.1f/s", rate)
        if rate > 0 && done < total { text += ", ETA " + Self.format(seconds: Double(total - done) / rate) }
        if !extra.isEmpty { text += ", " + extra }
        write(text)
    }

    /// A message that must stay visible (a skipped file, say).
    mutating func note(_ message: String) {
        if drewInPlace { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drewInPlace = false
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    mutating func finish() {
        if drewInPlace { FileHandle.standardError.write(Data("\n".utf8)) }
        drewInPlace = false
    }

    private mutating func write(_ text: String) {
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
            drewInPlace = true
        } else {
            FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
        }
    }

    static func format(seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total >= 3600 { return "\(total / 3600)h\(String(format: "%02d", total % 3600 / 60))m" }
        if total >= 60 { return "\(total / 60)m\(String(format: "%02d", total % 60))s" }
        return "\(total)s"
    }
}
