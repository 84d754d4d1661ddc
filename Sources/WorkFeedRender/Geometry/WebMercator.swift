import Foundation

/// Web Mercator (EPSG:3857) in "world units": the whole world is 1 wide, x grows east and y
/// grows south, as on screen.
enum WebMercator {
    /// Where the square Web Mercator world ends; latitudes beyond it are clamped.
    static let maximumLatitude = 85.05112878
    /// Earth's equatorial circumference, to convert world units to metres at a latitude.
    static let earthCircumference = 40_075_016.686

    /// x of an (unwrapped) longitude; it may leave 0...1 for routes that cross the antimeridian.
    @inline(__always)
    static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

    @inline(__always)
    static func y(latitude: Double) -> Double {
        let clamped = min(max(latitude, -maximumLatitude), maximumLatitude)
        let phi = clamped * .pi / 180
        return 0.5 - log(tan(.pi / 4 + phi / 2)) / (2 * .pi)
    }

    /// Metres on the ground per world unit around `latitude` (Mercator stretches by 1/cos).
    static func metresPerUnit(latitude: Double) -> Double {
        let clamped = min(max(latitude, -maximumLatitude), maximumLatitude)
        return earthCircumference * cos(clamped * .pi / 180)
    }
}
