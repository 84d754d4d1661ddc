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

    /// Polls STATUS for the selection, drawing progress on standard error, until nothing of it is
    /// pending.
    func run(client: inout ControlClient, progressJSON: Bool) throws(ControlClientError) -> Outcome {
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
            Thread.sleep(forTimeInterval: interval)
        }
        progress.finish()
        let elapsed = ContinuousClock.now - started
        outcome.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return outcome
    }

    /// "1,204 generated, 12 failed in 42s", and where to look when some failed.
    static func summary(_ outcome: Outcome) -> [String] {
        var lines = [
            "done: \(ProgressMeter.grouped(outcome.generated)) generated, \(ProgressMeter.grouped(outcome.failed)) failed"
                + (outcome.seconds.map { " in " + ProgressMeter.format(seconds: $0) } ?? "")
        ]
        if outcome.failed > 0 {
            lines.append("\(ProgressMeter.grouped(outcome.failed)) pictures failed: workctl failed --group says why (exit code 2)")
        }
        return lines
    }
}
