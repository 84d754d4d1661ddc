import Foundation
import Logging
import WorkFeedModel
import WorkFeedIndex

/// Logs what the coordinator is getting done, every few seconds while jobs are flowing, so that a
/// long regeneration shows its progress in the coordinator's log as well as in `workctl --wait`.
struct ProgressReporter {
    static let interval: Duration = .seconds(5)

    private var lastReport: ContinuousClock.Instant?
    private var generated = 0
    private var failed = 0
    private var retried = 0
    private var renderMicroseconds: UInt64 = 0
    /// Loop turns since the last report: with `generated`, how much each turn's transaction carries.
    private var turns = 0

    mutating func countTurn() { turns += 1 }

    mutating func record(_ effect: CompletionEffect, renderMicroseconds: UInt64) {
        guard case .updated(_, let status, let reason, _, _) = effect else { return }
        switch status {
        case .generated:
            generated += 1
            // The figure comes from a worker: saturate rather than trust it not to overflow.
            let (sum, overflow) = self.renderMicroseconds.addingReportingOverflow(renderMicroseconds)
            self.renderMicroseconds = overflow ? UInt64.max : sum
        case .failedNoRetry:
            failed += 1
        case .pending:
            if reason != nil { retried += 1 }
        }
    }

    func isDue(now: ContinuousClock.Instant) -> Bool {
        guard generated + failed + retried > 0 else { return false }
        guard let lastReport else { return true }
        return now - lastReport >= Self.interval
    }

    mutating func report(_ transaction: some IndexWriting, workers: [[UInt8]: WorkerState], logger: Logger, now: ContinuousClock.Instant) {
        let seconds = lastReport.map { Double((now - $0).components.seconds) + Double((now - $0).components.attoseconds) / 1e18 } ?? 0
        let rate = seconds > 0 ? Double(generated) / seconds : 0
        logger.info(
            "progress",
            metadata: [
                "generated": "\(generated)", "failed": "\(failed)", "retried": "\(retried)",
                "rate_per_s": "\(Int(rate.rounded()))",
                "ready": "\((try? transaction.readyCount(now: Date())) ?? -1)",
                "leased": "\(transaction.leasedCount)",
                "workers": "\(workers.count)",
                "turns_per_s": "\(seconds > 0 ? Int((Double(turns) / seconds).rounded()) : 0)",
                "mean_render_ms": "\(generated > 0 ? Double(renderMicroseconds / UInt64(generated)) / 1000 : 0)",
            ])
        lastReport = now
        generated = 0
        failed = 0
        retried = 0
        renderMicroseconds = 0
        turns = 0
    }
}
