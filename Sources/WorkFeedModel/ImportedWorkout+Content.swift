/// Why a workout read from a file has nothing to show, so that it is refused instead of stored
/// as an empty card ("Other · Unknown date"): docs/import.md, "Nothing to show".
///
/// A workout has something to show when it has a **track** (at least two points with a valid
/// position: a line to draw) or at least one **figure** (a heart-rate sample, or a total the
/// device wrote: distance, moving time, calories, heart rate; or a start and end the source
/// states as the workout's own, as Apple Health does). Waypoints are not a track and their times
/// are not figures.
public struct EmptyWorkout: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes, for callers to switch on (the gateway's problem `reason`, workctl's JSON).
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// No track point at all (a waypoint-only file, an empty track or route).
        case noPoints = "no-points"
        /// One point with a position: no line to draw.
        case onePoint = "one-point"
    }

    public var code: Code
    /// The file (and entry) it was read from.
    public var origin: String

    public init(_ code: Code, origin: String) {
        self.code = code
        self.origin = origin
    }

    /// For people: what is missing, and that nothing was stored.
    public var message: String {
        switch code {
        case .noPoints:
            "no track and no figures: the file has no track points (waypoints are not a track) and no distance, time, heart rate or calories, so there is nothing to show; not stored"
        case .onePoint:
            "no track and no figures: the track has one point, not a line, and the file has no distance, time, heart rate or calories, so there is nothing to show; not stored"
        }
    }

    public var description: String { "\(origin): \(message)" }
}

extension ImportedWorkout {
    /// Why this workout has neither a track nor a figure, or `nil` when it has something to show
    /// (``EmptyWorkout``).
    public var emptiness: EmptyWorkout? {
        let positioned = route.points.lazy.filter(\.isValidCoordinate).prefix(2).count
        guard positioned < 2, heartRate.isEmpty, !(device?.hasFigures ?? false) else { return nil }
        if source.statesWorkoutTimes, let start, let end, end > start { return nil }
        return EmptyWorkout(positioned == 0 ? .noPoints : .onePoint, origin: origin)
    }

    /// Throws ``EmptyWorkout`` when this workout has nothing to show.
    public func checkHasContent() throws(EmptyWorkout) {
        if let emptiness { throw emptiness }
    }
}

extension DeviceSummary {
    /// Whether the device wrote any total a card shows (elevation gain alone is not one: without a
    /// track it is never shown).
    public var hasFigures: Bool {
        [distance, duration, calories, heartRateAverage, heartRateMax].contains { ($0 ?? 0) > 0 }
    }
}

extension WorkoutSource {
    /// Whether a workout's ``ImportedWorkout/start`` and ``ImportedWorkout/end`` are the times the
    /// source states for the workout itself (an elapsed time to show), rather than those of its
    /// points or waypoints.
    public var statesWorkoutTimes: Bool {
        switch self {
        case .appleHealth: true
        case .gpx, .tcx, .fit: false
        }
    }
}
