import Foundation
import GRDB
public import WorkFeedModel

// A picture whose kind needs an input a workout lacks (a heatmap of a workout without heart rate)
// gets no job, since it could only fail: it is remembered in `picture_wanted` (migration "v14:
// picture kinds") and becomes a job when a re-import brings the input. What a kind needs is the
// kind's to say (`PictureKind.needs`); how the index sees an input on a workout row is said here.

extension PictureInput {
    /// A condition on `workout w` that holds when the workout has this input; `nil` when every
    /// workout is offered the picture (a route series is always stored, perhaps empty: see
    /// ``PictureInput/route``).
    public var workoutCondition: String? {
        switch self {
        case .route: nil
        case .heartRate: "w.hr_samples > 0"
        case .times: "w.end_at > w.start_at"
        case .elevation: "w.elevation_gain IS NOT NULL"
        }
    }
}

extension PictureKind {
    /// A condition on `workout w` that holds when the workout has every input this kind needs
    /// that a workout may lack; `nil` when every workout can have the picture.
    public var workoutCondition: String? {
        let conditions = PictureInput.allCases.filter(needs.contains).compactMap(\.workoutCondition)
        return conditions.isEmpty ? nil : conditions.map { "(\($0))" }.joined(separator: " AND ")
    }
}

extension IndexTransaction {
    /// A picture exists only for a workout with every input its kind needs: when a workout gains
    /// what a kind needs, the pictures of that kind asked for it become jobs; when it loses it,
    /// those jobs go back to being wanted. Called after the workout's row was updated.
    func movePictures(of id: WorkoutID, now: Date, anchor: Int64) throws {
        for kind in PictureKind.allCases {
            guard let condition = kind.workoutCondition else { continue }
            let arguments: StatementArguments = ["id": id.description, "kind": kind.rawValue, "now": now.timeIntervalSince1970, "anchor": anchor]
            try db.execute(
                sql: """
                    INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor, owner)
                    SELECT p.workout_id, p.kind, p.theme, p.scale, 'pending', p.priority, :now, :anchor, w.owner
                    FROM picture_wanted p JOIN workout w ON w.id = p.workout_id WHERE p.workout_id = :id AND p.kind = :kind AND \(condition)
                    ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                    """, arguments: arguments)
            try db.execute(
                sql: """
                    DELETE FROM picture_wanted WHERE workout_id = :id AND kind = :kind
                        AND EXISTS (SELECT 1 FROM workout w WHERE w.id = :id AND \(condition))
                    """, arguments: arguments)
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO picture_wanted (workout_id, kind, theme, scale, priority)
                    SELECT j.workout_id, j.kind, j.theme, j.scale, j.priority FROM job j JOIN workout w ON w.id = j.workout_id
                    WHERE j.workout_id = :id AND j.kind = :kind AND NOT (\(condition))
                    """, arguments: arguments)
            try db.execute(
                sql: """
                    DELETE FROM job WHERE workout_id = :id AND kind = :kind
                        AND NOT EXISTS (SELECT 1 FROM workout w WHERE w.id = :id AND \(condition))
                    """, arguments: arguments)
        }
    }

    /// Remembers the picture asked for each selected workout that lacks what its kind needs
    /// (`condition`, ``PictureKind/workoutCondition``), at the highest priority asked so far, so
    /// that a re-import that brings it queues the picture.
    /// - Parameters:
    ///   - workoutFilter: a condition on `workout w` selecting the workouts asked for.
    ///   - arguments: the named arguments of `workoutFilter`, and `:kind`, `:theme`, `:scale`, `:priority`.
    func rememberWanted(workoutFilter: String, lacking condition: String, arguments: StatementArguments) throws {
        try db.execute(
            sql: """
                INSERT INTO picture_wanted (workout_id, kind, theme, scale, priority)
                SELECT w.id, :kind, :theme, :scale, :priority FROM workout w WHERE \(workoutFilter) AND NOT (\(condition))
                ON CONFLICT (workout_id, kind, theme, scale) DO UPDATE SET priority = max(priority, excluded.priority)
                """, arguments: arguments)
    }

    /// How many of the selected workouts lack what a kind needs (`condition`).
    func countLacking(workoutFilter: String, lacking condition: String, arguments: StatementArguments) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM workout w WHERE \(workoutFilter) AND NOT (\(condition))", arguments: arguments) ?? 0
    }
}

extension WorkoutIndex {
    /// "v14: picture kinds": the heatmaps wanted for workouts without heart rate become rows of
    /// a table keyed by kind, so that any kind that needs what a workout may lack is remembered
    /// alike (`heatmap_wanted` named one kind in its name and its SQL). Every wanted heatmap is
    /// kept, with its priority.
    static func registerPictureKindsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v14: picture kinds") { db in
            try db.execute(
                sql: """
                    CREATE TABLE picture_wanted (
                        workout_id TEXT NOT NULL REFERENCES workout(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        theme TEXT NOT NULL,
                        scale INTEGER NOT NULL,
                        priority INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (workout_id, kind, theme, scale)
                    ) STRICT, WITHOUT ROWID;
                    INSERT INTO picture_wanted (workout_id, kind, theme, scale, priority)
                        SELECT workout_id, 'heatmap', theme, scale, priority FROM heatmap_wanted;
                    DROP TABLE heatmap_wanted;
                    """)
        }
    }
}
