public import WorkFeedModel

/// Reads Garmin Training Center (TCX) files: one workout per `Activity`, and one per `Course`.
///
/// - Every `Track` (inside a `Lap` for activities) is a route segment; exporters repeat a point
///   at lap boundaries, so a TCX route can have a few more points than the same ride as GPX.
/// - A `Trackpoint` without `Position` (indoor, pool, GPS lost) adds no route point but still
///   carries its heart rate and time.
/// - The activity comes from the `Sport` attribute, the source identifier from `Id` (the start
///   time, by the schema), start and end from the earliest and latest trackpoint times.
public enum TCXReader {
    /// Reads one TCX document.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - file: the file's path, used in errors and as the workouts' origin.
    /// - Returns: the activities, then the courses, in file order; empty when the file has
    ///   neither (a file of planned workouts only).
    /// - Throws: ``ImportError`` naming the file, line and field when the file is not well-formed
    ///   XML, not TCX, or holds a value that cannot be read.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        var parser = TCXParser(reader: XMLPullReader(bytes: bytes, file: file))
        return try parser.parse()
    }
}
