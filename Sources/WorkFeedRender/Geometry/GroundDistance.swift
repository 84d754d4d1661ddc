/// Distance on the ground between two nearby points (equirectangular approximation), used to cut
/// heatmaps into pieces of equal length.
///
/// `eastScale` is the cosine of one latitude for the whole route (its first usable point): within
/// the few kilometres a workout spans it varies by well under a percent, which moves piece
/// boundaries by less than a pixel, and it saves a cosine per point. Both passes over the route
/// call this same function with the same scale, so their running totals agree bit for bit.
@inline(__always)
func groundDistance(
    latitude a: Double, longitude aLon: Double, latitude b: Double, longitude bLon: Double, eastScale: Double
) -> Double {
    let north = b - a
    let east = (bLon - aLon) * eastScale
    return (north * north + east * east).squareRoot() * (WebMercator.earthCircumference / 360)
}
