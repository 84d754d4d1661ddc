import Foundation

/// Web Mercator y for the latitudes of one route, without a `tan` and a `log` per point.
///
/// Within a couple of degrees of a reference latitude, y is a short Taylor series in the offset
/// (the derivatives of the inverse Gudermannian). Over a 2° span six terms stay within 1e-7 of the
/// span's own height (2e-8 at 78°, far less nearer the equator): under a ten-thousandth of a
/// pixel at the largest picture the renderer draws. Routes that span more, or reach nearer the
/// poles, use the exact formula.
struct LocalMercator {
    private let reference: Double
    private let referenceY: Double
    /// Coefficients of h, h², ... h⁶ (h in radians), already divided by -2π for world units.
    private let coefficients: (Double, Double, Double, Double, Double, Double)?

    static let maximumSpan = 2.0
    static let maximumLatitude = 80.0

    init(minLatitude: Double, maxLatitude: Double) {
        let middle = (minLatitude + maxLatitude) / 2
        reference = middle * .pi / 180
        referenceY = WebMercator.y(latitude: middle)
        guard maxLatitude - minLatitude <= Self.maximumSpan, abs(middle) + Self.maximumSpan <= Self.maximumLatitude else {
            coefficients = nil
            return
        }
        let s = 1 / cos(reference)
        let t = tan(reference)
        let s3 = s * s * s
        let s5 = s3 * s * s
        let derivatives = (
            s,
            s * t,
            s * (t * t + s * s),
            s * t * t * t + 5 * s3 * t,
            s * t * t * t * t + 18 * s3 * t * t + 5 * s5,
            s * t * t * t * t * t + 58 * s3 * t * t * t + 61 * s5 * t
        )
        let k = -1 / (2 * Double.pi)
        coefficients = (
            derivatives.0 * k, derivatives.1 / 2 * k, derivatives.2 / 6 * k,
            derivatives.3 / 24 * k, derivatives.4 / 120 * k, derivatives.5 / 720 * k
        )
    }

    @inline(__always)
    func y(latitude: Double) -> Double {
        guard let c = coefficients else { return WebMercator.y(latitude: latitude) }
        let h = latitude * (.pi / 180) - reference
        return referenceY + h * (c.0 + h * (c.1 + h * (c.2 + h * (c.3 + h * (c.4 + h * c.5)))))
    }
}
