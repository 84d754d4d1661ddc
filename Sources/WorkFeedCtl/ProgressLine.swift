import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a long operation has done, and how fast it goes now: the rate and the ETA come from the
/// last ``window`` of samples, not from the start, so that a pause (no workers for a while) and
/// a restart show at once instead of being averaged away.
///
/// Pure arithmetic on the times it is given: tests drive it with their own clock.
struct ProgressMeter {
    struct Sample {
        var seconds: Double
        var finished: Int
    }

    var total: Int
    let unit: String
    /// How far back the rate looks.
    let window: Double
    /// After this long with no worker connected, ``line(seconds:)`` says so.
    let noWorkerWarningAfter: Double
    private(set) var done = 0
    private(set) var failed = 0
    private(set) var workers: Int?
    private var samples: [Sample] = []
    private var noWorkerSince: Double?

    init(total: Int, unit: String, window: Double = 20, noWorkerWarningAfter: Double = 5) {
        self.total = total
        self.unit = unit
        self.window = window
        self.noWorkerWarningAfter = noWorkerWarningAfter
    }

    /// Done and failed so far at `seconds` (any clock, as long as it only goes forward), and the
    /// workers connected when the operation depends on them.
    mutating func record(done: Int, failed: Int = 0, workers: Int? = nil, seconds: Double) {
        self.done = done
        self.failed = failed
        self.workers = workers
        samples.append(Sample(seconds: seconds, finished: done + failed))
        // Keep one sample older than the window, so the rate always spans the whole window.
        while samples.count > 2, samples[1].seconds <= seconds - window { samples.removeFirst() }
        if workers == 0 {
            if noWorkerSince == nil { noWorkerSince = seconds }
        } else {
            noWorkerSince = nil
        }
    }

    /// Items finished (done or failed) a second over the window; `nil` until two samples at
    /// different times exist.
    var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.seconds > first.seconds else { return nil }
        return Double(last.finished - first.finished) / (last.seconds - first.seconds)
    }

    /// Seconds until everything is finished at the current rate; `nil` when nothing moves.
    var eta: Double? {
        guard let rate, rate > 0 else { return nil }
        return Double(max(total - done - failed, 0)) / rate
    }

    /// Whether no worker has been connected for ``noWorkerWarningAfter`` seconds at `seconds`.
    func waitingForWorkers(at seconds: Double) -> Bool {
        noWorkerSince != nil && secondsWithoutWorkers(at: seconds) >= noWorkerWarningAfter
    }

    /// How long no worker has been connected at `seconds`; 0 while one is (or when the operation
    /// does not depend on workers).
    func secondsWithoutWorkers(at seconds: Double) -> Double {
        noWorkerSince.map { seconds - $0 } ?? 0
    }

    /// "1,204/2,000 pictures done (60%), 12 failed, 310/s, ETA 3s, 2 workers": the percentage is
    /// of those done, like the count.
    func line(seconds: Double) -> String {
        var text = "\(Self.grouped(done))/\(Self.grouped(total)) \(unit) done"
        // The share of the total done, as the count before it says (30/32 done is 94%, whatever
        // failed); 100% only when all are done.
        if total > 0 {
            let percent = done >= total ? 100 : min(99, Int((100 * Double(done) / Double(total)).rounded()))
            text += " (\(percent)%)"
        }
        if failed > 0 { text += ", \(Self.grouped(failed)) failed" }
        if let rate { text += rate >= 10 ? ", \(Int(rate.rounded()))/s" : String(format: ", %.1f/s", rate) }
        if done + failed < total {
            if let eta { text += ", ETA " + Self.format(seconds: eta) } else if rate != nil { text += ", ETA unknown (no progress)" }
        }
        if let workers { text += ", \(workers) worker\(workers == 1 ? "" : "s")" }
        if waitingForWorkers(at: seconds) {
            text += ": no worker connected; pictures wait until a workfeed-worker connects"
        }
        return text
    }

    /// `1234567` as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }

    static func format(seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total >= 3600 { return "\(total / 3600)h\(String(format: "%02d", total % 3600 / 60))m" }
        if total >= 60 { return "\(total / 60)m\(String(format: "%02d", total % 60))s" }
        return "\(total)s"
    }
}

/// Progress for long operations, on standard error: a line redrawn in place on a terminal, plain
/// lines every few seconds otherwise (so a log file gets a readable record, not carriage returns),
/// or JSON lines when asked (`--progress-json`), one object a line, for tools that read it.
struct ProgressLine {
    private(set) var meter: ProgressMeter
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private let interactive = isatty(STDERR_FILENO) != 0
    private let json: Bool
    private var drewInPlace = false

    init(total: Int, unit: String, json: Bool = false) {
        meter = ProgressMeter(total: total, unit: unit)
        self.json = json
    }

    /// Seconds since the operation started.
    var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// - Parameter total: the total now, when it grows while the operation runs.
    mutating func update(done: Int, failed: Int = 0, workers: Int? = nil, total: Int? = nil, extra: String = "") {
        let seconds = elapsed
        if let total { meter.total = total }
        meter.record(done: done, failed: failed, workers: workers, seconds: seconds)
        let now = ContinuousClock.now
        let every: Duration = interactive && !json ? .milliseconds(200) : .seconds(json ? 1 : 5)
        if let lastDrawn, now - lastDrawn < every, done + failed < meter.total { return }
        lastDrawn = now
        if json {
            writeJSON(seconds: seconds)
            return
        }
        var text = meter.line(seconds: seconds)
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

    private func writeJSON(seconds: Double) {
        struct Line: Encodable {
            var unit: String
            var total: Int
            var done: Int
            var failed: Int
            var rate: Double?
            var etaSeconds: Double?
            var workers: Int?
            var waitingForWorkers: Bool
            var elapsedSeconds: Double
        }
        let line = Line(
            unit: meter.unit, total: meter.total, done: meter.done, failed: meter.failed, rate: meter.rate, etaSeconds: meter.eta,
            workers: meter.workers, waitingForWorkers: meter.waitingForWorkers(at: seconds), elapsedSeconds: seconds)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(line) else { return }
        FileHandle.standardError.write(data + Data("\n".utf8))
    }
}
