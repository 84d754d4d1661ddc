public import Foundation
public import WorkFeedModel
import WorkFeedTimeZones

/// Reads an Apple Health export: the `apple_health_export` folder (or its `export.xml`), as the
/// Health app writes it into `export.zip`. Zips go through ``WorkoutFileReader/readAll(contentsOf:limits:)``,
/// which hands their `export.xml` to the same code.
///
/// - `export.xml` is read as a stream in bounded memory; its internal DTD is skipped, entities
///   are never expanded and external ones never fetched.
/// - Every `Workout` becomes a workout, with or without a route: `WorkoutRoute`'s
///   `FileReference` GPX files (resolved inside the export folder) or, in older exports, its
///   inline `Location`s. Route points are kept as the route files give them, even when their
///   times fall outside the workout's.
/// - Heart rate: the `HKQuantityTypeIdentifierHeartRate` records (at their `startDate`) between
///   the workout's start and end, both included.
/// - Summary figures: the workout's `duration`, `totalDistance` and `totalEnergyBurned`, and its
///   `WorkoutStatistics` (heart-rate average and maximum, distance and energy sums), as the
///   device's own (``ImportedWorkout/device``).
/// - The activity: `HKWorkoutActivityTypeRunning` → running, `…Walking` and `…Hiking` → walking,
///   `…Cycling` → cycling, anything else → other (see ``activity(forWorkoutActivityType:)``).
/// - `sourceID`: HealthKit writes no identifier into the export, so it is a hash of the
///   workout's source name, activity type, start and end (see ``sourceID(sourceName:activityType:start:end:)``).
/// - The time-zone offset comes from the `HKTimeZone` metadata entry at the workout's start,
///   else from the offset written in `startDate`.
public enum AppleHealthReader {
    /// Reads an export folder, or its `export.xml` with the route files beside it.
    /// - Returns: the workouts, and the errors of what could not be read: a broken `export.xml`
    ///   gives one error and no workouts; a workout with a bad value or a missing or broken route
    ///   file gives an error each (a workout whose route file fails is kept, without that route).
    public static func read(exportAt url: URL) -> ImportBatch {
        var workouts: [ImportedWorkout] = []
        let errors = readEach(exportAt: url) { workouts.append($0) }
        return ImportBatch(workouts: workouts, errors: errors)
    }

    /// Reads an export as ``read(exportAt:)`` does, handing each workout to `body` as soon as its
    /// route is read, so that only one workout's route is in memory at a time.
    /// - Returns: the errors.
    public static func readEach(exportAt url: URL, _ body: (ImportedWorkout) -> Void) -> [ImportError] {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        let export = exists && isFolder.boolValue ? url.appendingPathComponent("export.xml") : url
        let reader: XMLPullReader
        let capture = FileCapture(keepLimit: Int(ArchiveLimits.standard.inMemoryEntrySize))
        do throws(ImportError) {
            reader = XMLPullReader(source: CapturingSource(inner: try XMLFileSource(path: export.path), capture: capture), file: export.path)
        } catch {
            return [error]
        }
        return withoutActuallyEscaping(body) { emit in
            read(reader, loadRoute: folderRouteLoader(export: export), capture: capture, emit: emit)
        }
    }

    /// Reads route files from the folder that holds `export.xml`.
    static func folderRouteLoader(export: URL) -> RouteLoader {
        let folder = export.deletingLastPathComponent()
        return { path, draft in
            guard let components = routeComponents(path) else {
                return .failure(outsideExport(path, export: export.path, line: draft.line))
            }
            let url = components.reduce(folder) { $0.appendingPathComponent($1) }
            guard FileManager.default.fileExists(atPath: url.path) else {
                return .failure(missingRoute(path, export: export.path, line: draft.line))
            }
            return Result { () throws(ImportError) -> Route in try routeOfGPX(try RegularFile.read(url.path), file: url.path) }
        }
    }

    /// Loads the route of a `FileReference` path for the workout that names it.
    typealias RouteLoader = (_ path: String, _ workout: AppleHealthWorkoutDraft) -> Result<Route, ImportError>

    /// Reads `export.xml` from `reader` and builds the workouts.
    static func read(_ reader: XMLPullReader, loadRoute: RouteLoader) -> ImportBatch {
        var workouts: [ImportedWorkout] = []
        let errors = read(reader, loadRoute: loadRoute) { workouts.append($0) }
        return ImportBatch(workouts: workouts, errors: errors)
    }

