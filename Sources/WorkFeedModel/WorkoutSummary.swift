public import Foundation

/// The figures the feed shows for a workout without loading its route.
public struct WorkoutSummary: Sendable, Hashable, Codable {
    public var start: Date?
    public var end: Date?
    /// Metres: the device's where it wrote them, else along the route with pauses (gaps between
    /// segments) and GPS jumps left out (``TrackFigures/distance(of:)``).
    public var distance: Double
    /// Seconds from start to end.
    public var duration: Double?
    /// Metres climbed: the device's total where it wrote one, else the track's
    /// (``TrackFigures/elevationGain(of:rule:)``).
    public var elevationGain: Double?
    /// Beats a minute, readings of 0 (no reading) left out.
    public var heartRateAverage: Double?
    public var heartRateMax: Double?
    /// Kilocalories, when the device wrote them.
    public var calories: Double?
    public var pointCount: Int

    /// Computes the summary of a route and its heart-rate samples.
    /// - Parameters:
    ///   - start: the workout's start when the source states it, else the route's first time.
    ///   - end: likewise for the end.
    public init(route: Route, heartRate: [HeartRateSample], start: Date? = nil, end: Date? = nil) {
        var firstTime: Date?
        var lastTime: Date?
        for segment in route.segments {
            for point in segment where point.isValidCoordinate {
                guard let time = point.time else { continue }
                if firstTime == nil || time < firstTime! { firstTime = time }
                if lastTime == nil || time > lastTime! { lastTime = time }
            }
        }
        // A reading of 0 (or less) is no reading: chest straps and apps write 0 when no sensor is paired.
        let readings = heartRate.lazy.map(\.bpm).filter { $0 > 0 && $0.isFinite }
        self.start = start ?? firstTime ?? heartRate.first?.time
        self.end = end ?? lastTime ?? heartRate.last?.time
        distance = TrackFigures.distance(of: route)
        if let s = self.start, let e = self.end { duration = e.timeIntervalSince(s) } else { duration = nil }
        elevationGain = TrackFigures.elevationGain(of: route)
        var count = 0
        var sum = 0.0
        var maximum: Double?
        for bpm in readings {
            count += 1
            sum += bpm
            maximum = max(maximum ?? bpm, bpm)
        }
        heartRateAverage = count == 0 ? nil : sum / Double(count)
        heartRateMax = maximum
        pointCount = route.pointCount
    }

    /// The summary of a workout: the device's figures where the file has them, the track's
    /// (``init(route:heartRate:start:end:)``) for the rest.
    public init(route: Route, heartRate: [HeartRateSample], start: Date? = nil, end: Date? = nil, device: DeviceSummary?) {
        self.init(route: route, heartRate: heartRate, start: start, end: end)
        self = applying(device?.shown(trackElevationGain: elevationGain))
    }

    /// This (track) summary with the device's figures in place of the track's where the device
    /// has them. `device` should come from ``DeviceSummary/shown(trackElevationGain:)``.
    public func applying(_ device: DeviceSummary?) -> WorkoutSummary {
        var summary = self
        guard let device else { return summary }
        summary.apply(device)
        return summary
    }

    private mutating func apply(_ device: DeviceSummary) {
        if let distance = device.distance { self.distance = distance }
        if let elevationGain = device.elevationGain { self.elevationGain = elevationGain }
        if let duration = device.duration { self.duration = duration }
        calories = device.calories
        if device.heartRateAverage != nil || device.heartRateMax != nil {
            heartRateAverage = device.heartRateAverage
            heartRateMax = device.heartRateMax
        }
    }

    /// Great-circle distance in metres on a sphere of the Earth's mean radius.
    public static func haversine(_ a: RoutePoint, _ b: RoutePoint) -> Double {
        let radius = 6_371_008.8
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians
        let dLon = (b.longitude - a.longitude) * toRadians
        let h =
            sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, h.squareRoot()))
    }
}
