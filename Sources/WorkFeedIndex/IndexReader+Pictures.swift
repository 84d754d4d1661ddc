import Foundation
import GRDB
public import WorkFeedModel

// MARK: Pictures (a workout's jobs)

extension IndexReader {
    /// A workout's pictures, by kind, theme and scale.
    public func pictures(of id: WorkoutID) throws -> [PictureRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(Self.pictureColumns) FROM job WHERE workout_id = ? ORDER BY kind, theme, scale", arguments: [id.description]
        ).map(Self.pictureRecord)
    }

    /// The pictures of several workouts (a feed page) in one query, by workout.
    public func pictures(of ids: [WorkoutID]) throws -> [WorkoutID: [PictureRecord]] {
        guard !ids.isEmpty else { return [:] }
        let list = "[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let records = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(Self.pictureColumns) FROM json_each(?) AS q CROSS JOIN job ON job.workout_id = q.value
                    ORDER BY workout_id, kind, theme, scale
                    """),
            arguments: [list]
        ).map(Self.pictureRecord)
        return Dictionary(grouping: records, by: \.picture.workoutID)
    }

    /// Every generated picture with its cache key, in job order, while `body` returns `true`.
    public func generatedPictures(_ body: (PictureID, String) throws -> Bool) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT id, workout_id, kind, theme, scale, cache_key FROM job WHERE status = 'generated' AND cache_key IS NOT NULL ORDER BY id")
        while let row = try rows.next() {
            let job = RowDecoder(row, table: "job")
            guard try body(try job.picture(from: 1), try job.value(5, "cache_key")) else { return }
        }
    }

    /// Whether some job stores `key` as its picture's (a by-content name in use).
    public func isStored(key: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM job WHERE cache_key = ? LIMIT 1"), arguments: [key]) != nil
    }

    /// Whether a generated picture's job stores `key` (``IndexReading/isGenerated(key:)``): the
    /// partial index on `cache_key` finds it.
    public func isGenerated(key: String) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM job WHERE cache_key = ? AND status = 'generated' LIMIT 1"), arguments: [key])
            != nil
    }

    /// Whether `picture`'s job stores `key` as its picture's: its by-picture name may hold it.
    public func isStored(_ picture: PictureID, key: String) throws -> Bool {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM job WHERE workout_id = ? AND kind = ? AND theme = ? AND scale = ? AND cache_key = ?"),
            arguments: [picture.workoutID.description, picture.kind.rawValue, picture.theme.rawValue, picture.scale, key]) != nil
    }

    /// The key `picture`'s job stores, or `nil` when it has none (or there is no such job).
    public func storedKey(of picture: PictureID) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT cache_key FROM job WHERE workout_id = ? AND kind = ? AND theme = ? AND scale = ?"),
            arguments: [picture.workoutID.description, picture.kind.rawValue, picture.theme.rawValue, picture.scale])
    }

    /// The columns ``pictureRecord(_:)`` reads, in its order; the last, the job's id, names the
    /// row in errors.
    public static let pictureColumns = "workout_id, kind, theme, scale, status, reason, cache_key, attempts, updated_at, map, reason_code, job.id"

    /// A picture from ``pictureColumns``.
    static func pictureRecord(_ row: some StoredRow) throws(IndexError) -> PictureRecord {
        let job = RowDecoder(row, table: "job", idColumn: 11)
        return PictureRecord(
            picture: try job.picture(from: 0),
            status: try job.known(4, "status"),
            reason: try job.optionalValue(5, "reason"),
            cacheKey: try job.optionalValue(6, "cache_key"),
            attempts: try job.value(7, "attempts"),
            updatedAt: try job.date(8, "updated_at"),
            map: try job.optionalKnown(9, "map"),
            reasonCode: try job.optionalValue(10, "reason_code"))
    }
}
