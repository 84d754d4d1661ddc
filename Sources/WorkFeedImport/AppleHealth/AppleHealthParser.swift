import Foundation
import WorkFeedModel

/// A `Workout` of an Apple Health export as read from `export.xml`, before its route files are
/// read and its heart rate is attached.
struct AppleHealthWorkoutDraft: Sendable {
    /// The line of the `<Workout>` start tag.
    var line: Int
    /// `workoutActivityType` as written (`HKWorkoutActivityTypeRunning`), "" when absent.
    var activityTypeName: String
    var sourceName: String
    var start: Date
    var end: Date
    /// The offset written in `startDate` (the phone's zone when the export was made).
    var writtenOffset: Int?
    /// The `HKTimeZone` metadata entry (`America/Los_Angeles`), the zone the workout took place in.
    var timeZoneName: String?
    /// `FileReference` paths of its `WorkoutRoute`s, as written (`/workout-routes/route_….gpx`).
    var routeFiles: [String] = []
    /// Inline `Location`s (older exports): one segment per `WorkoutRoute`.
    var inlineSegments: [[RoutePoint]] = []
    /// The workout's totals (`duration`, `totalDistance`, `totalEnergyBurned`) and its
    /// `WorkoutStatistics` (heart-rate average and maximum, distance and energy sums).
    var device = DeviceSummary(source: "Apple Health workout")
}

/// Walks an Apple Health `export.xml` as a stream: heart-rate records into a
/// ``HeartRateCollector``, workouts into drafts. Everything else (other records, correlations,
/// activity summaries, ECGs, clinical records) is skipped element by element, so memory depends
/// on the number of heart-rate samples and workouts, never on the file's size.
struct AppleHealthParser {
    var reader: XMLPullReader
    var heartRate = HeartRateCollector()
    var workouts: [AppleHealthWorkoutDraft] = []
    /// Problems that cost one workout or some records, not the whole file.
    var errors: [ImportError] = []
    private var skippedRecords = 0
    private var firstSkippedRecord: ImportError?

    static let heartRateType = Array("HKQuantityTypeIdentifierHeartRate".utf8)
    private static let countPerMinute = Array("count/min".utf8)
    private static let countPerSecond = Array("count/s".utf8)

    init(reader: XMLPullReader) {
        self.reader = reader
    }

    var file: String { reader.file }

    /// Reads the whole document.
    /// - Throws: ``ImportError`` when the file is not well-formed XML or not an Apple Health
    ///   export; problems inside one workout or record end up in ``errors`` instead.
    mutating func parse() throws(ImportError) {
        try readRoot()
        while true {
            switch try reader.next() {
            case .startElement:
                // Every child of the root is read or skipped whole, so this is depth 2.
                let local = reader.name.local
                if local == "Record" {
                    try readRecord()
                } else if local == "Workout" {
                    try readWorkout()
                } else {
                    try reader.skipElement()
                }
            case .endDocument:
                if let first = firstSkippedRecord {
                    var summary = first
                    if skippedRecords > 1 {
                        summary.message += " (\(skippedRecords) heart-rate records skipped, this is the first)"
                    }
                    errors.append(summary)
                }
                return
            default:
                continue
            }
        }
    }

    private mutating func readRoot() throws(ImportError) {
        let root = try reader.rootElement(of: "an Apple Health export", file: file)
        guard root.local == "HealthData", root.namespace.isEmpty else {
            throw ImportError(
                file: file, line: reader.eventLine, message: "not an Apple Health export (root element is \(root.local), not HealthData)")
        }
    }

    // MARK: - Records

    /// A top-level `Record`: kept when it is a heart rate. Records inside a `Correlation` are
    /// skipped with it; the DTD says they are repeated at the top level.
    private mutating func readRecord() throws(ImportError) {
        if let type = reader.attributeRange("type"), attributeEquals(type, Self.heartRateType) {
            do throws(ImportError) {
                try readHeartRate()
            } catch {
                skippedRecords += 1
                if firstSkippedRecord == nil { firstSkippedRecord = error }
            }
        }
        try reader.skipElement()
    }

