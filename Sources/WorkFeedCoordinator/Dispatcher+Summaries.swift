import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStyle
import WorkFeedWire

extension CoordinatorConfiguration {
    /// The zones owners who set none get, for summaries' time in zones: the heatmaps' own.
    var summaryZoneDefaults: SummaryZoneDefaults {
        SummaryZoneDefaults(thresholds: heatmap.thresholds, percentages: maximumHeartRatePercentages)
    }
}

extension Dispatcher {
    /// Workouts counted per rebuild step: a step is part of one batch's transaction, so it is
    /// kept short enough (tens of milliseconds) not to hold up dispatch.
    static var summaryRebuildStep: Int { 500 }

    /// At start: the index counts time in zones with the configured zones, and owners whose
    /// summaries were counted with other zones (the configuration changed) or another calendar
    /// are rebuilt.
    static func prepareSummaries(configuration: CoordinatorConfiguration, index: Index, logger: Logger) throws {
        index.summaryZoneDefaults = configuration.summaryZoneDefaults
        let scheduled = try index.write { try $0.checkSummaryCalendars(owners: nil) }
        let waiting = try index.read { try $0.summaryRebuilds() }
        if !waiting.isEmpty {
            logger.info(
                "owners' summaries to build again",
                metadata: ["owners": "\(waiting.count)", "changed_since_last_run": "\(scheduled.count)"])
        }
    }

    /// One step of a waiting summary rebuild, inside the batch's transaction (docs/summaries.md,
    /// "Rebuilds"), of the next owner after `previous` in turn; its progress is in `workctl status`
    /// and in the SUMMARY reply.
    /// - Returns: the owner stepped, `nil` when no rebuild was waiting.
    func rebuildSummaries(transaction: inout Index.Transaction, after previous: String?) throws -> String? {
        guard let step = try transaction.rebuildSummariesStep(limit: Self.summaryRebuildStep, after: previous) else { return nil }
        if step.finished {
            logger.info("owner's summaries built again", metadata: ["owner": "\(step.owner)", "workouts": "\(step.progress.done)"])
        }
        return step.owner
    }
}

extension ReadAnswers {
    /// SUMMARY: an owner's buckets, read from the index (IndexReading's ``IndexReading/summaries(owner:period:from:to:activity:defaults:now:)``).
    func summary(_ request: ControlRequest, reader: Connection.Reader) throws -> [UInt8] {
        let body = try decode(SummaryRequest.self, request)
        guard let owner = try checkOwner(body.owner, "SUMMARY") else { throw ControlRequestError("SUMMARY needs an owner") }
        do {
            let days = try body.days()
            let report = try reader.summaries(
                owner: owner, period: body.period, from: days.from, to: days.to, activity: body.activity, defaults: summaryZoneDefaults,
                now: Date())
            // Speeds in the owner's units, as a workout gives them (one shape for a fact).
            return try ControlCodec.encode(report.expressed(in: try reader.ownerSettings(owner: owner).units ?? .metric))
        } catch let error as SummaryRangeError {
            throw ControlRequestError("SUMMARY: \(error.field): \(error.message)")
        }
    }
}
