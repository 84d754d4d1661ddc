public import WorkFeedModel

/// Reads FIT activity files (Garmin, Wahoo, COROS, …). One file is one workout.
///
/// - `record` messages make the route (position in semicircles, enhanced or plain altitude) and
///   the heart rate; a record without position adds heart rate only. A timer stop splits the
///   route into segments, so no line is drawn across a pause.
/// - The activity comes from the `session` (or `sport`) message, the source identifier from the
///   `file_id` message's serial number and creation time, the time-zone offset from the
///   `activity` message's local timestamp.
/// - The header CRC (when present) and the file CRC are checked; a field narrower than its base
///   type is ignored, a wider one gives its first value, developer fields are skipped.
public enum FITReader {
    /// Reads one FIT file.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - file: the file's path, used in errors and as the workout's origin.
    /// - Returns: exactly one workout.
    /// - Throws: ``ImportError`` whose field names the byte offset (`offset 7472`) when the file is
    ///   not FIT, is truncated, fails a CRC check or holds a message that cannot be decoded.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        var decoder = FITDecoder(bytes: bytes, file: file)
        return [try decoder.decode()]
    }
}
