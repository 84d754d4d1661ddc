/// A job's status, spelled exactly as the feed app knows it.
public enum JobStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not rendered yet, or its inputs changed; it may be leased to a worker right now.
    case pending
    /// The PNG in the cache matches the job's current inputs.
    case generated
    /// Rendering cannot succeed with these inputs; never retried automatically.
    case failedNoRetry = "failed-no-retry"
}

/// Identifies one picture: one job per (workout, kind, theme, scale[, metric]).
public struct PictureID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var workoutID: WorkoutID
    public var kind: PictureKind
    public var theme: Theme
    public var scale: Int

    public init(workoutID: WorkoutID, kind: PictureKind, theme: Theme, scale: Int = 1) {
        self.workoutID = workoutID
        self.kind = kind
        self.theme = theme
        self.scale = scale
    }

    /// The metric the kind colours by (``PictureKind/metric``).
    public var metric: String? { kind.metric }

    public var description: String {
        "\(workoutID) \(kind.rawValue) \(theme.rawValue)" + (scale == 1 ? "" : " @\(scale)x")
    }
}

/// How much of a picture's area the basemap covered; reported with every generated picture and
/// shown by `workctl show`, so that an operator sees which pictures have no map.
public enum MapCoverage: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every tile under the picture was found: the whole picture shows the map.
    case full
    /// Some tiles were found and some not: the rest shows the plain background.
    case partial
    /// No tileset covers the picture (or none is configured): the plain background. Not a failure.
    case none
}
