public import WorkFeedModel

public enum FITReader {
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        throw ImportError(file: file, message: "FIT: not yet")
    }
}
