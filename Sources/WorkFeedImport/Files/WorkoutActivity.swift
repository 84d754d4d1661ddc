import Foundation
public import WorkFeedModel

/// Decides a workout's activity from every clue its file carries (docs/import.md, "Activity"):
/// the format's own type first (GPX `<type>`, Strava's numbers in it, TCX `Sport`, FIT `sport`,
/// Apple Health's `workoutActivityType`: the readers set it); where that says nothing more than
/// other, the workout's name (`quarta-feira corrida matutina`), then the file's name
/// (OpenTracks' exports: `…__Radfahrt__…`, `…__Spaziergang__…`). Never from speed.
public enum WorkoutActivity {
    /// The workout with its activity decided.
    public static func resolved(_ workout: ImportedWorkout) -> ImportedWorkout {
        guard workout.activity == .other else { return workout }
        var workout = workout
        let file = (workout.file?.name ?? workout.origin).split(separator: "/").last.map(String.init)
        let stem = file.map { ($0 as NSString).deletingPathExtension }
        workout.activity = ActivityType(words: workout.name) ?? ActivityType(words: stem) ?? .other
        return workout
    }
}
