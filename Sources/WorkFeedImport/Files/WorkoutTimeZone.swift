import Foundation
public import WorkFeedModel
public import WorkFeedTimeZones

/// Decides a workout's time zone and its offset at the start (docs/import.md, "Time zones"):
///
/// 1. Apple Health's `HKTimeZone` metadata: kept as the reader set it (``TimeZoneSource/appleHealth``).
/// 2. An offset the file gives: kept (``TimeZoneSource/file``). The zone of the first valid
///    position goes with it only when that zone's offset at the start is the file's.
/// 3. Otherwise the zone of the first valid position (``TimeZoneMap``: a land zone, else the
///    nautical one), and the offset from its rules at the start (``TimeZoneSource/position``).
///
/// Foundation's `TimeZone` reads the rules from the system's tz database (Debian's `tzdata`).
/// What cannot be worked out (no position, no boundary file, a zone the system does not know)
/// leaves the workout as the file had it, with a warning that says why.
public enum WorkoutTimeZone {
    /// The workout with ``ImportedWorkout/timeZone``, ``ImportedWorkout/timeZoneOffset`` and
    /// ``ImportedWorkout/timeZoneSource`` decided, using the shipped boundary file.
    public static func resolved(_ workout: ImportedWorkout) -> ImportedWorkout {
        resolved(workout, map: TimeZoneMap.shipped)
    }

    /// The same with a given boundary file (tests).
    public static func resolved(_ workout: ImportedWorkout, map: Result<TimeZoneMap, TimeZoneMapError>) -> ImportedWorkout {
        var workout = workout
        if workout.timeZoneSource == .appleHealth, workout.timeZone != nil { return workout }
        let start = workout.start ?? workout.route.points.lazy.compactMap(\.time).first
        guard let position = firstPosition(of: workout.route) else {
            if workout.timeZoneOffset != nil { workout.timeZoneSource = .file }
            return workout
        }
        let name: String
        switch map {
        case .success(let map):
            guard let found = map.zone(latitude: position.latitude, longitude: position.longitude) else { return workout }
            name = found
        case .failure(let error):
            if workout.timeZoneOffset != nil { workout.timeZoneSource = .file }
            workout.warnings.append(
                ImportError(file: workout.origin, field: "time zone", message: "cannot look up the zone of the start: \(error)"))
            return workout
        }
        let zone = TimeZone(identifier: name)
        if let offset = workout.timeZoneOffset {
            workout.timeZoneSource = .file
            if let zone, let start, zone.secondsFromGMT(for: start) == offset { workout.timeZone = name }
            return workout
        }
        guard let zone else {
            workout.warnings.append(
                ImportError(
                    file: workout.origin, field: "time zone",
                    message: "the start's zone \(name) is not in this system's time-zone database (is tzdata installed?)"))
            return workout
        }
        workout.timeZone = name
        workout.timeZoneSource = .position
        workout.timeZoneOffset = start.map { zone.secondsFromGMT(for: $0) }
        return workout
    }

    /// The first position with valid coordinates. Exactly 0°, 0° is left out: it is what
    /// receivers write before they have a fix, and lies in the sea.
    public static func firstPosition(of route: Route) -> RoutePoint? {
        route.points.first { $0.isValidCoordinate && !($0.latitude == 0 && $0.longitude == 0) }
    }
}
