public import WorkFeedModel

/// Reads GPX 1.0 and 1.1 files. One file is one workout.
///
/// - Tracks: every `trkseg` of every `trk` is a route segment, in file order. Without track points,
///   the points of every `rte` are used instead (one segment per route). A file with waypoints
///   only is a workout with an empty route, its start and end taken from the waypoints' times.
/// - Heart rate from Garmin's TrackPointExtension v1 and v2, ClueTrust's `gpxdata:hr`, or a bare
///   `<heartrate>`/`<bpm>` in `<extensions>`, matched by namespace URI whatever the prefix. A
///   sample needs the point's time.
/// - The activity comes from the first track's `type`, the name from the first track's `name`,
///   else the file's. GPX has no identifier, so `sourceID` is `nil`.
public enum GPXReader {
    /// Reads one GPX document.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - file: the file's path, used in errors and as the workout's origin.
    /// - Returns: exactly one workout.
    /// - Throws: ``ImportError`` naming the file, line and field when the file is not well-formed
    ///   XML, not GPX, or holds a coordinate, time, elevation or heart rate that cannot be read.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        var parser = GPXParser(reader: XMLPullReader(bytes: bytes, file: file))
        return [try parser.parse()]
    }
}
