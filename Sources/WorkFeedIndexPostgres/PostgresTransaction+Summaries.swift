public import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

// MARK: Summaries (docs/summaries.md): PostgreSQL's rows of them (the rules: SummaryKeeping.swift)

extension PostgresTransaction: SummaryStorage {
    public func summaryWorkout(_ id: WorkoutID) throws -> WorkoutRecord? {
        try PostgresWorkouts.record(id, in: session)
    }

    public func summarySettings(owner: String) throws -> OwnerSettings {
        try PostgresWorkouts.settings(owner: owner, in: session)
    }

    public func summaryWorkoutCount(owner: String) throws -> Int {
        try PostgresWorkouts.count(owner: owner, in: session)
    }

    public func summaryOwnerRow(_ owner: String) throws -> SummaryOwnerState? {
        try session.query(
            "SELECT \(unescaped: SummaryRows.ownerColumns) FROM summary_owner WHERE owner = \(owner)", "reading the summaries of \(owner)"
        ).firstDecoded("the summaries of \(owner)") { row in
            try SummaryRows.ownerState(row.storedValues(names: Self.names(SummaryRows.ownerColumns)), owner: owner)
        } ?? nil
    }

    public func summaryBucketRow(_ key: SummaryBucketKey) throws -> SummaryTotals? {
        let id = "\(key.owner) \(key.period.rawValue) \(key.start) \(key.activity)"
        return try session.query(
            """
            SELECT \(unescaped: SummaryRows.bucketColumns) FROM summary_bucket
            WHERE owner = \(key.owner) AND period = \(key.period.rawValue) AND start_day = \(key.start) AND activity = \(key.activity)
            """, "reading the summary bucket \(id)"
        ).firstDecoded("the summary bucket \(id)") { row in
            try SummaryRows.totals(row.storedValues(names: Self.names(SummaryRows.bucketColumns)), id: id)
        }
    }

    public func countedWorkout(_ id: WorkoutID) throws -> CountedWorkout? {
        try session.query(
            """
            SELECT owner, activity, local_day, \(unescaped: SummaryRows.contributionColumns) FROM workout_summary WHERE workout_id = \(id.uuid)
            """, "reading how workout \(id) is counted"
        ).firstDecoded("how workout \(id) is counted") { row in
            let cells = row.makeRandomAccess()
            return CountedWorkout(
                owner: try cells[0].decode(String.self), activity: try cells[1].decode(String.self), day: try cells[2].decode(Int.self),
                contribution: try SummaryRows.contribution(
                    row.storedValues(from: 3, names: Self.names(SummaryRows.contributionColumns)), table: "workout_summary", id: id.description))
        }
    }

    public mutating func setCountedWorkout(_ id: WorkoutID, _ counted: CountedWorkout?) throws {
        guard let counted else {
            try session.query("DELETE FROM workout_summary WHERE workout_id = \(id.uuid)", "uncounting workout \(id)")
            return
        }
        var bindings = PostgresBindings()
        bindings.append(id.uuid)
        bindings.append(counted.owner)
        bindings.append(counted.activity)
        bindings.append(counted.day)
        for value in SummaryRows.storedValues(counted.contribution) { value.bind(into: &bindings) }
        let columns = "workout_id, owner, activity, local_day, " + SummaryRows.contributionColumns
        try session.query(
            PostgresQuery(
                unsafeSQL: "INSERT INTO workout_summary (\(columns)) VALUES (\(Self.placeholders(bindings.count)))", binds: bindings),
            "counting workout \(id)")
    }

    public func countedWorkouts(
        owner: String, days: Range<Int>
    ) throws -> [(id: WorkoutID, activity: ActivityType?, contribution: SummaryContribution)] {
        try session.query(
            """
            SELECT workout_id, activity, \(unescaped: SummaryRows.contributionColumns) FROM workout_summary
            WHERE owner = \(owner) AND local_day >= \(days.lowerBound) AND local_day < \(days.upperBound)
            """, "reading the counted workouts of \(owner)"
        ).decoded("the counted workouts of \(owner)") { row in
            let cells = row.makeRandomAccess()
            let id = WorkoutID(try cells[0].decode(UUID.self))
            let contribution = try SummaryRows.contribution(
                row.storedValues(from: 2, names: Self.names(SummaryRows.contributionColumns)), table: "workout_summary", id: id.description)
            return (id, ActivityType(rawValue: try cells[1].decode(String.self)), contribution)
        }
    }

    public func hasZonedWorkout(owner: String, after start: Date) throws -> Bool {
        try session.query(
            "SELECT 1 FROM workout WHERE owner = \(owner) AND start_at > \(start.timeIntervalSince1970) AND tz_name IS NOT NULL LIMIT 1",
            "looking for a later workout of \(owner)"
        ).contains { _ in true }
    }

