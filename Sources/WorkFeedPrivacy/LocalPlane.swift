import Foundation
import WorkFeedModel

/// Metres east and north of an origin on a flat plane (the equirectangular projection around it):
/// the geometry of privacy zones.
///
/// A zone is at most 2 km across (plus its secret jitter, under 4 km), so a plane around its
/// centre is exact enough: within 4 km of the origin the scale error is below 0.1 % up to 70°
/// latitude, under a metre, and the secret margin of every hidden circle (at least 5 % of the
/// zone's radius, see ``PrivacyPolicy/radiusMarginFraction``) is far larger. The plane keeps the
/// cut a matter of lines and circles: where a step leaves a circle is a quadratic's root, and a
/// point interpolated linearly in degrees lies on the same straight step in the plane.
///
/// Not for the poles: east-west scale is clamped at 1 % (latitudes beyond about 89.4°).
struct LocalPlane {
    /// Metres per degree of latitude on a sphere of the Earth's mean radius, 6 371 008.8 m.
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    let latitude: Double
    let longitude: Double
    /// Metres per degree of longitude at the origin's latitude.
    let metresPerDegreeEast: Double

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        metresPerDegreeEast = Self.metresPerDegree * max(0.01, cos(latitude * .pi / 180))
    }

    /// The point's metres east (`x`) and north (`y`) of the origin.
    func project(latitude: Double, longitude: Double) -> SIMD2<Double> {
        SIMD2(
            Self.wrapped(longitude - self.longitude) * metresPerDegreeEast,
            (latitude - self.latitude) * Self.metresPerDegree
        )
    }

    func project(_ point: RoutePoint) -> SIMD2<Double> { project(latitude: point.latitude, longitude: point.longitude) }

    /// The coordinates of the point `offset` metres east and north of the origin.
    func coordinates(of offset: SIMD2<Double>) -> (latitude: Double, longitude: Double) {
        let latitude = min(90, max(-90, self.latitude + offset.y / Self.metresPerDegree))
        return (latitude, Self.wrapped(longitude + offset.x / metresPerDegreeEast))
    }

    /// The length of one step of a route in metres, in the plane at the step's middle latitude:
    /// route steps are metres long, where this equals the great-circle distance to well under a
    /// millimetre.
    static func stepLength(_ a: RoutePoint, _ b: RoutePoint) -> Double {
        let plane = LocalPlane(latitude: (a.latitude + b.latitude) / 2, longitude: a.longitude)
        let east = wrapped(b.longitude - a.longitude) * plane.metresPerDegreeEast
        let north = (b.latitude - a.latitude) * metresPerDegree
        return (east * east + north * north).squareRoot()
    }

    /// The point `fraction` (0...1) of the way along the step from `a` to `b`, across the
    /// antimeridian the short way. Elevation and time are interpolated too, and are `nil` when
    /// either end lacks them. The ends themselves are returned unchanged.
    static func interpolate(_ a: RoutePoint, _ b: RoutePoint, fraction: Double) -> RoutePoint {
        if fraction <= 0 { return a }
        if fraction >= 1 { return b }
        func along(_ from: Double, _ to: Double) -> Double { from + fraction * (to - from) }
        var time: Date?
        if let start = a.time, let end = b.time {
            time = Date(timeIntervalSince1970: along(start.timeIntervalSince1970, end.timeIntervalSince1970))
        }
        var elevation: Double?
        if let start = a.elevation, let end = b.elevation { elevation = along(start, end) }
        return RoutePoint(
            latitude: along(a.latitude, b.latitude),
            longitude: wrapped(a.longitude + fraction * wrapped(b.longitude - a.longitude)),
            elevation: elevation,
            time: time
        )
    }

    /// Degrees of longitude brought into -180...180.
    static func wrapped(_ degrees: Double) -> Double {
        degrees > 180 ? degrees - 360 : degrees < -180 ? degrees + 360 : degrees
    }
}
