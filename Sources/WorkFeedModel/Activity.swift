/// The kind of a workout, as the feed shows it.
///
/// Sources name activities in many ways (`running`, `Running`, `HKWorkoutActivityTypeRunning`, a FIT
/// sport code); ``ActivityType/init(sourceName:)`` folds them into the few the feed knows, and everything
/// else is ``other``.
public enum ActivityType: String, Sendable, Hashable, Codable, CaseIterable {
    case running
    case walking
    case cycling
    case other

    /// Folds a source's activity name into one the feed knows.
    public init(sourceName: String?) {
        guard let name = sourceName?.lowercased() else {
            self = .other
            return
        }
        if name.contains("run") || name.contains("jog") {
            self = .running
        } else if name.contains("walk") || name.contains("hik") {
            self = .walking
        } else if name.contains("cycl") || name.contains("bik") || name.contains("ride") {
            self = .cycling
        } else {
            self = .other
        }
    }
}
