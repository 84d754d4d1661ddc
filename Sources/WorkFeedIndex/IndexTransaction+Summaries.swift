import Foundation
import GRDB
public import WorkFeedModel

// MARK: Summaries (docs/summaries.md)

extension IndexTransaction {
    /// Counts a workout in its owner's summaries as it is stored now, after taking out what it
    /// counted before (if anything): called in the transaction of every change to a workout
    /// (import, re-import, replacement), so that the summaries never differ from the feed.
    /// - Parameters:
    ///   - record: the workout as its row now holds it when the caller has it (an import); read
    ///     back otherwise.
    ///   - heartRate: the workout's heart-rate samples when the caller has them; read from its
    ///     stored series otherwise.
    mutating func recountSummary(of id: WorkoutID, as record: WorkoutRecord? = nil, heartRate: [HeartRateSample]? = nil) throws {
        guard countsSummaries else { return }
        try uncountSummary(of: id)
        try countSummary(of: id, as: record, heartRate: heartRate, fromRebuild: false)
    }

    /// Takes a workout out of its owner's buckets (before it is deleted or changed). Sums are
    /// subtracted; where the workout held an extreme (maximum heart rate, longest, fastest), the
    /// bucket's extremes are found again among its other workouts.
    mutating func uncountSummary(of id: WorkoutID) throws {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT owner, activity, local_day, \(SummaryRows.contributionColumns) FROM workout_summary WHERE workout_id = ?"),
                arguments: [id.description])
        else { return }
        let decoder = RowDecoder(row, table: "workout_summary")
        let owner: String = try decoder.value(0, "owner")
        let activityName: String = try decoder.value(1, "activity")
        let day: Int = try decoder.value(2, "local_day")
        let contribution = try SummaryRows.contribution(row, from: 3, table: "workout_summary", id: id.description)
        try db.cachedStatement(sql: "DELETE FROM workout_summary WHERE workout_id = ?").execute(arguments: [id.description])
        guard let state = try summaryOwner(owner) else { return }
        let calendar = try Self.calendar(state, owner: owner)
        let activity = ActivityType(rawValue: activityName)
        for period in SummaryPeriod.allCases {
            let start = calendar.bucketStart(period, containing: day)
            for bucketActivity in [activity, nil] {
                let key = bucketActivity?.rawValue ?? Self.allActivities
                guard var totals = try bucket(owner: owner, period: period, start: start, activity: key) else { continue }
                totals.subtract(contribution)
                if totals.count <= 0 {
                    deleteBucket(owner: owner, period: period, start: start, activity: key)
                    continue
                }
                if totals.holdsExtreme(contribution, id: id) {
                    totals.clearExtremes()
                    let end = calendar.bucketEnd(period, start: start)
                    for (other, otherActivity, figures) in try contributions(owner: owner, from: start, to: end)
                    where bucketActivity == nil || otherActivity == bucketActivity {
                        totals.considerExtremes(figures, id: other, activity: bucketActivity)
                    }
                }
                writeBucket(totals, owner: owner, period: period, start: start, activity: key)
            }
        }
    }

    /// Counts a stored workout in its owner's buckets, unless a rebuild of the owner's summaries
    /// will count it (it is waiting to start, or has not reached this workout yet). An undated
    /// workout belongs to no bucket.
    /// - Parameter given: the workout as its row holds it, when the caller has it; read back otherwise.
    /// - Returns: whether it was counted.
    @discardableResult
    mutating func countSummary(of id: WorkoutID, as given: WorkoutRecord?, heartRate: [HeartRateSample]?, fromRebuild: Bool) throws -> Bool {
        guard let record = try given ?? reader.workout(id), let start = record.start, start.timeIntervalSince1970.isFinite else { return false }
        var state = try summaryOwner(record.owner)
        if state == nil {
            state = try startSummaries(owner: record.owner)
        } else if !fromRebuild, try defaultZoneMoved(record, state: state!) {
            try scheduleSummaryRebuild(owner: record.owner)
            return false
        }
        guard let state else { return false }
        if !fromRebuild {
            if state.rebuildPending { return false }
            if let after = state.rebuildAfter, id.description > after { return false }
        }
        let samples = try heartRate ?? storedHeartRate(of: id)
        let contribution = SummaryContribution(record: record, heartRate: samples, zoneBounds: state.zoneBounds)
        let calendar = try Self.calendar(state, owner: record.owner)
        let day = calendar.day(of: start)
        try db.cachedStatement(
            sql:
                "INSERT INTO workout_summary (workout_id, owner, activity, local_day, \(SummaryRows.contributionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: StatementArguments(
                [id.description, record.owner, record.activity.rawValue, day] + SummaryRows.contributionValues(contribution)))
        for period in SummaryPeriod.allCases {
            let bucketStart = calendar.bucketStart(period, containing: day)
            for bucketActivity in [record.activity, nil] {
                let key = bucketActivity?.rawValue ?? Self.allActivities
                var totals = try bucket(owner: record.owner, period: period, start: bucketStart, activity: key) ?? SummaryTotals()
                totals.add(contribution, id: id, activity: bucketActivity)
                writeBucket(totals, owner: record.owner, period: period, start: bucketStart, activity: key)
            }
        }
        return true
    }

    /// The `activity` of a bucket that counts every activity.
    static let allActivities = "all"

    /// Whether an owner without a time zone of their own has a new latest workout in another zone
    /// than their summaries' (the default follows the latest workout: docs/summaries.md).
    private func defaultZoneMoved(_ record: WorkoutRecord, state: SummaryOwnerState) throws -> Bool {
        guard let zone = record.timeZone, zone != state.timeZone, !state.rebuildPending, TimeZone(identifier: zone) != nil,
            let start = record.start
        else { return false }
        guard try reader.ownerSettings(owner: record.owner).timeZone == nil else { return false }
        let later = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM workout WHERE owner = ? AND start_at > ? AND tz_name IS NOT NULL LIMIT 1"),
            arguments: [record.owner, start.timeIntervalSince1970])
        return later == nil
    }

    /// The first summaries of an owner: their calendar and zones as they are now, nothing counted.
    private mutating func startSummaries(owner: String) throws -> SummaryOwnerState {
        summaryOwners[owner] = nil
        let wanted = try SummaryRows.wanted(db, owner: owner, defaults: zoneDefaults)
        try db.execute(
            sql: """
                INSERT INTO summary_owner (owner, time_zone, first_weekday, zone_bounds, rebuild_pending) VALUES (?, ?, ?, ?, 0)
                ON CONFLICT (owner) DO UPDATE SET time_zone = excluded.time_zone, first_weekday = excluded.first_weekday,
                    zone_bounds = excluded.zone_bounds, rebuild_pending = 0, rebuild_after = NULL
                """,
            arguments: [owner, wanted.timeZone, wanted.firstWeekday.rawValue, SummaryRows.boundsText(wanted.bounds)])
        return SummaryOwnerState(
            timeZone: wanted.timeZone, firstWeekday: wanted.firstWeekday, zoneBounds: wanted.bounds, rebuildPending: false, rebuildAfter: nil,
            rebuildDone: 0, rebuildTotal: 0)
    }

    /// Marks an owner's summaries to be built again from nothing, in the background (their time
    /// zone, first weekday or zones changed). Counting goes on meanwhile for workouts the rebuild
    /// has passed.
    public mutating func scheduleSummaryRebuild(owner: String) throws {
        summaryOwners[owner] = nil
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM workout WHERE owner = ?", arguments: [owner]) ?? 0
        try db.execute(
            sql: """
                INSERT INTO summary_owner (owner, rebuild_pending, rebuild_total) VALUES (?, 1, ?)
                ON CONFLICT (owner) DO UPDATE SET rebuild_pending = 1, rebuild_total = excluded.rebuild_total
                """,
            arguments: [owner, total])
    }

    /// Schedules a rebuild for every owner whose summaries were counted with another calendar or
    /// other zones than their settings (and the configured zones) give now.
    /// - Parameter owners: the owners to look at; `nil` for all who have summaries.
    /// - Returns: the owners whose rebuild was scheduled.
    @discardableResult
    public mutating func checkSummaryCalendars(owners: [String]? = nil) throws -> [String] {
        let candidates = try owners ?? String.fetchAll(db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 0 ORDER BY owner")
        var scheduled: [String] = []
        for owner in candidates {
            guard let state = try SummaryRows.readOwner(db, owner), !state.rebuildPending else { continue }
            let wanted = try SummaryRows.wanted(db, owner: owner, defaults: zoneDefaults)
            if wanted.timeZone != state.timeZone || wanted.firstWeekday != state.firstWeekday || wanted.bounds != state.zoneBounds {
                try scheduleSummaryRebuild(owner: owner)
                scheduled.append(owner)
            }
        }
        return scheduled
    }

    /// Whether some owner's summaries wait for a rebuild or are in one.
    public func summaryRebuildsWaiting() throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT 1 FROM summary_owner WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL LIMIT 1") != nil
    }

    /// One step of the rebuilds: starts a waiting one (the owner's buckets and counts go, the
    /// calendar and zones are those of now), or counts up to `limit` more workouts of a running one.
    /// - Returns: the owner worked on and how far their rebuild is, or `nil` when none waits.
    public mutating func rebuildSummariesStep(limit: Int) throws -> (owner: String, progress: SummaryRebuild, finished: Bool)? {
        guard
            let owner = try String.fetchOne(
                db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL ORDER BY owner LIMIT 1")
        else { return nil }
        summaryOwners[owner] = nil
        var state = try SummaryRows.readOwner(db, owner)!
        if state.rebuildPending {
            summaryBuckets = summaryBuckets.filter { $0.key.owner != owner }
            try db.execute(sql: "DELETE FROM summary_bucket WHERE owner = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM workout_summary WHERE owner = ?", arguments: [owner])
            _ = try startSummaries(owner: owner)
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM workout WHERE owner = ?", arguments: [owner]) ?? 0
            try db.execute(
                sql: "UPDATE summary_owner SET rebuild_after = '', rebuild_done = 0, rebuild_total = ? WHERE owner = ?", arguments: [total, owner])
            state = try SummaryRows.readOwner(db, owner)!
        }
        let after = state.rebuildAfter ?? ""
        let ids = try String.fetchAll(
            db, sql: "SELECT id FROM workout WHERE owner = ? AND id > ? ORDER BY id LIMIT ?", arguments: [owner, after, limit])
        for text in ids {
            guard let id = WorkoutID(text) else { throw IndexError.corruptRow(table: "workout", row: text, column: "id", value: text) }
            try countSummary(of: id, as: nil, heartRate: nil, fromRebuild: true)
        }
        let done = state.rebuildDone + ids.count
        let finished = ids.count < limit
        try db.execute(
            sql: "UPDATE summary_owner SET rebuild_after = ?, rebuild_done = ? WHERE owner = ?",
            arguments: [finished ? nil : ids.last, done, owner])
        summaryOwners[owner] = nil
        return (owner, SummaryRebuild(done: done, total: max(done, state.rebuildTotal)), finished)
    }

    // MARK: Rows

    /// An owner's summary state (``SummaryRows/readOwner(_:_:)``), read once a transaction: each
    /// import of a batch needs it. Whatever writes `summary_owner` forgets it.
    private mutating func summaryOwner(_ owner: String) throws -> SummaryOwnerState? {
        if let known = summaryOwners[owner] { return known }
        let state = try SummaryRows.readOwner(db, owner)
        summaryOwners[owner] = state
        return state
    }

    static func calendar(_ state: SummaryOwnerState, owner: String) throws(IndexError) -> SummaryCalendar {
        guard let calendar = SummaryCalendar.shared(timeZone: state.timeZone, firstWeekday: state.firstWeekday) else {
            throw IndexError.corruptRow(
                table: "summary_owner", row: owner, column: "time_zone", value: "'\(state.timeZone)', a zone this system does not know")
        }
        return calendar
    }

    private func storedHeartRate(of id: WorkoutID) throws -> [HeartRateSample] {
        guard let blob = try Data.fetchOne(db.cachedStatement(sql: "SELECT heart_rate FROM series WHERE workout_id = ?"), arguments: [id.description])
        else { return [] }
        do {
            return try SeriesCodec.decodeHeartRate(blob)
        } catch {
            throw IndexError.corruptRow(
                table: "series", row: id.description, column: "heart_rate", value: "a blob of \(blob.count) bytes that is not a heart-rate series")
        }
    }

    private func bucket(owner: String, period: SummaryPeriod, start: Int, activity: String) throws -> SummaryTotals? {
        if let changed = summaryBuckets[SummaryBucketKey(owner: owner, period: period, start: start, activity: activity)] {
            return changed.count > 0 ? changed : nil
        }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(SummaryRows.bucketColumns) FROM summary_bucket WHERE owner = ? AND period = ? AND start_day = ? AND activity = ?"),
                arguments: [owner, period.rawValue, start, activity])
        else { return nil }
        return try SummaryRows.totals(row, from: 0, id: "\(owner) \(period.rawValue) \(start) \(activity)")
    }

    private mutating func writeBucket(_ totals: SummaryTotals, owner: String, period: SummaryPeriod, start: Int, activity: String) {
        summaryBuckets[SummaryBucketKey(owner: owner, period: period, start: start, activity: activity)] = totals
    }

    private mutating func deleteBucket(owner: String, period: SummaryPeriod, start: Int, activity: String) {
        summaryBuckets[SummaryBucketKey(owner: owner, period: period, start: start, activity: activity)] = SummaryTotals()
    }

    /// Writes the buckets this transaction changed (``summaryBuckets``); called once, before it commits.
    mutating func flushSummaryBuckets() throws {
        for (key, totals) in summaryBuckets {
            if totals.count > 0 {
                try db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO summary_bucket (owner, period, start_day, activity, \(SummaryRows.bucketColumns))
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                )
                .execute(arguments: StatementArguments([key.owner, key.period.rawValue, key.start, key.activity] + SummaryRows.totalsValues(totals)))
            } else {
                try db.cachedStatement(sql: "DELETE FROM summary_bucket WHERE owner = ? AND period = ? AND start_day = ? AND activity = ?")
                    .execute(arguments: [key.owner, key.period.rawValue, key.start, key.activity])
            }
        }
        summaryBuckets = [:]
    }

    /// The counted workouts of an owner that started on local days `from..<to`.
    private func contributions(owner: String, from: Int, to: Int) throws -> [(WorkoutID, ActivityType?, SummaryContribution)] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT workout_id, activity, \(SummaryRows.contributionColumns) FROM workout_summary
                    WHERE owner = ? AND local_day >= ? AND local_day < ?
                    """), arguments: [owner, from, to]
        ).map { row in
            let text: String = try RowDecoder(row, table: "workout_summary").value(0, "workout_id")
            guard let id = WorkoutID(text) else {
                throw IndexError.corruptRow(table: "workout_summary", row: text, column: "workout_id", value: text)
            }
            let activity: String = try RowDecoder(row, table: "workout_summary").value(1, "activity")
            return (id, ActivityType(rawValue: activity), try SummaryRows.contribution(row, from: 2, table: "workout_summary", id: text))
        }
    }
}

/// A summary bucket's key: whose, which period, its first local day, and its activity (`all`).
struct SummaryBucketKey: Hashable {
    var owner: String
    var period: SummaryPeriod
    var start: Int
    var activity: String
}
