import Foundation
import WorkFeedModel

/// The original workout files, kept beside the pictures so that `workctl reimport` can read them
/// again: `<cache>/files/<first two hex digits>/<sha256>.gz`, gzip-compressed as workctl sent
/// them, one file per distinct content however many workouts came from it.
///
/// Names come from the SHA-256 alone, checked to be 64 lower-case hex digits, so nothing from the
/// wire becomes a path of its own. Writes go to a temporary file in the same folder, are synced
/// and renamed: a reader never sees half a file.
struct OriginalFileStore {
    let directory: String

    init(cacheDirectory: String) {
        directory = cacheDirectory + "/files"
    }

    /// Whether `sha256` is a hash this store can name a file by.
    static func isValidHash(_ sha256: String) -> Bool {
        sha256.utf8.count == 64 && sha256.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    func path(for sha256: String) -> String? {
        guard Self.isValidHash(sha256) else { return nil }
        return "\(directory)/\(sha256.prefix(2))/\(sha256).gz"
    }

    func contains(_ sha256: String) -> Bool {
        path(for: sha256).map { FileManager.default.fileExists(atPath: $0) } ?? false
    }

    /// Stores a compressed original unless one with this hash is already there.
    /// - Throws: when the folder or the file cannot be written.
    func store(_ compressed: [UInt8], sha256: String) throws {
        guard let path = path(for: sha256) else { throw CocoaError(.fileWriteInvalidFileName) }
        if FileManager.default.fileExists(atPath: path) { return }
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = "\(folder)/.\(sha256).\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? handle.close() }
            try handle.write(contentsOf: compressed)
            try handle.synchronize()
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            if FileManager.default.fileExists(atPath: path) { return }
            throw error
        }
    }

    /// The compressed original, or `nil` when it is not kept.
    func read(_ sha256: String) -> [UInt8]? {
        guard let path = path(for: sha256), let data = FileManager.default.contents(atPath: path) else { return nil }
        return [UInt8](data)
    }
}
