public import Foundation

/// The figures the feed shows for a workout without loading its route.
public struct WorkoutSummary: Sendable, Hashable, Codable {
    public var start: Date?
    public var end: Date?
    /// Metres along the route, pauses (gaps between segments) excluded.
    public var distance: Double
    /// Seconds from start to end.
    public var duration: Double?
    /// Metres climbed, counting rises of at least ``elevationNoise`` so that GPS jitter does not add up.
    public var elevationGain: Double?
    public var heartRateAverage: Double?
    public var heartRateMax: Double?
    /// Kilocalories, when the device wrote them.
    public var calories: Double?
    public var pointCount: Int

    /// Rises smaller than this (metres) are treated as noise.
    public static let elevationNoise = 2.0

    /// Computes the summary of a route and its heart-rate samples.
    /// - Parameters:
    ///   - start: the workout's start when the source states it, else the route's first time.
    ///   - end: likewise for the end.
    public init(route: Route, heartRate: [HeartRateSample], start: Date? = nil, end: Date? = nil) {
        var distance = 0.0
        var gain = 0.0
        var sawElevation = false
        var firstTime: Date?
        var lastTime: Date?
        for segment in route.segments {
            var previous: RoutePoint?
            var base: Double?
            for point in segment where point.isValidCoordinate {
                if let time = point.time {
                    if firstTime == nil || time < firstTime! { firstTime = time }
                    if lastTime == nil || time > lastTime! { lastTime = time }
                }
                if let previous { distance += Self.haversine(previous, point) }
                previous = point
                if let elevation = point.elevation {
                    sawElevation = true
                    if let reference = base {
                        if elevation - reference >= Self.elevationNoise {
                            gain += elevation - reference
                            base = elevation
                        } else if elevation < reference {
                            base = elevation
                        }
                    } else {
                        base = elevation
                    }
                }
            }
        }
        self.start = start ?? firstTime ?? heartRate.first?.time
        self.end = end ?? lastTime ?? heartRate.last?.time
        self.distance = distance
        if let s = self.start, let e = self.end { duration = e.timeIntervalSince(s) } else { duration = nil }
        elevationGain = sawElevation ? gain : nil
        if heartRate.isEmpty {
            heartRateAverage = nil
            heartRateMax = nil
        } else {
            heartRateAverage = heartRate.reduce(0) { $0 + $1.bpm } / Double(heartRate.count)
            heartRateMax = heartRate.map(\.bpm).max()
        }
        pointCount = route.pointCount
    }

    /// The summary of a workout: the device's figures where the file has them, the track's
    /// (``init(route:heartRate:start:end:)``) for the rest.
    public init(route: Route, heartRate: [HeartRateSample], start: Date? = nil, end: Date? = nil, device: DeviceSummary?) {
        self.init(route: route, heartRate: heartRate, start: start, end: end)
        guard let device = device?.sanitized() else { return }
        if let distance = device.distance { self.distance = distance }
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
