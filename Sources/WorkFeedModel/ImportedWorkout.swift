public import Foundation

/// Where a workout came from.
public enum WorkoutSource: String, Sendable, Hashable, Codable, CaseIterable {
    case gpx
    case tcx
    case fit
    case appleHealth = "apple-health"
}

/// A workout as a reader found it in a file, before it is indexed.
public struct ImportedWorkout: Sendable, Hashable {
    public var source: WorkoutSource
    /// The source's own identifier (a HealthKit UUID, a FIT serial and time), or `nil` when the
    /// format has none; the index then identifies the workout by a hash of its content.
    public var sourceID: String?
    public var activity: ActivityType
    public var name: String?
    public var route: Route
    public var heartRate: [HeartRateSample]
    /// Start and end when the source states them apart from the route (Apple Health does);
    /// otherwise the index takes them from the route's first and last times.
    public var start: Date?
    public var end: Date?
    /// The offset from UTC in seconds at the workout's start, in the zone it took place in: the
    /// file's own when it gives one, else from ``timeZone``'s rules at the start.
    public var timeZoneOffset: Int?
    /// The IANA id of the zone it took place in (`Europe/Berlin`, `Etc/GMT-2` at sea), when known:
    /// from Apple Health's `HKTimeZone`, else looked up from the first valid position
    /// (`WorkoutFileReader` fills it in; docs/import.md, "Time zones").
    public var timeZone: String?
    /// Where ``timeZoneOffset`` and ``timeZone`` came from.
    public var timeZoneSource: TimeZoneSource?
    /// The file (and entry inside it) the workout was read from, for messages.
    public var origin: String
    /// The file the workout was read from: name, size, SHA-256, format, reader version. `nil`
    /// only for workouts made in code (benchmarks, tests).
    public var file: WorkoutFile?
    /// The workout's place among those read from ``file`` (0 for the first): two workouts of one
    /// file without a ``sourceID`` (two TCX courses) are told apart by it.
    public var positionInFile: Int
    /// Summary figures the device wrote into the file, when it has any.
    public var device: DeviceSummary?
    /// Problems the reader passed over without refusing the workout (unknown or broken content
    /// inside `<extensions>`), naming file and line.
    public var warnings: [ImportError]
    /// The file's bytes, so that the original can be kept beside the pictures; `nil` when the
    /// reader did not hold the whole file (an export streamed from disk) or the file is too large.
    public var original: [UInt8]?

    public init(
        source: WorkoutSource,
        sourceID: String? = nil,
        activity: ActivityType = .other,
        name: String? = nil,
        route: Route = Route(),
        heartRate: [HeartRateSample] = [],
        start: Date? = nil,
        end: Date? = nil,
        timeZoneOffset: Int? = nil,
        timeZone: String? = nil,
        timeZoneSource: TimeZoneSource? = nil,
        origin: String,
        file: WorkoutFile? = nil,
        positionInFile: Int = 0,
        device: DeviceSummary? = nil,
        warnings: [ImportError] = [],
        original: [UInt8]? = nil
    ) {
        self.source = source
        self.sourceID = sourceID
        self.activity = activity
        self.name = name
        self.route = route
        self.heartRate = heartRate
        self.start = start
        self.end = end
        self.timeZoneOffset = timeZoneOffset
        self.timeZone = timeZone
        self.timeZoneSource = timeZoneSource
        self.origin = origin
        self.file = file
        self.positionInFile = positionInFile
        self.device = device
        self.warnings = warnings
        self.original = original
    }
}

/// A file could not be read. Names the file and, when known, the line and the field.
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var field: String?
    public var message: String

    public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file:line: field: message`, the form editors and people both read.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let field { text += "\(field): " }
        return text + message
    }
}

extension ImportedWorkout {
    /// A made-up workout of two points, different for each `number`, without heart rate: the
    /// smallest real job, for the dispatch benchmark and the tests that need many workouts.
    public static func twoPoint(_ number: Int) -> ImportedWorkout {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 60)
        let latitude = 52.0 + Double(number % 1000) * 0.0001
        let longitude = 4.0 + Double(number / 1000) * 0.0001
        let route = Route(segments: [
            [
                RoutePoint(latitude: latitude, longitude: longitude, elevation: 1, time: start),
                RoutePoint(latitude: latitude + 0.001, longitude: longitude + 0.001, elevation: 2, time: start.addingTimeInterval(30)),
            ]
        ])
        return ImportedWorkout(
            source: .gpx, sourceID: "two-point-\(number)", activity: .running, name: nil, route: route, heartRate: [], start: start,
            end: start.addingTimeInterval(30), timeZoneOffset: 0, origin: "made up \(number)")
    }
}
