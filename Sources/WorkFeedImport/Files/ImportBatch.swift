public import WorkFeedModel

/// What ``WorkoutFileReader/readAll(contentsOf:limits:)`` found in a file, a folder or an archive:
/// the workouts that could be read, and an error for each part that could not (a broken entry
/// of a zip, a missing route file of an Apple Health export, a workout with a bad date). One
/// broken part never hides the rest.
public struct ImportBatch: Sendable, Hashable {
    public var workouts: [ImportedWorkout]
    public var errors: [ImportError]

    public init(workouts: [ImportedWorkout] = [], errors: [ImportError] = []) {
        self.workouts = workouts
        self.errors = errors
    }

    public mutating func append(_ other: ImportBatch) {
        workouts += other.workouts
        errors += other.errors
    }

    /// The workouts, or the first error when there is one: the all-or-nothing contract of
    /// ``WorkoutFileReader/read(contentsOf:)``. The message then says how many errors there were.
    public func workoutsOrFirstError() throws(ImportError) -> [ImportedWorkout] {
        guard var first = errors.first else { return workouts }
        if errors.count > 1 { first.message += " (the first of \(errors.count) errors)" }
        throw first
    }
}
