import Foundation
import WorkFeedModel
import WorkFeedWire

/// Follows exactly the pictures one ENQUEUE covered (`enqueue`, `request`, `retry` with
/// `--wait`) until none of them is pending, counting those generated and those that failed since.
///
/// The reply says how many of the selection's pictures were left pending by the request
/// (created, stale, revived, already pending), how many were current and how many stayed failed.
/// STATUS with the same selection counts them again as they change, so that
/// `generated - current` were drawn since and `failed - left failed` failed since. Other
/// pictures, of other kinds, themes, owners or workouts, are not counted, whatever else is queued.
struct PictureWait {
    let selection: EnqueueRequest
    let reply: EnqueueReply

    /// What has become of the pictures the request left pending.
    struct Outcome: Codable, Equatable {
        /// Pictures this command waited for.
        var total: Int
        var generated: Int
        var failed: Int
        var pending: Int
        var seconds: Double?
    }

    /// The pictures the request left pending.
    var total: Int { reply.created + reply.stale + reply.revived + reply.alreadyPending }

    /// The outcome as `status` (a STATUS for ``selection``) counts it.
    func outcome(_ status: StatusReply) -> Outcome {
        let generated = max(0, status.total(.generated) - reply.current)
        let failed = max(0, status.total(.failedNoRetry) - reply.failed)
        let pending = status.total(.pending)
        // Pictures queued by someone else in the selection meanwhile are followed as well.
        return Outcome(total: max(total, generated + failed + pending), generated: generated, failed: failed, pending: pending)
    }

    /// Waiting ended because no worker was connected for the time allowed (`--wait-timeout`).
    struct NoWorkers: Error {
        /// The seconds allowed without a worker.
        var allowed: Int
        /// What had become of the pictures when waiting stopped.
        var outcome: Outcome
    }

    /// Polls STATUS for the selection, drawing progress on standard error, until nothing of it is
    /// pending.
    /// - Parameter giveUpWithoutWorkers: stop waiting once no worker has been connected for this
    ///   many seconds (``NoWorkers``); `nil` waits for as long as it takes.
    /// - Returns: the outcome, or ``NoWorkers`` (in the `Result`) when waiting was given up.
    func run(
        client: inout ControlClient, progressJSON: Bool, giveUpWithoutWorkers: Int? = nil
    ) throws(ControlClientError) -> Result<
        Outcome, NoWorkers
    > {
        let started = ContinuousClock.now
        var progress = ProgressLine(total: total, unit: "pictures", json: progressJSON)
        var outcome = Outcome(total: total, generated: 0, failed: 0, pending: total)
        // A large selection is a scan of many jobs: asked less often.
        let interval = total > 100_000 ? 1.0 : 0.25
        while true {
            let status: StatusReply = try client.request(.status, StatusRequest(owner: selection.owner, pictures: selection))
            outcome = self.outcome(status)
            progress.update(done: outcome.generated, failed: outcome.failed, workers: status.workers.count, total: outcome.total)
            if outcome.pending == 0 { break }
            if let giveUpWithoutWorkers, progress.meter.secondsWithoutWorkers(at: progress.elapsed) >= Double(giveUpWithoutWorkers) {
                progress.finish()
                outcome.seconds = progress.elapsed
                return .failure(NoWorkers(allowed: giveUpWithoutWorkers, outcome: outcome))
            }
            Thread.sleep(forTimeInterval: interval)
        }
        progress.finish()
        let elapsed = ContinuousClock.now - started
        outcome.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return .success(outcome)
    }

    /// "1,204 generated, 12 failed in 42s", and where to look when some failed.
    /// - Parameter finished: false when waiting was given up: the pictures still pending are counted.
    static func summary(_ outcome: Outcome, finished: Bool = true) -> [String] {
        var lines = [
            (finished ? "done: " : "not done: ")
                + "\(ProgressMeter.grouped(outcome.generated)) generated, \(ProgressMeter.grouped(outcome.failed)) failed"
                + (finished ? "" : ", \(ProgressMeter.grouped(outcome.pending)) pending")
                + (outcome.seconds.map { " in " + ProgressMeter.format(seconds: $0) } ?? "")
        ]
        if outcome.failed > 0 {
            lines.append("\(ProgressMeter.grouped(outcome.failed)) pictures failed: workctl failed --group says why (exit code 2)")
        }
        return lines
    }
}

extension Result {
    /// Whether this is a success.
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
