import Foundation
import WorkFeedModel

/// The first pass over a route: which points are usable, how far the route reaches, when it
/// happened and how long it is. It needs no projection and allocates nothing, so the second pass
/// can project straight into pixels without keeping projected points around.
struct RouteScan {
    var totalPoints = 0
    /// Points with finite, in-range coordinates (0/0 included).
    var validPoints = 0
    /// Valid points that are not 0/0.
    var realPoints = 0
    var nullIslandPoints = 0

    /// Bounds of the usable points; longitudes unwrapped across the antimeridian.
    var minLatitude = Double.infinity
    var maxLatitude = -Double.infinity
    var minLongitude = Double.infinity
    var maxLongitude = -Double.infinity

    /// Earliest and latest timestamp of a usable point (seconds since the reference date).
    var firstTime = Double.infinity
    var lastTime = -Double.infinity
    /// Sum of ground distances between consecutive usable points of each segment, in metres;
    /// only measured when asked for.
    var length = 0.0
    /// The cosine of the first usable point's latitude, which ``groundDistance`` scales longitudes by.
    var eastScale = 1.0

    /// 0/0 points are dropped only when the route has other, real points: a route made only of
    /// 0/0 points is reported as a single place rather than as invalid.
    var dropsNullIsland: Bool { realPoints > 0 }
    var usablePoints: Int { realPoints > 0 ? realPoints : nullIslandPoints }
    var invalidPoints: Int { totalPoints - usablePoints }
    var hasTimeSpan: Bool { firstTime <= lastTime }

    init(route: Route, measuresLength: Bool) {
        var unwrapper = LongitudeUnwrapper()
        var eastScale: Double?
        for segment in route.segments {
            var previous: (latitude: Double, longitude: Double)?
            for point in segment {
                totalPoints += 1
                guard point.isValidCoordinate else { continue }
                validPoints += 1
                if point.isNullIsland {
                    nullIslandPoints += 1
                    continue
                }
                realPoints += 1
                let longitude = unwrapper.unwrap(point.longitude)
                minLatitude = min(minLatitude, point.latitude)
                maxLatitude = max(maxLatitude, point.latitude)
                minLongitude = min(minLongitude, longitude)
                maxLongitude = max(maxLongitude, longitude)
                if let time = point.time?.timeIntervalSinceReferenceDate, time.isFinite {
                    firstTime = min(firstTime, time)
                    lastTime = max(lastTime, time)
                }
                if measuresLength {
                    let scale = eastScale ?? cos(point.latitude * .pi / 180)
                    eastScale = scale
                    if let previous {
                        length += groundDistance(
                            latitude: previous.latitude, longitude: previous.longitude,
                            latitude: point.latitude, longitude: longitude, eastScale: scale)
                    }
                }
                previous = (point.latitude, longitude)
            }
        }
        self.eastScale = eastScale ?? 1
        if realPoints == 0, nullIslandPoints > 0 {
            (minLatitude, maxLatitude, minLongitude, maxLongitude) = (0, 0, 0, 0)
        }
    }

    /// The deterministic reasons a route cannot be drawn, in the order they are checked.
    func validate() throws(RenderFailure) {
        if totalPoints == 0 { throw .noRoute }
        if validPoints == 0 { throw .everyPointInvalid }
        if usablePoints < 2 { throw .fewerThanTwoUsablePoints }
    }
}
