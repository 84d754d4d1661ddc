import Crypto
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
/// permissions is narrowed at start. With `originals.key_file` they are also sealed
/// (ChaCha20-Poly1305, the file's SHA-256 name authenticated with it, so a sealed file cannot be
/// passed off under another name): `WFO1`, then nonce, ciphertext and tag. Plain files are sealed
/// at start once a key is configured; docs/security.md says what either choice leaves.
///
/// Names come from the SHA-256 alone, checked to be 64 lower-case hex digits, so nothing from the
/// wire becomes a path of its own. Writes go to a temporary file in the same folder, are synced
/// and renamed: a reader never sees half a file.
struct OriginalFileStore {
    let directory: String
    /// The key originals are sealed with; `nil`: kept as they came.
    let key: SymmetricKey?

    init(directory: String, key: SymmetricKey? = nil) {
        self.directory = directory
        self.key = key
    }

    /// What a sealed original starts with.
    static let sealedMagic = Array("WFO1".utf8)
    static let minimumKeyFileBytes = 32

    /// The sealing key from the bytes of `originals.key_file` (HKDF-SHA256 over them).
    static func key(fromFile bytes: [UInt8]) -> SymmetricKey {
        HKDF<Crypto.SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: bytes), info: Array("workfeed kept originals v1".utf8), outputByteCount: 32)
    }

    /// A kept original that cannot be read back.
    struct ReadError: Error, CustomStringConvertible {
        enum Code: String {
            /// Sealed, and no `originals.key_file` is configured.
            case sealedWithoutKey = "sealed-without-key"
            /// Sealed under another key, or altered.
            case cannotUnseal = "cannot-unseal"
        }
        var code: Code
        var sha256: String
        var description: String {
            switch code {
            case .sealedWithoutKey: "the kept original \(sha256) is sealed and originals.key_file is not set"
            case .cannotUnseal: "the kept original \(sha256) cannot be unsealed with originals.key_file (another key, or altered)"
            }
        }
    }

    /// The bytes to write for a compressed original: sealed when there is a key.
    private func sealed(_ compressed: [UInt8], sha256: String) throws -> [UInt8] {
        guard let key else { return compressed }
        let box = try ChaChaPoly.seal(compressed, using: key, authenticating: Array(sha256.utf8))
        return Self.sealedMagic + Array(box.combined)
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
        try Self.makePrivateDirectory(directory)
        try Self.makePrivateDirectory((path as NSString).deletingLastPathComponent)
        try write(try sealed(compressed, sha256: sha256), sha256: sha256, to: path)
    }

    /// Writes `bytes` to a new temporary file (mode 0600 whatever the umask) beside `path`, syncs
    /// it and renames it over `path`.
    private func write(_ bytes: [UInt8], sha256: String, to path: String) throws {
        let temporary = "\((path as NSString).deletingLastPathComponent)/.\(sha256).\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? handle.close() }
            guard fchmod(descriptor, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// The compressed original, or `nil` when it is not kept.
    /// - Throws: ``ReadError`` when it is sealed and cannot be unsealed.
    func read(_ sha256: String) throws(ReadError) -> [UInt8]? {
        guard let path = path(for: sha256), let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        guard bytes.starts(with: Self.sealedMagic) else { return bytes }
        guard let key else { throw ReadError(code: .sealedWithoutKey, sha256: sha256) }
        do {
            let box = try ChaChaPoly.SealedBox(combined: bytes.dropFirst(Self.sealedMagic.count))
            return Array(try ChaChaPoly.open(box, using: key, authenticating: Array(sha256.utf8)))
        } catch {
            throw ReadError(code: .cannotUnseal, sha256: sha256)
        }
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
    func prepare(cacheDirectory: String?, logger: Logger) throws -> (moved: Int, narrowed: Int) {
        try Self.makePrivateDirectory(directory)
        var moved = 0
        var narrowed = 0
        // An object store never held originals: only a directory cache may have a legacy folder.
        let legacy = cacheDirectory.map { Self.legacyDirectory(cacheDirectory: $0) }
        if let legacy, let folders = try? FileManager.default.contentsOfDirectory(atPath: legacy) {
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
                        if key != nil || rename(source, target) != 0 {
                            // Another file system: copied, synced, then the old one removed.
                            // (Or sealed on the way.)
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
        // Whatever is here already, private too, and sealed when there is a key.
        var sealedNow = 0
        var unreadable = 0
        if let walker = FileManager.default.enumerator(atPath: directory) {
            while let relative = walker.nextObject() as? String {
                let path = directory + "/" + relative
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }
                if status.st_mode & 0o077 != 0 {
                    let mode: mode_t = (status.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600
                    if chmod(path, mode) == 0 { narrowed += 1 }
                }
                guard (status.st_mode & S_IFMT) == S_IFREG, relative.hasSuffix(".gz") else { continue }
                let sha256 = String((relative as NSString).lastPathComponent.dropLast(3))
                guard Self.isValidHash(sha256), let head = FileHandle(forReadingAtPath: path).flatMap({ try? $0.read(upToCount: 4) }) else {
                    continue
                }
                let isSealed = [UInt8](head) == Self.sealedMagic
                if key != nil && !isSealed, let plain = FileManager.default.contents(atPath: path) {
                    // Sealed in place: a sealed copy renamed over the plain one.
                    try write(try sealed([UInt8](plain), sha256: sha256), sha256: sha256, to: path)
                    sealedNow += 1
                } else if key == nil && isSealed {
                    unreadable += 1
                }
            }
        }
        if moved > 0 || narrowed > 0 || sealedNow > 0 {
            logger.notice(
                "kept originals moved out of the shared cache, made private, sealed",
                metadata: ["moved": "\(moved)", "narrowed": "\(narrowed)", "sealed": "\(sealedNow)", "from": "\(legacy)", "to": "\(directory)"])
        }
        if unreadable > 0 {
            logger.error(
                "kept originals are sealed but originals.key_file is not set: they cannot be read back (workctl reimport) until it is",
                metadata: ["sealed": "\(unreadable)", "directory": "\(directory)"])
        }
        return (moved, narrowed)
    }
}
