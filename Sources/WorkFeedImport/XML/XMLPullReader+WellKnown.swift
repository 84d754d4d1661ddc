/// Namespace URIs and long names that workout files repeat on every point.
extension XMLPullReader {
    /// String literals are immortal: copying one costs no reference counting, where a string
    /// built at run time and longer than 15 bytes is retained and released at every copy. Names
    /// matched here are stored as the literal, which is measurably faster on every element.
    private static let wellKnownStrings: [String] = [
        "http://www.topografix.com/GPX/1/0",
        "http://www.topografix.com/GPX/1/1",
        "http://www.garmin.com/xmlschemas/TrackPointExtension/v1",
        "http://www.garmin.com/xmlschemas/TrackPointExtension/v2",
        "http://www.garmin.com/xmlschemas/GpxExtensions/v3",
        "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2",
        "http://www.garmin.com/xmlschemas/ActivityExtension/v2",
        "http://www.cluetrust.com/XML/GPXDATA/1/0",
        "http://www.w3.org/2001/XMLSchema-instance",
        "TrackPointExtension",
        "LongitudeDegrees",
        "TrainingCenterDatabase",
    ]

    /// `string`, or the equal literal when it is a well-known one.
    static func wellKnown(_ string: String) -> String {
        guard string.utf8.count > 15 else { return string }
        return wellKnownStrings.first { $0 == string } ?? string
    }
}