    /// Reads `export.xml` from `reader`, then builds the workouts one by one, reading each one's
    /// route files just before handing it to `emit`.
    /// - Parameter capture: what `reader`'s bytes go through, so that each workout remembers the
    ///   export it came from (``ImportedWorkout/file``).
    /// - Returns: the errors: only the parse error when `export.xml` is broken (and then no
    ///   workout is emitted), else those of single workouts, records and route files.
    static func read(
        _ reader: XMLPullReader, loadRoute: RouteLoader, capture: FileCapture? = nil, emit: (ImportedWorkout) -> Void
    ) -> [ImportError] {
        var parser = AppleHealthParser(reader: reader)
        do throws(ImportError) {
            try parser.parse()
        } catch {
            return [error]
        }
        parser.heartRate.sort()
        var errors = parser.errors
        var zones: [String: TimeZone] = [:]
        let file = capture?.file(name: parser.file, format: "apple-health")
        let original = capture?.original
        for (position, draft) in parser.workouts.enumerated() {
            var segments = draft.inlineSegments
            for path in draft.routeFiles {
                switch loadRoute(path, draft) {
                case .success(let route):
                    segments += route.segments
                case .failure(let error):
                    errors.append(error)
                }
            }
            var offset = draft.writtenOffset
            var zoneName: String?
            if let name = draft.timeZoneName, TimeZoneMap.isZoneIdentifier(name) {
                if zones[name] == nil { zones[name] = TimeZone(identifier: name) }
                if let zone = zones[name] {
                    offset = zone.secondsFromGMT(for: draft.start)
                    zoneName = name
                }
            }
            let heartRate = parser.heartRate.samples(from: draft.start, to: draft.end)
            emit(
                ImportedWorkout(
                    source: .appleHealth,
                    sourceID: sourceID(
                        sourceName: draft.sourceName, activityType: draft.activityTypeName, start: draft.start, end: draft.end),
                    activity: activity(forWorkoutActivityType: draft.activityTypeName), name: nil,
                    route: Route(segments: segments, altitudeSource: AltitudeSource(recorder: draft.sourceName)),
                    heartRate: heartRate, start: draft.start, end: draft.end, timeZoneOffset: offset, timeZone: zoneName,
                    timeZoneSource: zoneName.map { _ in .appleHealth },
                    origin: "\(parser.file):\(draft.line)", file: file, positionInFile: position, device: draft.device.sanitized(),
                    original: original))
        }
        return errors
    }

    /// The feed's activity for a `workoutActivityType`. Only these four are mapped; everything
    /// else, wheelchair paces and hand cycling included, is ``ActivityType/other``.
    /// (``ActivityType/init(sourceName:)`` matches substrings and would turn
    /// `HKWorkoutActivityTypeWheelchairRunPace` into running, so it is not used here.)
    public static func activity(forWorkoutActivityType type: String) -> ActivityType {
        switch type {
        case "HKWorkoutActivityTypeRunning": .running
        case "HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeHiking": .walking
        case "HKWorkoutActivityTypeCycling": .cycling
        default: .other
        }
    }

    /// The identifier of an exported workout: HealthKit's UUID is not in the export, so this is
    /// the lowercase hex SHA-256 of `sourceName`, `workoutActivityType`, and the start and end in
    /// milliseconds since 1970, joined by line feeds. The instants are hashed, not the text, so
    /// an export made in another time zone (which writes other offsets) gives the same
    /// identifiers, and a route added to a workout later updates it instead of adding another.
    public static func sourceID(sourceName: String, activityType: String, start: Date, end: Date) -> String {
        let startMilliseconds = Int64((start.timeIntervalSince1970 * 1000).rounded())
        let endMilliseconds = Int64((end.timeIntervalSince1970 * 1000).rounded())
        return SHA256.hex("\(sourceName)\n\(activityType)\n\(startMilliseconds)\n\(endMilliseconds)".utf8)
    }

    /// The path components of a `FileReference` path (`/workout-routes/route_….gpx` is relative to
    /// the export folder despite its leading slash); `nil` when it climbs out of the folder.
    static func routeComponents(_ path: String) -> [String]? {
        let components = path.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }
        guard !components.isEmpty, !components.contains("..") else { return nil }
        return components
    }

    static func routeOfGPX(_ bytes: [UInt8], file: String) throws(ImportError) -> Route {
        try GPXReader.read(bytes, file: file).first?.route ?? Route()
    }

    static func missingRoute(_ path: String, export: String, line: Int) -> ImportError {
        ImportError(file: export, line: line, field: "FileReference", message: "route file '\(path)' is not in the export")
    }

    static func outsideExport(_ path: String, export: String, line: Int) -> ImportError {
        ImportError(file: export, line: line, field: "FileReference", message: "route path '\(path)' points outside the export folder")
    }
}
