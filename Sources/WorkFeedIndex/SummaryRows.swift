import Foundation
import GRDB
public import WorkFeedModel
import WorkFeedStyle

/// The heart-rate zones owners get when they set none (the coordinator's `heatmap.thresholds`
/// and `heatmap.max_hr_percentages`), which the index needs to count time in zones.
public struct SummaryZoneDefaults: Sendable, Hashable {
    public var thresholds: [Double]
    public var percentages: [Double]

    public init(thresholds: [Double], percentages: [Double]) {
        self.thresholds = thresholds
        self.percentages = percentages
    }

    /// The standard heatmap style's zones.
    public static let standard = SummaryZoneDefaults(
        thresholds: HeatmapStyle.standard.thresholds,
        percentages: HeartRateZoneBounds.defaultPercentages(boundCount: HeatmapStyle.standard.thresholds.count) ?? [])

    /// An owner's zones from their setting.
    public func bounds(_ setting: HeartRateZoneSetting?) -> [Double] {
        HeartRateZoneBounds.resolve(setting, configured: thresholds, percentages: percentages).bounds
    }
}

/// The calendar and zones an owner's summaries are counted with (`summary_owner`).
public struct SummaryOwnerState: Sendable, Hashable {
    public var timeZone: String
    public var firstWeekday: Weekday
    public var zoneBounds: [Double]
    /// Whether the summaries must be built again from nothing (not started yet).
    public var rebuildPending: Bool
    /// While a rebuild runs: the last workout id counted ('' before the first).
    public var rebuildAfter: String?
    public var rebuildDone: Int
    public var rebuildTotal: Int

    /// The rebuild's progress, while one is waiting or running.
    public var rebuild: SummaryRebuild? {
        rebuildPending || rebuildAfter != nil ? SummaryRebuild(done: rebuildPending ? 0 : rebuildDone, total: rebuildTotal) : nil
    }
}

/// Reading and writing the summary tables' rows (WorkoutIndex+SummarySchema.swift), of every
/// backend: another backend's rows are read as ``StoredValue``s.
public enum SummaryRows {
    public static let contributionColumns = "distance, moving, elapsed, climb, calories, hr_time, hr_weighted, hr_max, zones"

    public static func zonesText(_ zones: [Int64]) -> String { zones.map(String.init).joined(separator: ",") }

    static func zones(_ text: String, table: String, row: String) throws(IndexError) -> [Int64] {
        guard !text.isEmpty else { return [] }
        var zones: [Int64] = []
        for part in text.split(separator: ",") {
            guard let value = Int64(part) else {
                throw IndexError.corruptRow(table: table, row: row, column: "zones", value: "'\(text.prefix(80))', not whole milliseconds")
            }
            zones.append(value)
        }
        return zones
    }

    /// A contribution from `row`'s ``contributionColumns`` starting at `from`.
    static func contribution(_ row: some StoredRow, from: Int, table: String, id: String) throws(IndexError) -> SummaryContribution {
        let decoder = RowDecoder(row, table: table)
        return SummaryContribution(
            distance: try decoder.value(from, "distance"), movingTime: try decoder.value(from + 1, "moving"),
            elapsedTime: try decoder.value(from + 2, "elapsed"), climb: try decoder.value(from + 3, "climb"),
            calories: try decoder.value(from + 4, "calories"), heartRateTime: try decoder.value(from + 5, "hr_time"),
            heartRateWeighted: try decoder.value(from + 6, "hr_weighted"), heartRateMax: try decoder.optionalValue(from + 7, "hr_max"),
            zoneTimes: try zones(try decoder.value(from + 8, "zones"), table: table, row: id))
    }

    static func contributionValues(_ c: SummaryContribution) -> [(any DatabaseValueConvertible)?] {
        storedValues(c).map(\.databaseValue)
    }

    /// A contribution's values in the order of ``contributionColumns``.
    public static func storedValues(_ c: SummaryContribution) -> [StoredValue] {
        [
            .integer(c.distance), .integer(c.movingTime), .integer(c.elapsedTime), .integer(c.climb), .integer(c.calories),
            .integer(c.heartRateTime), .integer(c.heartRateWeighted), c.heartRateMax.map(StoredValue.real) ?? .null, .text(zonesText(c.zoneTimes)),
        ]
    }

    /// The bucket columns after the key: count, the sums, then the extremes.
    public static let bucketColumns =
        "count, \(contributionColumns), longest_id, longest_distance, longest_moving, fastest_id, fastest_distance, fastest_moving"

