import Foundation
import GRDB
public import WorkFeedModel

/// Read queries on the index, in a read transaction (``WorkoutIndex/read(_:)``) or inside a write
/// (``IndexTransaction/reader``).
///
/// By concern: workouts here; their files (`IndexReader+Files.swift`); job counts and the queue
/// (`+Status.swift`); pictures (`+Pictures.swift`); failures (`+Failures.swift`); the feed and the
/// change log (`+Feed.swift`); privacy zones (`+Privacy.swift`). Every row becomes model values
/// through ``RowDecoder``: a corrupt row is an ``IndexError`` naming it, never a default.
public struct IndexReader {
    let db: Database

    /// The number of workouts, of one owner or of all.
    public func workoutCount(owner: String? = nil) throws -> Int {
        guard let owner else { return try Int.fetchOne(db, sql: "SELECT count(*) FROM workout") ?? 0 }
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM workout WHERE owner = ?", arguments: [owner]) ?? 0
    }

    /// The ids of every workout of `owner`, in id order.
    public func workoutIDs(owner: String) throws -> [WorkoutID] {
        try Row.fetchAll(db, sql: "SELECT id FROM workout WHERE owner = ? ORDER BY id", arguments: [owner]).map(Self.workoutID)
    }

    /// The workouts whose id starts with `prefix` (lower-case hex, with or without the hyphens),
    /// at most `limit`, in id order.
    public func workouts(withPrefix prefix: String, limit: Int) throws -> [WorkoutID] {
        let hex = prefix.lowercased().filter { $0 != "-" }
        // The stored form has hyphens after the 8th, 12th, 16th and 20th digit.
        var stored = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { stored.append("-") }
            stored.append(character)
        }
        return try Row.fetchAll(
            db, sql: "SELECT id FROM workout WHERE id >= ? AND id < ? ORDER BY id LIMIT ?", arguments: [stored, stored + "~", limit]
        ).map(Self.workoutID)
    }

    /// A workout; with `owner`, only when it is that owner's (another owner's is `nil`, as if it
    /// were not in the index).
    public func workout(_ id: WorkoutID, owner: String? = nil) throws -> WorkoutRecord? {
        guard
            let record = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.workoutColumns) FROM workout WHERE id = ?"), arguments: [id.description]
            )
            .map(Self.workoutRecord)
        else { return nil }
        return owner == nil || record.owner == owner ? record : nil
    }

    /// The stored series of a workout, as stored.
    public func series(of id: WorkoutID) throws -> (route: [UInt8], heartRate: [UInt8])? {
        try Row.fetchOne(db, sql: "SELECT workout_id, route, heart_rate FROM series WHERE workout_id = ?", arguments: [id.description]).map { row in
            let series = RowDecoder(row, table: "series")
            return (Array(try series.value(1, "route") as Data), Array(try series.value(2, "heart_rate") as Data))
        }
    }

    // MARK: Decoding

    /// A row whose only column is a workout's id.
    static func workoutID(_ row: Row) throws(IndexError) -> WorkoutID {
        try RowDecoder(row, table: "workout").workoutID(0, "id")
    }

    /// The columns ``workoutRecord(_:)`` reads, in its order: select them by name, decode them by
    /// position (a lookup by name lower-cases and hashes the name for every value, which was most of
    /// the time of a feed page).
    public static let workoutColumns = """
        id, owner, source, source_id, activity, name, tz_offset, route_version, route_hash, hr_hash, anchor, start_at, end_at, \
        distance, duration, elevation_gain, hr_avg, hr_max, point_count, calories, hr_samples, device_source, device_figures, \
        file_name, file_sha256, file_size, file_format, reader_version, original_kept, position_in_file, tz_name, tz_source, place
        """

    /// A workout from ``workoutColumns``.
    static func workoutRecord(_ row: some StoredRow) throws(IndexError) -> WorkoutRecord {
        let workout = RowDecoder(row, table: "workout")
        var record = WorkoutRecord(
            id: try workout.workoutID(0, "id"),
            owner: try workout.value(1, "owner"),
            source: try workout.known(2, "source"),
            sourceID: try workout.value(3, "source_id"),
            activity: try workout.known(4, "activity"),
            name: try workout.optionalValue(5, "name"),
            summary: WorkoutSummary(route: Route(), heartRate: []),
            timeZoneOffset: try workout.optionalValue(6, "tz_offset"),
            routeVersion: try workout.value(7, "route_version"),
            routeHash: try workout.value(8, "route_hash"),
            heartRateHash: try workout.value(9, "hr_hash"),
            anchor: try workout.value(10, "anchor"))
        record.start = try workout.optionalDate(11, "start_at")
        record.end = try workout.optionalDate(12, "end_at")
        record.distance = try workout.value(13, "distance")
        record.duration = try workout.optionalValue(14, "duration")
        record.elevationGain = try workout.optionalValue(15, "elevation_gain")
        record.heartRateAverage = try workout.optionalValue(16, "hr_avg")
        record.heartRateMax = try workout.optionalValue(17, "hr_max")
        record.pointCount = try workout.value(18, "point_count")
        record.calories = try workout.optionalValue(19, "calories")
        record.heartRateSamples = try workout.value(20, "hr_samples") as Int
        record.deviceSource = try workout.optionalValue(21, "device_source")
        record.deviceFigures = (try workout.optionalValue(22, "device_figures") as String?).map { $0.split(separator: ",").map(String.init) }
        record.timeZone = try workout.optionalValue(30, "tz_name")
        record.timeZoneSource = try workout.optionalKnown(31, "tz_source")
        record.place = try workout.optionalValue(32, "place")
        // A workout imported before files were remembered has neither name nor hash; one that has
        // both has every other detail of its file too.
        if let name: String = try workout.optionalValue(23, "file_name"), let sha256: String = try workout.optionalValue(24, "file_sha256") {
            record.file = WorkoutFile(
                name: name, size: try workout.value(25, "file_size"), sha256: sha256, format: try workout.value(26, "file_format"),
                readerVersion: try workout.value(27, "reader_version"))
            record.originalKept = try workout.value(28, "original_kept") as Bool
        }
        return record
    }
}
