import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

// MARK: Workers' reports, a turn's run of them at a time

/// A STATUS as its turn gathered it: the worker it came from (known then or not) and the report
/// as the index records it.
struct GatheredReport {
    var identity: [UInt8]
    var report: JobReport
    /// Whether the worker was connected: an unknown one is told to say READY.
    var fromKnownWorker: Bool
    var record: WorkerReport
}

extension Dispatcher {
    /// Takes a STATUS for its turn's run of reports: the worker's slot is free again.
    func gather(_ identity: [UInt8], _ report: JobReport, now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState]) -> GatheredReport {
        var key = ""
        let known = workers.index(forKey: identity)
        if let known {
            workers.values[known].lastHeard = now
            workers.values[known].inFlight.remove(report.lease)
            workers.values[known].done += 1
            key = workers.values[known].key
        }
        let outcome: JobReportRecord.Outcome =
            switch report.outcome {
            case .generated: .generated
            case .failedNoRetry: .failedNoRetry
            case .failedRetry: .failedRetry
            }
        let record = JobReportRecord(lease: report.lease, outcome: outcome, detail: report.detail, map: report.map, code: report.code)
        return GatheredReport(identity: identity, report: report, fromKnownWorker: known != nil, record: WorkerReport(record, from: key))
    }

    /// Records a run of reports in one go (``IndexWriting/complete(_:retry:now:policyAt:cacheKey:)``),
    /// then, in their order, what each says about its worker's health, its event and its log line.
    mutating func completeReports(
        _ run: [GatheredReport], now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState], health: inout WorkerHealth,
        specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox, progress: inout ProgressReporter
    ) throws {
        guard !run.isEmpty else { return }
        let effects = try complete(run.map(\.record), specs: &specs, transaction: &transaction)
        for (gathered, effect) in zip(run, effects) {
            let report = gathered.report
            progress.record(effect, renderMicroseconds: report.renderMicroseconds)
            // Looked up again: an earlier report of the run may have set its worker aside.
            if let known = workers.index(forKey: gathered.identity), case .updated(_, let status, _, _, let code) = effect {
                try watchHealth(
                    known, status: status, transient: report.outcome == .failedRetry, code: code, now: now, workers: &workers, health: &health,
                    transaction: &transaction, outbox: &outbox)
            }
            if let event = CoordinatorEvent(effect) { outbox.events.append(event) }
            outbox.tally.record(effect, renderMicroseconds: report.outcome == .generated ? report.renderMicroseconds : nil)
            switch effect {
            case .staleLease where report.outcome == .generated:
                logger.info(
                    "late report for a lease that is no longer current; not stored, what it wrote goes", metadata: ["lease": "\(report.lease)"])
            case .staleLease:
                logger.debug("late report for a lease that is no longer current; ignored", metadata: ["lease": "\(report.lease)"])
            case .outdated(let picture):
                logger.info(
                    "report on inputs that changed since the job was leased (privacy zones, settings); refused, drawn again",
                    metadata: ["picture": "\(picture)", "lease": "\(report.lease)"])
            case .updated(let picture, let status, let reason, _, _):
                if status == .failedNoRetry || reason != nil {
                    logger.info("picture failed", metadata: ["picture": "\(picture)", "status": "\(status.rawValue)", "reason": "\(reason ?? "")"])
                } else {
                    logger.debug("picture generated", metadata: ["picture": "\(picture)", "render_us": "\(report.renderMicroseconds)"])
                }
            }
            if !gathered.fromKnownWorker {
                outbox.worker.append((gathered.identity, .disconnect(reason: "unknown worker: send READY")))
            }
        }
    }

    /// Reports checked against the current keys, the owners' zones and settings first brought up
    /// to the versions the index holds (another coordinator may have changed them).
    func complete(_ reports: [WorkerReport], specs: inout PictureSpecs, transaction: inout Index.Transaction) throws -> [CompletionEffect] {
        try transaction.complete(
            reports, retry: retry, now: Date(),
            policyAt: { owner, version, reader in try specs.follow(owner: owner, to: version, reader: reader) }
        ) { picture, inputs in specs.cacheKey(for: picture, inputs: inputs)
        }
    }
}