    private mutating func readHeartRate() throws(ImportError) {
        let value = try reader.numberAttribute("value")
        var factor = 1.0
        if let unit = reader.attributeRange("unit") {
            if attributeEquals(unit, Self.countPerSecond) {
                factor = 60
            } else if !attributeEquals(unit, Self.countPerMinute) {
                throw ImportError(
                    file: file, line: reader.eventLine, field: "unit",
                    message: "'\(reader.attribute("unit") ?? "")' is not a heart-rate unit (count/min)")
            }
        }
        let start = try timestamp("startDate")
        guard heartRate.add(seconds: start.date.timeIntervalSince1970, bpm: value * factor) else {
            throw ImportError(
                file: file, line: reader.eventLine, field: "value", message: "\(value * factor) bpm at \(start.date) is out of range")
        }
    }

    // MARK: - Workouts

    private mutating func readWorkout() throws(ImportError) {
        let line = reader.eventLine
        let depth = reader.depth
        var failure: ImportError?
        var draft: AppleHealthWorkoutDraft?
        do throws(ImportError) {
            let start = try timestamp("startDate")
            let end = try timestamp("endDate")
            draft = AppleHealthWorkoutDraft(
                line: line, activityTypeName: reader.attribute("workoutActivityType") ?? "",
                sourceName: reader.attribute("sourceName") ?? "", start: start.date, end: end.date, writtenOffset: start.offset)
            draft?.device.duration = quantity("duration", unit: "durationUnit", Self.seconds)
            draft?.device.distance = quantity("totalDistance", unit: "totalDistanceUnit", Self.metres)
            draft?.device.calories = quantity("totalEnergyBurned", unit: "totalEnergyBurnedUnit", Self.kilocalories)
        } catch {
            failure = error
        }
        while try reader.nextChild(of: depth) {
            switch reader.name.local {
            case "MetadataEntry" where reader.depth == depth + 1:
                switch reader.attribute("key") {
                case "HKTimeZone": if let zone = reader.attribute("value") { draft?.timeZoneName = zone }
                // The watch's climb, written as a quantity with its unit: `value="4521 cm"`.
                case "HKElevationAscended": draft?.device.elevationGain = reader.attribute("value").flatMap(Self.metres(inQuantity:))
                default: break
                }
            case "WorkoutStatistics":
                readStatistics(into: &draft)
            case "WorkoutRoute":
                do throws(ImportError) {
                    try readRoute(into: &draft)
                } catch {
                    if failure == nil { failure = error }
                }
            default:
                // WorkoutEvent, WorkoutActivity: looked into for routes, else unused.
                continue
            }
        }
        if let failure {
            errors.append(failure)
        } else if let draft {
            workouts.append(draft)
        }
    }

    /// Reads a `WorkoutRoute`: its `FileReference` paths and its inline `Location`s.
    private mutating func readRoute(into draft: inout AppleHealthWorkoutDraft?) throws(ImportError) {
        let depth = reader.depth
        var points: [RoutePoint] = []
        var failure: ImportError?
        while try reader.nextChild(of: depth) {
            switch reader.name.local {
            case "FileReference":
                guard let path = reader.attribute("path"), !path.isEmpty else {
                    if failure == nil {
                        failure = ImportError(file: file, line: reader.eventLine, field: "path", message: "missing in <FileReference>")
                    }
                    continue
                }
                draft?.routeFiles.append(path)
            case "Location":
                do throws(ImportError) {
                    points.append(try location())
                } catch {
                    if failure == nil { failure = error }
                }
            default:
                continue
            }
        }
        if let failure { throw failure }
        if !points.isEmpty { draft?.inlineSegments.append(points) }
    }

    private func location() throws(ImportError) -> RoutePoint {
        let latitude = try reader.numberAttribute("latitude")
        let longitude = try reader.numberAttribute("longitude")
        guard (-90...90).contains(latitude) else {
            throw ImportError(file: file, line: reader.eventLine, field: "latitude", message: "\(latitude) is outside -90...90")
        }
        guard (-180...180).contains(longitude) else {
            throw ImportError(file: file, line: reader.eventLine, field: "longitude", message: "\(longitude) is outside -180...180")
        }
        var point = RoutePoint(latitude: latitude, longitude: longitude)
        if reader.attributeRange("altitude") != nil { point.elevation = try reader.numberAttribute("altitude") }
        if reader.attributeRange("date") != nil { point.time = try timestamp("date").date }
        return point
    }

