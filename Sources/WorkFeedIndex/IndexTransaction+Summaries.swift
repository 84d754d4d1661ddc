public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Summaries (docs/summaries.md): SQLite's rows of them (the rules: SummaryKeeping.swift)

extension IndexTransaction: SummaryStorage {
    public var summaryZoneDefaults: SummaryZoneDefaults { zoneDefaults }

    public func summaryWorkout(_ id: WorkoutID) throws -> WorkoutRecord? { try reader.workout(id) }

    public func summarySettings(owner: String) throws -> OwnerSettings { try reader.ownerSettings(owner: owner) }

    public func summaryWorkoutCount(owner: String) throws -> Int { try reader.workoutCount(owner: owner) }

    public func summaryOwnerRow(_ owner: String) throws -> SummaryOwnerState? {
        try SummaryRows.readOwner(db, owner)
    }

    public func summaryBucketRow(_ key: SummaryBucketKey) throws -> SummaryTotals? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(SummaryRows.bucketColumns) FROM summary_bucket WHERE owner = ? AND period = ? AND start_day = ? AND activity = ?"),
                arguments: [key.owner, key.period.rawValue, key.start, key.activity])
        else { return nil }
        return try SummaryRows.totals(row, from: 0, id: "\(key.owner) \(key.period.rawValue) \(key.start) \(key.activity)")
    }

    public func countedWorkout(_ id: WorkoutID) throws -> CountedWorkout? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT owner, activity, local_day, \(SummaryRows.contributionColumns) FROM workout_summary WHERE workout_id = ?"),
                arguments: [id.description])
        else { return nil }
        let decoder = RowDecoder(row, table: "workout_summary")
        return CountedWorkout(
            owner: try decoder.value(0, "owner"), activity: try decoder.value(1, "activity"), day: try decoder.value(2, "local_day"),
            contribution: try SummaryRows.contribution(row, from: 3, table: "workout_summary", id: id.description))
    }

    public mutating func setCountedWorkout(_ id: WorkoutID, _ counted: CountedWorkout?) throws {
        guard let counted else {
            try db.cachedStatement(sql: "DELETE FROM workout_summary WHERE workout_id = ?").execute(arguments: [id.description])
            return
        }
        try db.cachedStatement(
            sql:
                "INSERT INTO workout_summary (workout_id, owner, activity, local_day, \(SummaryRows.contributionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: StatementArguments(
                [id.description, counted.owner, counted.activity, counted.day] + SummaryRows.contributionValues(counted.contribution)))
    }

    public func countedWorkouts(
        owner: String, days: Range<Int>
    ) throws -> [(id: WorkoutID, activity: ActivityType?, contribution: SummaryContribution)] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT workout_id, activity, \(SummaryRows.contributionColumns) FROM workout_summary
                    WHERE owner = ? AND local_day >= ? AND local_day < ?
                    """), arguments: [owner, days.lowerBound, days.upperBound]
        ).map { row in
            let text: String = try RowDecoder(row, table: "workout_summary").value(0, "workout_id")
            guard let id = WorkoutID(text) else {
                throw IndexError.corruptRow(table: "workout_summary", row: text, column: "workout_id", value: text)
            }
            let activity: String = try RowDecoder(row, table: "workout_summary").value(1, "activity")
            return (id, ActivityType(rawValue: activity), try SummaryRows.contribution(row, from: 2, table: "workout_summary", id: text))
        }
    }

    public func hasZonedWorkout(owner: String, after start: Date) throws -> Bool {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM workout WHERE owner = ? AND start_at > ? AND tz_name IS NOT NULL LIMIT 1"),
            arguments: [owner, start.timeIntervalSince1970]) != nil
    }

    public func latestTimeZone(owner: String) throws -> String? {
        try SummaryRows.latestZone(db, owner: owner)
    }

    public func storedHeartRate(of id: WorkoutID) throws -> [HeartRateSample] {
        guard let blob = try Data.fetchOne(db.cachedStatement(sql: "SELECT heart_rate FROM series WHERE workout_id = ?"), arguments: [id.description])
        else { return [] }
        do {
            return try SeriesCodec.decodeHeartRate(blob)
        } catch {
            throw IndexError.corruptRow(
                table: "series", row: id.description, column: "heart_rate", value: "a blob of \(blob.count) bytes that is not a heart-rate series")
        }
    }

    public mutating func startSummaryOwnerRow(_ owner: String, timeZone: String, firstWeekday: Weekday, bounds: [Double]) throws {
        try db.execute(
            sql: """
                INSERT INTO summary_owner (owner, time_zone, first_weekday, zone_bounds, rebuild_pending) VALUES (?, ?, ?, ?, 0)
                ON CONFLICT (owner) DO UPDATE SET time_zone = excluded.time_zone, first_weekday = excluded.first_weekday,
                    zone_bounds = excluded.zone_bounds, rebuild_pending = 0, rebuild_after = NULL
                """,
            arguments: [owner, timeZone, firstWeekday.rawValue, SummaryRows.boundsText(bounds)])
    }

    public mutating func markSummaryRebuild(owner: String, total: Int) throws {
        try db.execute(
            sql: """
                INSERT INTO summary_owner (owner, rebuild_pending, rebuild_total) VALUES (?, 1, ?)
                ON CONFLICT (owner) DO UPDATE SET rebuild_pending = 1, rebuild_total = excluded.rebuild_total
                """,
            arguments: [owner, total])
    }

    public func summaryOwnersNotWaiting() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 0 ORDER BY owner")
    }

    public func firstRebuildingOwner(after owner: String?) throws -> String? {
        // Those after `owner` first (false sorts before true), then from the first.
        try String.fetchOne(
            db, sql: "SELECT owner FROM summary_owner WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL ORDER BY owner <= ?, owner LIMIT 1",
            arguments: [owner ?? ""])
    }

    /// Whether some owner's summaries wait for a rebuild or are in one.
    public func summaryRebuildsWaiting() throws -> Bool {
        try firstRebuildingOwner(after: nil) != nil
    }

    public mutating func removeSummaries(owner: String) throws {
        try db.execute(sql: "DELETE FROM summary_bucket WHERE owner = ?", arguments: [owner])
        try db.execute(sql: "DELETE FROM workout_summary WHERE owner = ?", arguments: [owner])
    }

    public mutating func setRebuildProgress(owner: String, after: String?, done: Int, total: Int?) throws {
        try db.execute(
            sql: "UPDATE summary_owner SET rebuild_after = ?, rebuild_done = ?, rebuild_total = coalesce(?, rebuild_total) WHERE owner = ?",
            arguments: [after, done, total, owner])
    }

    public func workoutIDs(owner: String, after: String, limit: Int) throws -> [WorkoutID] {
        try String.fetchAll(
            db, sql: "SELECT id FROM workout WHERE owner = ? AND id > ? ORDER BY id LIMIT ?", arguments: [owner, after, limit]
        ).map { text in
            guard let id = WorkoutID(text) else { throw IndexError.corruptRow(table: "workout", row: text, column: "id", value: text) }
            return id
        }
    }

    /// One writer: nothing to lock.
    public mutating func lockSummaries(owner: String) {}

    /// The one writer does all periodic work.
    public mutating func fencePeriodicWork() -> Bool { true }

    /// Writes the buckets this transaction changed (``SummaryWork``); called once, before it commits.
    mutating func flushSummaryBuckets() throws {
        for (key, totals) in summaryWork.takeBuckets() {
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
    }
}