    public func latestTimeZone(owner: String) throws -> String? {
        try session.query(
            """
            SELECT tz_name FROM workout WHERE owner = \(owner) AND start_at IS NOT NULL AND tz_name IS NOT NULL ORDER BY start_at DESC LIMIT 1
            """, "reading the time zone of the latest workout of \(owner)"
        ).firstDecoded("the time zone of the latest workout of \(owner)") { try $0.decode(String.self) }
    }

    public func storedHeartRate(of id: WorkoutID) throws -> [HeartRateSample] {
        guard
            let blob = try session.query("SELECT heart_rate FROM series WHERE workout_id = \(id.uuid)", "reading the heart rate of workout \(id)")
                .firstDecoded("the heart rate of workout \(id)", { try $0.decode(ByteBuffer.self) })
        else { return [] }
        do {
            return try SeriesCodec.decodeHeartRate(Data(blob.readableBytesView))
        } catch {
            throw IndexError.corruptRow(
                table: "series", row: id.description, column: "heart_rate",
                value: "a blob of \(blob.readableBytes) bytes that is not a heart-rate series")
        }
    }

    public mutating func startSummaryOwnerRow(_ owner: String, timeZone: String, firstWeekday: Weekday, bounds: [Double]) throws {
        try session.query(
            """
            INSERT INTO summary_owner (owner, time_zone, first_weekday, zone_bounds, rebuild_pending)
            VALUES (\(owner), \(timeZone), \(firstWeekday.rawValue), \(SummaryRows.boundsText(bounds)), false)
            ON CONFLICT (owner) DO UPDATE SET time_zone = excluded.time_zone, first_weekday = excluded.first_weekday,
                zone_bounds = excluded.zone_bounds, rebuild_pending = false, rebuild_after = NULL
            """, "starting the summaries of \(owner)")
    }

    public mutating func markSummaryRebuild(owner: String, total: Int) throws {
        try session.query(
            """
            INSERT INTO summary_owner (owner, rebuild_pending, rebuild_total) VALUES (\(owner), true, \(total))
            ON CONFLICT (owner) DO UPDATE SET rebuild_pending = true, rebuild_total = excluded.rebuild_total
            """, "scheduling a rebuild of the summaries of \(owner)")
    }

    public func summaryOwnersNotWaiting() throws -> [String] {
        try session.query("SELECT owner FROM summary_owner WHERE NOT rebuild_pending ORDER BY owner", "listing the owners with summaries")
            .decoded("the owners with summaries") { try $0.decode(String.self) }
    }

    public func firstRebuildingOwner(after owner: String?) throws -> String? {
        // Those after `owner` first (false sorts before true), then from the first.
        try session.query(
            "SELECT owner FROM summary_owner WHERE rebuild_pending OR rebuild_after IS NOT NULL ORDER BY owner <= \(owner ?? ""), owner LIMIT 1",
            "looking for a summary rebuild"
        ).firstDecoded("the summary rebuilds") { try $0.decode(String.self) }
    }

    /// The owner's advisory lock, which imports, deletes and settings take too.
    public mutating func lockSummaries(owner: String) throws { try lockOwner(owner) }

    /// Only under this writer's current term, held `FOR SHARE` to the end of the transaction.
    public mutating func fencePeriodicWork() throws -> Bool {
        guard let term = leadership.term else { return false }
        guard try PostgresLeader.holds(term, in: session) else {
            leadership.term = nil
            return false
        }
        return true
    }

    public mutating func removeSummaries(owner: String) throws {
        try session.query("DELETE FROM summary_bucket WHERE owner = \(owner)", "removing the summary buckets of \(owner)")
        try session.query("DELETE FROM workout_summary WHERE owner = \(owner)", "removing the counted workouts of \(owner)")
    }

    public mutating func setRebuildProgress(owner: String, after: String?, done: Int, total: Int?) throws {
        try session.query(
            """
            UPDATE summary_owner SET rebuild_after = \(after), rebuild_done = \(done), rebuild_total = coalesce(\(total), rebuild_total)
            WHERE owner = \(owner)
            """, "recording the rebuild of the summaries of \(owner)")
    }

    public func workoutIDs(owner: String, after: String, limit: Int) throws -> [WorkoutID] {
        let rows =
            if let from = WorkoutID(after) {
                try session.query(
                    "SELECT id FROM workout WHERE owner = \(owner) AND id > \(from.uuid) ORDER BY id LIMIT \(limit)",
                    "listing the workouts of \(owner)")
            } else {
                try session.query("SELECT id FROM workout WHERE owner = \(owner) ORDER BY id LIMIT \(limit)", "listing the workouts of \(owner)")
            }
        return try rows.decoded("the workouts of \(owner)") { WorkoutID(try $0.decode(UUID.self)) }
    }

