import Foundation
import WorkFeedModel

/// A deterministic, real-looking workout: a 1 Hz run along gently curving streets with the odd
/// right-angle corner, that heads home in
/// time to finish where it started (a loop), two pauses (three segments), GPS noise, and a heart rate every
/// 5 s that climbs through every zone and back.
struct SyntheticWorkout {
    var route: Route
    var heartRate: [HeartRateSample]

    init(points: Int, seed: UInt64 = 0x5EED) {
        var random = SplitMix64(seed: seed)
        let origin = (latitude: 59.3293, longitude: 18.0686)
        let start = Date(timeIntervalSinceReferenceDate: 785_000_000)
        let metresPerDegree = 111_320.0
        var east = 0.0
        var north = 0.0
        var heading = random.uniform() * 2 * .pi
        var turn = 0.0
        var segments: [[RoutePoint]] = [[]]
        var time = 0.0
        let pauses = [points / 3, 2 * points / 3]
        for index in 0..<points {
            if pauses.contains(index), index > 0 {
                segments.append([])
                time += 90
                east += 40 * cos(heading)
                north += 40 * sin(heading)
            }
            let progress = Double(index) / Double(max(points - 1, 1))
            // Gentle curves, and now and then a street corner.
            turn = 0.95 * turn + 0.003 * random.gaussian()
            heading += turn
            if random.uniform() < 1.0 / 400 { heading += random.uniform() < 0.5 ? .pi / 2 : -.pi / 2 }
            let remaining = 3.0 * Double(points - index)
            let distanceHome = (east * east + north * north).squareRoot()
            if remaining < 1.4 * distanceHome {
                // Steer back towards the start in time to arrive at the end: the route is a loop.
                let home = atan2(-north, -east)
                heading += 0.05 * remainder(home - heading, 2 * .pi)
            }
            let speed = 3.0 + 0.5 * sin(progress * 9)
            east += speed * cos(heading)
            north += speed * sin(heading)
            let latitude = origin.latitude + (north + 0.4 * random.gaussian()) / metresPerDegree
            let longitude =
                origin.longitude
                + (east + 0.4 * random.gaussian()) / (metresPerDegree * cos(origin.latitude * .pi / 180))
            segments[segments.count - 1].append(
                RoutePoint(
                    latitude: latitude, longitude: longitude, elevation: 20 + 10 * sin(progress * 5),
                    time: start.addingTimeInterval(time)))
            time += 1
        }
        route = Route(segments: segments)
        heartRate = stride(from: 0.0, through: time, by: 5).map { t in
            let progress = t / max(time, 1)
            let bpm = 125 + 65 * sin(progress * .pi * 3 - 0.6) + 3 * random.gaussian()
            return HeartRateSample(time: start.addingTimeInterval(t), bpm: bpm)
        }
    }

    /// `segment,latitude,longitude` rows, for docs/bench/cairo_reference.py.
    var csv: String {
        var out = "segment,latitude,longitude\n"
        for (index, segment) in route.segments.enumerated() {
            for point in segment { out += "\(index),\(point.latitude),\(point.longitude)\n" }
        }
        return out
    }
}
