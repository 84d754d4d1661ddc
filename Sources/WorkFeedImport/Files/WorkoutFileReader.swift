public import Foundation
public import WorkFeedModel

/// Reads workout files of any supported format: GPX, TCX and FIT.
///
/// ```swift
/// for url in try WorkoutFileReader.collectFiles(["~/Exports"]) {
///     let workouts = try WorkoutFileReader.read(contentsOf: url)
/// }
/// ```
public enum WorkoutFileReader {
    /// Reads one file, choosing the format by its content (sniffing), falling back to the
    /// extension when the content is not recognized.
    /// - Returns: the workouts in the file: one for GPX and FIT, one per activity or course for TCX.
    /// - Throws: ``ImportError`` when the file cannot be read, its format is unknown or
    ///   unsupported, or its content is broken; never a partial result.
    public static func read(contentsOf url: URL) throws(ImportError) -> [ImportedWorkout] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImportError(file: url.path, message: "cannot read the file: \(error.localizedDescription)")
        }
        return try read(bytes: [UInt8](data), file: url.path)
    }

    /// Reads one file's bytes.
    /// - Parameter file: the file's path, used in errors, as the workouts' origin and for its
    ///   extension when the content is not recognized.
    /// - Throws: ``ImportError``, as ``read(contentsOf:)``.
    public static func read(bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        guard !bytes.isEmpty else { throw ImportError(file: file, message: "the file is empty") }
        let pathExtension = URL(fileURLWithPath: file).pathExtension
        guard let format = WorkoutFormat.sniff(bytes) ?? WorkoutFormat(pathExtension: pathExtension) else {
            throw ImportError(file: file, message: "unknown file format: expected GPX, TCX or FIT")
        }
        switch format {
        case .gpx:
            return try GPXReader.read(bytes, file: file)
        case .tcx:
            return try TCXReader.read(bytes, file: file)
        case .fit:
            return try FITReader.read(bytes, file: file)
        case .appleHealth:
            throw ImportError(file: file, message: "an Apple Health export.xml: not supported by this reader yet")
        case .zip:
            throw ImportError(file: file, message: "a zip archive: not supported yet, unzip it first")
        }
    }
}
