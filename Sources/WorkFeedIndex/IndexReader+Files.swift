import GRDB
public import WorkFeedModel

// MARK: The files workouts came from

extension IndexReader {
    /// The file a workout's stored copy came from, and its place among the file's workouts;
    /// `nil` for a workout imported before files were remembered (or not in the index).
    public func file(of id: WorkoutID) throws -> (file: WorkoutFile, positionInFile: Int, originalKept: Bool)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.workoutColumns) FROM workout WHERE id = ?", arguments: [id.description]),
            let file = try Self.workoutRecord(row).file
        else { return nil }
        let workout = RowDecoder(row, table: "workout")
        return (file, try workout.value(29, "position_in_file"), try workout.value(28, "original_kept"))
    }

    /// The files (SHA-256) of these workouts.
    public func fileHashes(of ids: [WorkoutID]) throws -> Set<String> {
        var hashes = Set<String>()
        for id in ids {
            if let hash = try String.fetchOne(db, sql: "SELECT file_sha256 FROM workout WHERE id = ?", arguments: [id.description]) {
                hashes.insert(hash)
            }
        }
        return hashes
    }

    /// Of the files (SHA-256) of these workouts, those whose original one of them keeps.
    public func keptOriginals(of ids: [WorkoutID]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let list = "[" + ids.map { "\"\($0.description)\"" }.joined(separator: ",") + "]"
        return Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT w.file_sha256 FROM json_each(?) AS q JOIN workout w ON w.id = q.value
                    WHERE w.file_sha256 IS NOT NULL AND w.original_kept = 1
                    """, arguments: [list]))
    }

    /// Of these files (SHA-256), those no workout refers to any more.
    public func unreferencedFiles(_ hashes: Set<String>) throws -> [String] {
        try hashes.sorted().filter { hash in
            try Int.fetchOne(db, sql: "SELECT 1 FROM workout WHERE file_sha256 = ? LIMIT 1", arguments: [hash]) == nil
        }
    }
}
