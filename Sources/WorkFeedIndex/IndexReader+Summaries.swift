public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Summaries (SUMMARY; docs/summaries.md)

extension IndexReader {
    /// An owner's summaries: every bucket of `period` from the one holding local day `from` to
    /// the one holding `to` (both in the owner's zone), empty ones included.
    /// - Parameters:
    ///   - from: a local day (``SummaryCalendar``); `nil`: eleven buckets before `to`'s.
    ///   - to: a local day; `nil`: today in the owner's zone (kept within ten years after `from`).
    ///   - activity: only this activity (it is then also the `total`); `nil`: all, each apart too.
    ///   - defaults: the zones of owners who set none (for an owner not counted yet).
    /// - Throws: ``SummaryRangeError`` for `from` after `to` or a range over ten years.
    public func summaries(
        owner: String, period: SummaryPeriod, from: Int?, to: Int?, activity: ActivityType?, defaults: SummaryZoneDefaults, now: Date = Date()
    ) throws -> SummaryReport {
        try SummaryReport.assemble(
            owner: owner, period: period, from: from, to: to, activity: activity, now: now, stored: SummaryRows.readOwner(db, owner),
            wanted: { try SummaryRows.wanted(db, owner: owner, defaults: defaults) }, anchor: currentAnchor()
        ) { firstStart, lastStart in
            var sql = """
                SELECT start_day, activity, \(SummaryRows.bucketColumns) FROM summary_bucket
                WHERE owner = ? AND period = ? AND start_day >= ? AND start_day <= ?
                """
            var arguments: [(any DatabaseValueConvertible)?] = [owner, period.rawValue, firstStart, lastStart]
            if let activity {
                sql += " AND activity = ?"
                arguments.append(activity.rawValue)
            }
            var rows: [Int: [String: SummaryTotals]] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) {
                let decoder = RowDecoder(row, table: "summary_bucket")
                let start: Int = try decoder.value(0, "start_day")
                let name: String = try decoder.value(1, "activity")
                rows[start, default: [:]][name] = try SummaryRows.totals(row, from: 2, id: "\(owner) \(period.rawValue) \(start) \(name)")
            }
            return rows
        }
    }

    /// The state of an owner's summaries: their calendar and zones, and a rebuild's progress.
    public func summaryState(owner: String) throws -> SummaryOwnerState? {
        try SummaryRows.readOwner(db, owner)
    }

    /// The one writer of a SQLite index is the coordinator asked: none to list.
    public func coordinators() -> [RunningCoordinator] { [] }

    /// The owners whose summaries wait for or are in a rebuild, with its progress.
    public func summaryRebuilds() throws -> [String: SummaryRebuild] {
        var result: [String: SummaryRebuild] = [:]
        for owner in try String.fetchAll(db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL") {
            if let progress = try SummaryRows.readOwner(db, owner)?.rebuild { result[owner] = progress }
        }
        return result
    }
}
