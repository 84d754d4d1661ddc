import Foundation

/// Whether two tracks are the same way travelled: the test behind "the same activity from two
/// files" (a ride exported as GPX and as FIT). Sampling rates, pauses and the exporter's
/// precision differ between copies, so points are not compared one to one; instead each point of
/// the sparser track is looked up near the other track's line.
public enum RouteOverlap {
    /// A point counts as on the other track within this many metres of its line.
    public static let tolerance = 50.0
    /// The share of the sparser track's points that must lie on the other track.
    public static let requiredShare = 0.5
    /// Points sampled from each track at most, so that the test costs the same for any length.
    static let sampleLimit = 400

    /// The share (0...1) of the sparser route's points lying within ``tolerance`` of the other
    /// route's line; 0 when either has no valid point.
    public static func share(_ first: Route, _ second: Route) -> Double {
        let a = sample(first)
        let b = sample(second)
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        let (points, line) = a.count <= b.count ? (a, b) : (b, a)
        // A local plane around the routes: metres east and north of the first point.
        let origin = line[0]
        let metresPerDegree = 111_195.0
        let cosine = max(0.01, cos(origin.latitude * .pi / 180))
        func planar(_ point: RoutePoint) -> (x: Double, y: Double) {
            var dLon = point.longitude - origin.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * metresPerDegree * cosine, (point.latitude - origin.latitude) * metresPerDegree)
        }
        let linePoints = line.map(planar)
        var near = 0
        for point in points.map(planar) {
            var best = Double.infinity
            if linePoints.count == 1 {
                best = hypot(point.x - linePoints[0].x, point.y - linePoints[0].y)
            }
            for index in linePoints.indices.dropFirst() {
                best = min(best, distance(point, linePoints[index - 1], linePoints[index]))
                if best <= tolerance { break }
            }
            if best <= tolerance { near += 1 }
        }
        return Double(near) / Double(points.count)
    }

    /// Whether the two routes overlap enough to be the same activity.
    public static func overlaps(_ first: Route, _ second: Route) -> Bool {
        share(first, second) >= requiredShare
    }

    /// Up to ``sampleLimit`` valid points, evenly spread, segments joined (a gap between
    /// segments is short next to the tolerance for the same activity).
    private static func sample(_ route: Route) -> [RoutePoint] {
        let valid = route.points.filter(\.isValidCoordinate)
        guard valid.count > sampleLimit else { return valid }
        let step = Double(valid.count - 1) / Double(sampleLimit - 1)
        return (0..<sampleLimit).map { valid[min(valid.count - 1, Int((Double($0) * step).rounded()))] }
    }

    /// Distance from `p` to the segment `a`-`b` in the plane.
    private static func distance(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let length = dx * dx + dy * dy
        guard length > 0 else { return hypot(p.x - a.x, p.y - a.y) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length))
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }
}
