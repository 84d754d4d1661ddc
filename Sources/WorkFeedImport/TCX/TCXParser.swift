import Foundation
import WorkFeedModel

/// Walks a TCX document and builds its workouts.
struct TCXParser {
    static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"

    /// What one `Activity` or `Course` gathers.
    struct Workout {
        var segments: [[RoutePoint]] = []
        var heartRate: [HeartRateSample] = []
        var firstOffset: Int?
        var earliest: Date?
        var latest: Date?
        /// The `Creator`'s `Name`: the device that recorded it.
        var creator: String?

        mutating func add(_ trackpoint: Trackpoint) {
            if let offset = trackpoint.offset, firstOffset == nil { firstOffset = offset }
            if let time = trackpoint.time {
                if earliest.map({ time < $0 }) ?? true { earliest = time }
                if latest.map({ time > $0 }) ?? true { latest = time }
                if let bpm = trackpoint.heartRate { heartRate.append(HeartRateSample(time: time, bpm: bpm)) }
            }
            if let point = trackpoint.point {
                if segments.isEmpty { segments.append([]) }
                segments[segments.count - 1].append(point)
            }
        }
    }

    /// One `Trackpoint`.
    struct Trackpoint {
        var time: Date?
        var offset: Int?
        var point: RoutePoint?
        var heartRate: Double?
    }

    var reader: XMLPullReader
    /// The namespace of the root element; TCX elements are matched in it.
    var namespace = TCXParser.namespace

    init(reader: XMLPullReader) {
        self.reader = reader
    }

    var file: String { reader.file }

    mutating func parse() throws(ImportError) -> [ImportedWorkout] {
        try readRoot()
        var activities: [ImportedWorkout] = []
        var courses: [ImportedWorkout] = []
        while true {
            switch try reader.next() {
            case .startElement where reader.name.namespace == namespace:
                // Activities may sit deeper than usual (in a MultiSportSession), so the walk goes
                // into every element until it meets an Activity or a Course.
                if reader.name.local == "Activity" {
                    activities.append(try readActivity())
                } else if reader.name.local == "Course" {
                    courses.append(try readCourse())
                } else if reader.name.local == "Author" || reader.name.local == "Workouts" {
                    try reader.skipElement()
                }
            case .endDocument:
                var workouts = activities + courses
                // What the lenient <Extensions> passed over is said once, with the file's first workout.
                if !workouts.isEmpty { workouts[0].warnings = reader.warnings }
                return workouts
            default:
                continue
            }
        }
    }

    private mutating func readRoot() throws(ImportError) {
        let root = try reader.rootElement(of: "a TCX file", file: file)
        guard root.local == "TrainingCenterDatabase" else {
            throw ImportError(file: file, line: reader.eventLine, message: "not a TCX file (root element is \(root.local))")
        }
        guard root.namespace == Self.namespace || root.namespace.isEmpty else {
            throw ImportError(
                file: file, line: reader.eventLine, message: "not a TCX file (namespace \(root.namespace), expected \(Self.namespace))")
        }
        namespace = root.namespace
    }

