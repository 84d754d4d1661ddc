/// Makes a route that crosses the antimeridian continuous: each longitude is moved by whole turns
/// to within 180° of the previous point's, so 179.9° followed by -179.9° becomes 180.1°.
struct LongitudeUnwrapper {
    private var previous: Double?

    @inline(__always)
    mutating func unwrap(_ longitude: Double) -> Double {
        guard let previous else {
            self.previous = longitude
            return longitude
        }
        var value = longitude
        let difference = value - previous
        if difference > 180 || difference < -180 {
            value -= 360 * (difference / 360).rounded()
        }
        self.previous = value
        return value
    }
}
