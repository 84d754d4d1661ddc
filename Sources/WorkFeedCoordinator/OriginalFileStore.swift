import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The original workout files, kept so that `workctl reimport` can read them again:
/// `<originals>/<first two hex digits>/<sha256>.gz`, gzip-compressed as workctl sent them, one file
/// per distinct content however many workouts came from it.
///
/// They are the coordinator's alone (`originals.directory`, by default `originals/` beside the
/// index): never in the shared cache that every worker host mounts, because an original holds the
/// whole route, with what the owner's privacy zones hide (docs/security.md, "Kept originals").
/// Directories are made mode 0700 and files 0600 whatever the umask, and a root found with wider
/// permissions is narrowed at start. Not encrypted: see docs/security.md for why and what that
/// leaves.
///
/// Names come from the SHA-256 alone, checked to be 64 lower-case hex digits, so nothing from the
/// wire becomes a path of its own. Writes go to a temporary file in the same folder, are synced
/// and renamed: a reader never sees half a file.
struct OriginalFileStore {
    let directory: String

    init(directory: String) {
        self.directory = directory
    }

    /// Where releases before issue 23 kept them: `files/` in the shared cache.
    static func legacyDirectory(cacheDirectory: String) -> String { cacheDirectory + "/files" }

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
        try Self.makePrivateDirectory(directory)
        try Self.makePrivateDirectory(folder)
        let temporary = "\(folder)/.\(sha256).\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? handle.close() }
            // 0600 whatever the umask said at open.
            guard fchmod(descriptor, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
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

    /// Makes `path` a directory of mode 0700 (or narrows an existing one to it).
    static func makePrivateDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            if errno == ENOENT {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw POSIXError(.ENOTDIR) }
        if status.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Makes the root private, narrows what an earlier run left readable to others (folders 0700,
    /// files 0600), and moves originals kept in the shared cache by releases before issue 23
    /// (`<cache>/files/`) here, removing that folder. Run at start, before anything is served.
    /// - Returns: how many originals were moved, and how many permissions were narrowed.
    @discardableResult
    func prepare(cacheDirectory: String, logger: Logger) throws -> (moved: Int, narrowed: Int) {
        try Self.makePrivateDirectory(directory)
        var moved = 0
        var narrowed = 0
        let legacy = Self.legacyDirectory(cacheDirectory: cacheDirectory)
        if let folders = try? FileManager.default.contentsOfDirectory(atPath: legacy) {
            for folder in folders {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: legacy + "/" + folder)) ?? []
                for name in names {
                    let source = "\(legacy)/\(folder)/\(name)"
                    let sha256 = name.hasSuffix(".gz") ? String(name.dropLast(3)) : ""
                    guard let target = path(for: sha256), folder == String(sha256.prefix(2)) else {
                        // A temporary file a killed write left, or something that is not ours to keep.
                        try? FileManager.default.removeItem(atPath: source)
                        continue
                    }
                    if !FileManager.default.fileExists(atPath: target) {
                        try Self.makePrivateDirectory((target as NSString).deletingLastPathComponent)
                        if rename(source, target) != 0 {
                            // Another file system: copied, synced, then the old one removed.
                            guard let bytes = FileManager.default.contents(atPath: source) else { continue }
                            try store([UInt8](bytes), sha256: sha256)
                        }
                        chmod(target, 0o600)
                        moved += 1
                    }
                    try? FileManager.default.removeItem(atPath: source)
                }
                try? FileManager.default.removeItem(atPath: legacy + "/" + folder)
            }
            try? FileManager.default.removeItem(atPath: legacy)
        }
        // Whatever is here already, private too.
        if let walker = FileManager.default.enumerator(atPath: directory) {
            while let relative = walker.nextObject() as? String {
                let path = directory + "/" + relative
                var status = stat()
                guard lstat(path, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
                let mode: mode_t = (status.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600
                if chmod(path, mode) == 0 { narrowed += 1 }
            }
        }
        if moved > 0 || narrowed > 0 {
            logger.notice(
                "kept originals moved out of the shared cache and made private",
                metadata: ["moved": "\(moved)", "narrowed": "\(narrowed)", "from": "\(legacy)", "to": "\(directory)"])
        }
        return (moved, narrowed)
    }
}