    /// Reads an `Activity`; called at its start, returns after its end.
    private mutating func readActivity() throws(ImportError) -> ImportedWorkout {
        let depth = reader.depth
        var result = ImportedWorkout(source: .tcx, activity: ActivityType(sourceName: reader.attribute("Sport")), origin: file)
        var workout = Workout()
        var laps = LapTotals()
        var idTime: Date?
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipElement()
                continue
            }
            switch reader.name.local {
            case "Id" where reader.depth == depth + 1:
                let id = try reader.readTrimmedText()
                result.sourceID = id
                idTime = reader.trimmedText.flatMap { TimestampParser.parse(Array($0.utf8)[...])?.date }
            case "Lap":
                try readLap(into: &workout, totals: &laps)
            case "Track":
                workout.segments.append([])
                try readTrack(into: &workout)
            case "Creator":
                workout.creator = try readCreatorName()
            case "Training", "Extensions":
                try reader.skipLeniently()
            default:
                // Other elements are looked into: tracks may be inside them.
                continue
            }
        }
        result.device = laps.device
        return finish(result, workout, idTime: idTime)
    }

    /// A `Creator`'s `Name` (the device: `Forerunner 410 Software Version 2.20`); the rest of it
    /// (unit id, product id, version) is passed over leniently, as before.
    private mutating func readCreatorName() throws(ImportError) -> String? {
        let depth = reader.depth
        var name: String?
        while try reader.nextChild(of: depth) {
            if reader.name.namespace == namespace, reader.name.local == "Name", name == nil {
                name = try reader.readTrimmedText()
            } else {
                try reader.skipLeniently()
            }
        }
        return name
    }

    /// The laps' own figures, summed: what the device showed for the activity.
    struct LapTotals {
        var count = 0
        var seconds: Double?
        var metres: Double?
        var calories: Double?
        var heartRateWeighted: (sum: Double, weight: Double)?
        var heartRateMax: Double?

        var device: DeviceSummary? {
            guard count > 0 else { return nil }
            return DeviceSummary(
                source: "TCX laps", distance: metres, duration: seconds, calories: calories,
                heartRateAverage: heartRateWeighted.flatMap { $0.weight > 0 ? $0.sum / $0.weight : nil }, heartRateMax: heartRateMax
            ).sanitized()
        }
    }

    /// Reads a `Lap`: its totals (`TotalTimeSeconds`, `DistanceMeters`, `Calories`,
    /// `AverageHeartRateBpm`, `MaximumHeartRateBpm`) and its tracks. A total that cannot be read
    /// is left out (the track's figure is used instead); the trackpoints are read as strictly as
    /// everywhere.
    private mutating func readLap(into workout: inout Workout, totals: inout LapTotals) throws(ImportError) {
        let depth = reader.depth
        totals.count += 1
        var seconds: Double?
        var average: Double?
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipLeniently()
                continue
            }
            switch reader.name.local {
            case "TotalTimeSeconds":
                seconds = try lapFigure()
                if let seconds { totals.seconds = (totals.seconds ?? 0) + seconds }
            case "DistanceMeters":
                if let metres = try lapFigure() { totals.metres = (totals.metres ?? 0) + metres }
            case "Calories":
                if let calories = try lapFigure() { totals.calories = (totals.calories ?? 0) + calories }
            case "AverageHeartRateBpm":
                average = try lapHeartRate()
            case "MaximumHeartRateBpm":
                if let maximum = try lapHeartRate() { totals.heartRateMax = max(totals.heartRateMax ?? 0, maximum) }
            case "Track":
                workout.segments.append([])
                try readTrack(into: &workout)
            default:
                try reader.skipLeniently()
            }
        }
        if let average {
            let weight = max(1, seconds ?? 1)
            let previous = totals.heartRateWeighted ?? (0, 0)
            totals.heartRateWeighted = (previous.sum + average * weight, previous.weight + weight)
        }
    }

    /// A lap total: a finite number of 0 or more, else `nil`.
    private mutating func lapFigure() throws(ImportError) -> Double? {
        try reader.readElementText()
        guard let value = reader.trimmedText.flatMap(Double.init), value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// `AverageHeartRateBpm/Value` or `MaximumHeartRateBpm/Value` of a lap.
    private mutating func lapHeartRate() throws(ImportError) -> Double? {
        let depth = reader.depth
        var value: Double?
        while try reader.nextChild(of: depth) {
            if reader.name.local == "Value" { value = try lapFigure() } else { try reader.skipElement() }
        }
        return value.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Reads a `Course`; called at its start, returns after its end.
    private mutating func readCourse() throws(ImportError) -> ImportedWorkout {
        let depth = reader.depth
        var result = ImportedWorkout(source: .tcx, origin: file)
        var workout = Workout()
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipElement()
                continue
            }
            switch reader.name.local {
            case "Name" where reader.depth == depth + 1:
                result.name = try reader.readTrimmedText()
            case "Track":
                workout.segments.append([])
                try readTrack(into: &workout)
            default:
                try reader.skipElement()
            }
        }
        return finish(result, workout, idTime: nil)
    }

    private func finish(_ result: ImportedWorkout, _ workout: Workout, idTime: Date?) -> ImportedWorkout {
        var result = result
        result.route = Route(segments: workout.segments, altitudeSource: AltitudeSource(recorder: workout.creator))
        result.heartRate = workout.heartRate
        result.timeZoneOffset = workout.firstOffset
        // Some exporters write an Id far from the recorded times (an Edge 500 file here says 2015
        // for a 2021 ride), so the trackpoints decide; the Id only stands in when they have none.
        result.start = workout.earliest ?? idTime
        result.end = workout.latest
        return result
    }

    private mutating func readTrack(into workout: inout Workout) throws(ImportError) {
        let depth = reader.depth
        while try reader.nextChild(of: depth) {
            if reader.name.namespace == namespace && reader.name.local == "Trackpoint" {
                workout.add(try readTrackpoint())
            } else {
                try reader.skipElement()
            }
        }
    }
}