    static func totals(_ row: some StoredRow, from: Int, id: String) throws(IndexError) -> SummaryTotals {
        let decoder = RowDecoder(row, table: "summary_bucket")
        var totals = SummaryTotals()
        totals.count = try decoder.value(from, "count")
        totals.sums = try contribution(row, from: from + 1, table: "summary_bucket", id: id)
        func extreme(_ at: Int, _ name: String) throws(IndexError) -> SummaryTotals.Extreme? {
            guard let text: String = try decoder.optionalValue(at, name + "_id") else { return nil }
            guard let workout = WorkoutID(text) else {
                throw IndexError.corruptRow(table: "summary_bucket", row: id, column: name + "_id", value: "'\(text.prefix(80))', not a workout id")
            }
            return SummaryTotals.Extreme(
                id: workout, distance: try decoder.value(at + 1, name + "_distance"), movingTime: try decoder.value(at + 2, name + "_moving"))
        }
        totals.longest = try extreme(from + 10, "longest")
        totals.fastest = try extreme(from + 13, "fastest")
        return totals
    }

    static func totalsValues(_ t: SummaryTotals) -> [(any DatabaseValueConvertible)?] {
        storedValues(t).map(\.databaseValue)
    }

    /// A bucket's values in the order of ``bucketColumns``.
    public static func storedValues(_ t: SummaryTotals) -> [StoredValue] {
        func extreme(_ e: SummaryTotals.Extreme?) -> [StoredValue] {
            guard let e else { return [.null, .null, .null] }
            return [.text(e.id.description), .integer(e.distance), .integer(e.movingTime)]
        }
        return [.integer(t.count)] + storedValues(t.sums) + extreme(t.longest) + extreme(t.fastest)
    }

    /// A bucket from values in the order of ``bucketColumns``; `id` names it in errors.
    public static func totals(_ values: [StoredValue], id: String) throws(IndexError) -> SummaryTotals {
        try totals(StoredValues(values: values), from: 0, id: id)
    }

    /// A contribution from values in the order of ``contributionColumns``.
    public static func contribution(_ values: [StoredValue], table: String, id: String) throws(IndexError) -> SummaryContribution {
        try contribution(StoredValues(values: values), from: 0, table: table, id: id)
    }

    /// An owner's state from values in the order of ``ownerColumns``.
    public static func ownerState(_ values: [StoredValue], owner: String) throws(IndexError) -> SummaryOwnerState? {
        try ownerState(StoredValues(values: values), owner: owner)
    }

    static func ownerState(_ row: some StoredRow, owner: String) throws(IndexError) -> SummaryOwnerState? {
        let decoder = RowDecoder(row, table: "summary_owner")
        let pending: Bool = try decoder.value(3, "rebuild_pending")
        guard let zone: String = try decoder.optionalValue(0, "time_zone"), let day: Int = try decoder.optionalValue(1, "first_weekday"),
            let bounds: String = try decoder.optionalValue(2, "zone_bounds")
        else {
            // Never built: only a pending rebuild knows the owner.
            return SummaryOwnerState(
                timeZone: "UTC", firstWeekday: .monday, zoneBounds: [], rebuildPending: true, rebuildAfter: nil, rebuildDone: 0,
                rebuildTotal: try decoder.value(6, "rebuild_total"))
        }
        guard let weekday = Weekday(rawValue: day) else {
            throw IndexError.corruptRow(table: "summary_owner", row: owner, column: "first_weekday", value: "\(day), not 1...7")
        }
        let parsed = bounds.isEmpty ? [] : bounds.split(separator: ",").compactMap { Double($0) }
        return SummaryOwnerState(
            timeZone: zone, firstWeekday: weekday, zoneBounds: parsed, rebuildPending: pending,
            rebuildAfter: try decoder.optionalValue(4, "rebuild_after"),
            rebuildDone: try decoder.value(5, "rebuild_done"), rebuildTotal: try decoder.value(6, "rebuild_total"))
    }

    public static let ownerColumns = "time_zone, first_weekday, zone_bounds, rebuild_pending, rebuild_after, rebuild_done, rebuild_total"

    public static func boundsText(_ bounds: [Double]) -> String { bounds.map { String($0) }.joined(separator: ",") }

    static func readOwner(_ db: Database, _ owner: String) throws -> SummaryOwnerState? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(ownerColumns) FROM summary_owner WHERE owner = ?"), arguments: [owner])
        else { return nil }
        return try ownerState(row, owner: owner)
    }

    /// The summary calendar and zones `owner` should have now: their settings, else the zone of
    /// their latest workout (UTC without one), Monday, and the configured zones.
    static func wanted(
        _ db: Database, owner: String, defaults: SummaryZoneDefaults
    ) throws -> (timeZone: String, firstWeekday: Weekday, bounds: [Double]) {
        try wantedSummaryCalendar(
            settings: IndexReader(db: db).ownerSettings(owner: owner), latestZone: { try latestZone(db, owner: owner) }, defaults: defaults)
    }

    /// The zone of the owner's latest dated workout that has one.
    static func latestZone(_ db: Database, owner: String) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT tz_name FROM workout INDEXED BY workout_by_owner_start
                    WHERE owner = ? AND start_at IS NOT NULL AND tz_name IS NOT NULL ORDER BY start_at DESC LIMIT 1
                    """), arguments: [owner])
    }
}
