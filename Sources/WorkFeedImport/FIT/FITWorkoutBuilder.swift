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
    /// `file_id` `manufacturer`: tells how the altitudes were measured (``AltitudeSource``).
    var manufacturer: Int64?
    var timeZoneOffset: Int?
    /// The sessions' totals, summed over the sessions (a multisport file has several).
    private var sessions = 0
    private var timerMilliseconds: Int64?
    private var distanceCentimetres: Int64?
    private var calories: Int64?
    private var ascentMetres: Int64?
    /// Heart-rate average weighted by each session's timer time, and the highest maximum.
    private var heartRateWeighted: (sum: Double, weight: Double)?
    private var heartRateMax: Int64?

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

    /// A `session` message: the device's own summary of (part of) the workout. Values come from
    /// the decoder already checked against FIT's invalid markers; they are summed in `Int64`,
    /// which the fields' widths (32 bits at most) cannot overflow.
    mutating func addSession(
        timer: Int64?, distance: Int64?, calories sessionCalories: Int64?, averageHeartRate: Int64?, maximumHeartRate: Int64?,
        ascent: Int64?
    ) {
        sessions += 1
        if let ascent { ascentMetres = (ascentMetres ?? 0) + ascent }
        if let timer { timerMilliseconds = (timerMilliseconds ?? 0) + timer }
        if let distance { distanceCentimetres = (distanceCentimetres ?? 0) + distance }
        if let sessionCalories { calories = (calories ?? 0) + sessionCalories }
        if let averageHeartRate, averageHeartRate > 0 {
            let weight = Double(max(1, timer ?? 1))
            let previous = heartRateWeighted ?? (0, 0)
            heartRateWeighted = (previous.sum + Double(averageHeartRate) * weight, previous.weight + weight)
        }
        if let maximumHeartRate, maximumHeartRate > 0 { heartRateMax = max(heartRateMax ?? 0, maximumHeartRate) }
    }

    /// The sessions' figures, `nil` without a session.
    var device: DeviceSummary? {
        guard sessions > 0 else { return nil }
        return DeviceSummary(
            source: "FIT session", distance: distanceCentimetres.map { Double($0) / 100 },
            duration: timerMilliseconds.map { Double($0) / 1000 }, calories: calories.map(Double.init),
            heartRateAverage: heartRateWeighted.map { $0.sum / $0.weight }, heartRateMax: heartRateMax.map(Double.init),
            elevationGain: ascentMetres.map(Double.init)
        ).sanitized()
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
            route: Route(segments: segments, altitudeSource: AltitudeSource(fitManufacturer: manufacturer)), heartRate: heartRate,
            start: earliest.map(Self.date), end: latest.map(Self.date),
            timeZoneOffset: timeZoneOffset, origin: origin, device: device)
    }
}