    // MARK: - Totals and statistics

    /// A `WorkoutStatistics` element: heart-rate average and maximum, the distance and active
    /// energy sums (newer exports write their totals here instead of on the `Workout`). A value
    /// that cannot be read is left out; the track's figure is used instead.
    private func readStatistics(into draft: inout AppleHealthWorkoutDraft?) {
        guard let type = reader.attribute("type") else { return }
        switch type {
        case "HKQuantityTypeIdentifierHeartRate":
            if let average = quantity("average", unit: "unit", Self.beatsPerMinute) { draft?.device.heartRateAverage = average }
            if let maximum = quantity("maximum", unit: "unit", Self.beatsPerMinute) { draft?.device.heartRateMax = maximum }
        case "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierDistanceCycling",
            "HKQuantityTypeIdentifierDistanceSwimming", "HKQuantityTypeIdentifierDistanceWheelchair",
            "HKQuantityTypeIdentifierDistanceDownhillSnowSports":
            if draft?.device.distance == nil { draft?.device.distance = quantity("sum", unit: "unit", Self.metres) }
        case "HKQuantityTypeIdentifierActiveEnergyBurned":
            if draft?.device.calories == nil { draft?.device.calories = quantity("sum", unit: "unit", Self.kilocalories) }
        default:
            break
        }
    }

    /// A number attribute converted to the feed's unit by `units[unit]`; `nil` when it is absent,
    /// not a number, negative, or in a unit not in the table.
    private func quantity(_ local: String, unit: String, _ units: [String: Double]) -> Double? {
        guard reader.attributeRange(local) != nil, let value = try? reader.numberAttribute(local), value >= 0 else { return nil }
        guard let factor = units[reader.attribute(unit) ?? ""] else { return nil }
        return value * factor
    }

    /// Metres in a metadata quantity such as `4521 cm` or `45.2 m`; `nil` for anything else.
    static func metres(inQuantity text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let value = Double(parts[0]), value.isFinite, value >= 0, let factor = metres[String(parts[1])] else { return nil }
        return value * factor
    }

    private static let seconds: [String: Double] = ["s": 1, "min": 60, "hr": 3600, "h": 3600, "ms": 0.001]
    private static let metres: [String: Double] = ["m": 1, "km": 1000, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144, "cm": 0.01]
    private static let kilocalories: [String: Double] = ["kcal": 1, "Cal": 1, "cal": 0.001, "kJ": 1 / 4.184, "J": 1 / 4184]
    private static let beatsPerMinute: [String: Double] = ["count/min": 1, "count/s": 60, "": 1]

    // MARK: - Values

    /// A date attribute of the current start tag (`2019-06-11 15:00:00 -0700`).
    private func timestamp(_ local: String) throws(ImportError) -> TimestampParser.Timestamp {
        guard let range = reader.attributeRange(local) else {
            throw ImportError(file: file, line: reader.eventLine, field: local, message: "missing in <\(reader.name.local)>")
        }
        let parsed = reader.attributeBytes.withUnsafeBufferPointer { TimestampParser.parse(UnsafeBufferPointer(rebasing: $0[range])) }
        guard let parsed else {
            let value = XMLPullReader.excerpt(reader.attributeBytes[range])
            throw ImportError(file: file, line: reader.eventLine, field: local, message: "not a date: '\(value)'")
        }
        return parsed
    }

    private func attributeEquals(_ range: Range<Int>, _ literal: [UInt8]) -> Bool {
        guard range.count == literal.count else { return false }
        return reader.attributeBytes.withUnsafeBufferPointer { bytes in
            literal.withUnsafeBufferPointer { literal in
                memcmp(bytes.baseAddress! + range.lowerBound, literal.baseAddress!, literal.count) == 0
            }
        }
    }
}