    /// Writes the buckets this transaction changed, in key order (two transactions never wait
    /// for each other's buckets in opposite orders; an owner's are written under its lock anyway).
    mutating func flushSummaryBuckets() throws(IndexError) {
        let changed = summaryWork.takeBuckets().sorted {
            ($0.key.owner, $0.key.period.rawValue, $0.key.start, $0.key.activity) < (
                $1.key.owner, $1.key.period.rawValue, $1.key.start, $1.key.activity
            )
        }
        for (key, totals) in changed {
            if totals.count > 0 {
                var bindings = PostgresBindings()
                bindings.append(key.owner)
                bindings.append(key.period.rawValue)
                bindings.append(key.start)
                bindings.append(key.activity)
                for value in SummaryRows.storedValues(totals) { value.bind(into: &bindings) }
                let names = Self.names(SummaryRows.bucketColumns)
                try session.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO summary_bucket (owner, period, start_day, activity, \(SummaryRows.bucketColumns))
                            VALUES (\(Self.placeholders(["owner", "period", "start_day", "activity"] + names)))
                            ON CONFLICT (owner, period, start_day, activity) DO UPDATE SET
                                \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                            """, binds: bindings), "writing the summary bucket \(key.owner) \(key.period.rawValue) \(key.start) \(key.activity)")
            } else {
                try session.query(
                    """
                    DELETE FROM summary_bucket
                    WHERE owner = \(key.owner) AND period = \(key.period.rawValue) AND start_day = \(key.start) AND activity = \(key.activity)
                    """, "removing the summary bucket \(key.owner) \(key.period.rawValue) \(key.start) \(key.activity)")
            }
        }
    }

    /// The names of a list of columns.
    static func names(_ columns: String) -> [String] {
        columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// `$1, $2, …, $count`.
    static func placeholders(_ count: Int) -> String {
        (1...count).map { "$\($0)" }.joined(separator: ", ")
    }

    /// `$1, $2, …` for these columns, a bucket's extremes' ids cast to uuid (they are bound as
    /// the text every backend's values hold).
    static func placeholders(_ names: [String]) -> String {
        names.enumerated().map { ["longest_id", "fastest_id"].contains($0.element) ? "$\($0.offset + 1)::uuid" : "$\($0.offset + 1)" }
            .joined(separator: ", ")
    }
}

// MARK: Owner settings (docs/settings.md)

extension PostgresTransaction {
    /// Replaces an owner's settings, checked first, as ``IndexWriting/setOwnerSettings(_:owner:now:)``
    /// does; empty settings remove the owner's. A change of heart-rate zones (which heatmaps' keys
    /// hash) raises the owner's policy version first (``PostgresPrivacy/raisePolicyVersion(owner:in:)``),
    /// so that a report checked against the old zones cannot commit after it; a new time zone,
    /// first weekday or zones schedules a rebuild of the owner's summaries.
    /// - Throws: ``SettingsError`` for a value out of range (nothing is stored), ``IndexError``.
    public mutating func setOwnerSettings(_ settings: OwnerSettings, owner: String) throws {
        try settings.validate()
        guard !settings.isEmpty else {
            _ = try removeOwnerSettings(owner: owner)
            return
        }
        try lockOwner(owner)
        if try PostgresWorkouts.settings(owner: owner, in: session).heartRateZones != settings.heartRateZones {
            _ = try PostgresPrivacy.raisePolicyVersion(owner: owner, in: session)
        }
        var bindings = PostgresBindings()
        bindings.append(owner)
        for value in IndexReader.storedValues(settings) { value.bind(into: &bindings) }
        try session.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO owner_settings (owner, \(IndexReader.writtenSettingsColumns), updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, now())
                    ON CONFLICT (owner) DO UPDATE SET hr_maximum = excluded.hr_maximum, hr_bounds = excluded.hr_bounds,
                        units = excluded.units, time_zone = excluded.time_zone, first_weekday = excluded.first_weekday,
                        card_figures = excluded.card_figures, updated_at = excluded.updated_at
                    """, binds: bindings), "storing the settings of \(owner)")
        try checkSummaryCalendars(owners: [owner])
    }

    /// Removes an owner's settings (the owner is leaving); whether there were any.
    public mutating func removeOwnerSettings(owner: String) throws -> Bool {
        try lockOwner(owner)
        let removed = try session.query(
            "DELETE FROM owner_settings WHERE owner = \(owner) RETURNING hr_maximum IS NOT NULL OR hr_bounds IS NOT NULL",
            "removing the settings of \(owner)"
        ).firstDecoded("the removed settings of \(owner)") { try $0.decode(Bool.self) }
        if removed == true { _ = try PostgresPrivacy.raisePolicyVersion(owner: owner, in: session) }
        try checkSummaryCalendars(owners: [owner])
        return removed != nil
    }
}
