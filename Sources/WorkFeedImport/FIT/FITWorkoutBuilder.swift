import Foundation
import WorkFeedModel

/// Gathers what the messages of a FIT file say about the workout.
struct FITWorkoutBuilder {
    /// Seconds from 1970-01-01 to FIT's epoch, 1989-12-31T00:00:00Z.
    static let epoch = 631_065_600.0
    /// Degrees per semicircle: 2^31 semicircles make 180°.
    static let degreesPerSemicircle = 180.0 / 2_147_483_648.0

    private var segments: [[RoutePoint]] = [[]]
    private var heartRate: [HeartRateSample] = []
    /// Set by a timer stop: the next point starts a new segment, so no line crosses the pause.
    private var splitPending = false
    private var earliest: UInt32?
    private var latest: UInt32?
    var sessionSport: Int64?
    var sportMessageSport: Int64?
    var serialNumber: Int64?
    var timeCreated: Int64?
    var timeZoneOffset: Int?

    static func date(_ timestamp: UInt32) -> Date {
        Date(timeIntervalSince1970: epoch + Double(timestamp))
    }

    /// Adds a `record` message. Without a valid position it only contributes heart rate and time.
    mutating func addRecord(timestamp: UInt32?, latitude: Int64?, longitude: Int64?, altitude: Double?, heartRate bpm: Int64?) {
        let time = timestamp.map(Self.date)
        if let timestamp {
            earliest = min(earliest ?? timestamp, timestamp)
            latest = max(latest ?? timestamp, timestamp)
        }
        if let time, let bpm, bpm > 0 {
            heartRate.append(HeartRateSample(time: time, bpm: Double(bpm)))
        }
        guard let latitude, let longitude else { return }
        let point = RoutePoint(
            latitude: Double(latitude) * Self.degreesPerSemicircle, longitude: Double(longitude) * Self.degreesPerSemicircle,
            elevation: altitude, time: time)
        // Semicircles can express latitudes past the poles; such a value is corrupt, not a place.
        guard point.isValidCoordinate else { return }
        if splitPending {
            if !(segments.last?.isEmpty ?? true) { segments.append([]) }
            splitPending = false
        }
        segments[segments.count - 1].append(point)
    }

    /// A timer stop (an `event` message): the route pauses here.
    mutating func timerStopped() {
        splitPending = true
    }

    func workout(origin: String) -> ImportedWorkout {
        var sourceID: String?
        if let timeCreated {
            sourceID = serialNumber.map { "\($0)-\(timeCreated)" } ?? "\(timeCreated)"
        }
        return ImportedWorkout(
            source: .fit, sourceID: sourceID, activity: FITSport.activity(sessionSport ?? sportMessageSport),
            route: Route(segments: segments), heartRate: heartRate, start: earliest.map(Self.date), end: latest.map(Self.date),
            timeZoneOffset: timeZoneOffset, origin: origin)
    }
}
