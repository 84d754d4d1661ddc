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
        let state: SummaryOwnerState
        if let stored = try SummaryRows.readOwner(db, owner), !stored.zoneBounds.isEmpty || !stored.rebuildPending {
            state = stored
        } else {
            let wanted = try SummaryRows.wanted(db, owner: owner, defaults: defaults)
            state = SummaryOwnerState(
                timeZone: wanted.timeZone, firstWeekday: wanted.firstWeekday, zoneBounds: wanted.bounds, rebuildPending: false, rebuildAfter: nil,
                rebuildDone: 0, rebuildTotal: 0)
        }
        let pending = try SummaryRows.readOwner(db, owner)?.rebuild
        let calendar = try IndexTransaction.calendar(state, owner: owner)
        // Without `to`: today, but never before `from` nor more than ten years after it.
        var last = to ?? calendar.day(of: now)
        if to == nil, let from { last = min(max(last, from), from + SummaryPeriod.maximumRangeDays) }
        var first = from ?? calendar.bucketStart(period, containing: last)
        if from == nil {
            // Twelve buckets, as far as ten years go (ten years of years).
            for _ in 0..<11 {
                let previous = calendar.bucketStart(period, containing: first - 1)
                guard last - previous <= SummaryPeriod.maximumRangeDays else { break }
                first = previous
            }
        }
        try SummaryRangeError.check(from: first, to: last)
        let firstStart = calendar.bucketStart(period, containing: first)
        let lastStart = calendar.bucketStart(period, containing: last)
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
        let zones = state.zoneBounds.count + 1
        var buckets: [SummaryBucket] = []
        var start = firstStart
        while start <= lastStart {
            let end = calendar.bucketEnd(period, start: start)
            let found = rows[start] ?? [:]
            var activities: [String: SummaryFigures] = [:]
            for (name, totals) in found where name != SummaryBucketKey.allActivities { activities[name] = totals.figures }
            let total = activity.map { activities[$0.rawValue] } ?? found[SummaryBucketKey.allActivities]?.figures
            buckets.append(
                SummaryBucket(
                    start: calendar.localText(calendar.startInstant(ofDay: start)), end: calendar.localText(calendar.startInstant(ofDay: end)),
                    total: total ?? .empty(zones: zones), activities: activities))
            start = end
        }
        return SummaryReport(
            period: period, timeZone: state.timeZone, firstWeekday: state.firstWeekday, heartRateZones: state.zoneBounds,
            anchor: try currentAnchor(), rebuilding: pending, buckets: buckets)
    }

    /// The state of an owner's summaries: their calendar and zones, and a rebuild's progress.
    public func summaryState(owner: String) throws -> SummaryOwnerState? {
        try SummaryRows.readOwner(db, owner)
    }

    /// The owners whose summaries wait for or are in a rebuild, with its progress.
    public func summaryRebuilds() throws -> [String: SummaryRebuild] {
        var result: [String: SummaryRebuild] = [:]
        for owner in try String.fetchAll(db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL") {
            if let progress = try SummaryRows.readOwner(db, owner)?.rebuild { result[owner] = progress }
        }
        return result
    }
}
