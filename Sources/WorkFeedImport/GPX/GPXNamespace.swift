/// Namespaces GPX files use, matched by URI: the prefix (`gpxtpx:`, `ns3:`, …) is whatever the
/// exporter chose.
enum GPXNamespace {
    static let gpx10 = "http://www.topografix.com/GPX/1/0"
    static let gpx11 = "http://www.topografix.com/GPX/1/1"
    /// Garmin's TrackPointExtension, which carries `hr` in most exports.
    static let trackPointExtensionV1 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    static let trackPointExtensionV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Garmin's TrackStatsExtension: a track's distance, timer time and more, as the device counted them.
    static let trackStatsExtension = "http://www.garmin.com/xmlschemas/TrackStatsExtension/v1"
    /// ClueTrust's GPXDATA (pytrainer and others): `gpxdata:hr` directly in `<extensions>`.
    static let clueTrust = "http://www.cluetrust.com/XML/GPXDATA/1/0"

    /// Whether a root element in `namespace` is a GPX document: GPX 1.0, 1.1, any later
    /// Topografix GPX namespace, or none (some apps omit `xmlns`).
    static func isGPX(_ namespace: String) -> Bool {
        namespace.isEmpty || namespace == gpx11 || namespace == gpx10 || namespace.hasPrefix("http://www.topografix.com/GPX/")
    }
}
