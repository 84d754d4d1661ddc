import Foundation
import Testing
import WorkFeedModel

/// What a fixture must read as. The values were worked out apart from the readers under test (a
/// Python script over `xml.etree` for GPX and TCX, a separate FIT walker), not copied from their output.
struct Expected: Sendable, CustomTestStringConvertible {
    struct Point: Sendable {
        var latitude: Double
        var longitude: Double
        /// Seconds since 1970, `nil` when the point has no time.
        var time: Double?

        init(_ latitude: Double, _ longitude: Double, _ time: Double?) {
            self.latitude = latitude
            self.longitude = longitude
            self.time = time
        }
    }

    var file: String
    var points: Int
    var segments: Int
    var heartRate: Int
    var activity: ActivityType
    var name: String?
    var timeZoneOffset: Int?
    var first: Point?
    var last: Point?
    var start: Double?
    var end: Double?
    var sourceID: String?

    init(
        _ file: String, points: Int, segments: Int, heartRate: Int, activity: ActivityType, name: String? = nil,
        timeZoneOffset: Int? = nil, first: Point?, last: Point?, start: Double? = nil, end: Double? = nil,
        sourceID: String? = nil
    ) {
        self.file = file
        self.points = points
        self.segments = segments
        self.heartRate = heartRate
        self.activity = activity
        self.name = name
        self.timeZoneOffset = timeZoneOffset
        self.first = first
        self.last = last
        self.start = start
        self.end = end
        self.sourceID = sourceID
    }

    var testDescription: String { file }

    /// Checks everything but the source and identifier, which differ by format.
    func check(_ workout: ImportedWorkout, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(workout.route.pointCount == points, "points", sourceLocation: sourceLocation)
        #expect(workout.route.segments.count == segments, "segments", sourceLocation: sourceLocation)
        #expect(workout.heartRate.count == heartRate, "heart-rate samples", sourceLocation: sourceLocation)
        #expect(workout.activity == activity, "activity", sourceLocation: sourceLocation)
        #expect(workout.timeZoneOffset == timeZoneOffset, "time-zone offset", sourceLocation: sourceLocation)
        let points = Array(workout.route.points)
        Self.check(points.first, first, "first point", sourceLocation)
        Self.check(points.last, last, "last point", sourceLocation)
        Self.check(workout.start, start, "start", sourceLocation)
        Self.check(workout.end, end, "end", sourceLocation)
        #expect(workout.heartRate.allSatisfy { $0.bpm > 0 && $0.bpm < 300 }, "plausible bpm", sourceLocation: sourceLocation)
    }

    static func check(_ actual: RoutePoint?, _ expected: Point?, _ what: String, _ sourceLocation: SourceLocation) {
        guard let expected else {
            #expect(actual == nil, "\(what) should be absent", sourceLocation: sourceLocation)
            return
        }
        guard let actual else {
            Issue.record("\(what) missing", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(actual.latitude - expected.latitude) < 1e-9, "\(what) latitude", sourceLocation: sourceLocation)
        #expect(abs(actual.longitude - expected.longitude) < 1e-9, "\(what) longitude", sourceLocation: sourceLocation)
        check(actual.time, expected.time, "\(what) time", sourceLocation)
    }

    static func check(_ actual: Date?, _ expected: Double?, _ what: String, _ sourceLocation: SourceLocation) {
        switch (actual, expected) {
        case (nil, nil):
            break
        case (let actual?, let expected?):
            #expect(abs(actual.timeIntervalSince1970 - expected) < 0.001, "\(what): \(actual)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(what): \(String(describing: actual)) but expected \(String(describing: expected))", sourceLocation: sourceLocation)
        }
    }
}
