import Crypto
import Foundation
import Logging
import WorkFeedStore

/// The original workout files, kept so that `workctl reimport` can read them again:
/// `<first two hex digits>/<sha256>.gz` in the originals' store, gzip-compressed as workctl sent
/// them, one file per distinct content however many workouts came from it.
///
/// They go through the store seam (``FileStore``, opened from `originals.directory` like the
/// pictures from `cache.directory`): a directory only the coordinator uses (by default
/// `originals/` beside the index; folders 0700, files 0600 whatever the umask, anything wider
/// narrowed at start), or a bucket (by default `s3://BUCKET/originals` when the pictures are in
/// `s3://BUCKET/PREFIX`). Never inside the picture store that every worker and gateway reads: an
/// original holds the whole route, with what the owner's privacy zones hide (docs/security.md,
/// "Kept originals"). With `originals.key_file` they are also sealed (ChaCha20-Poly1305, the
/// file's SHA-256 name authenticated with it, so a sealed file cannot be passed off under another
/// name): `WFO1`, then nonce, ciphertext and tag. Plain files are sealed at start once a key is
/// configured; docs/security.md says what either choice leaves.
///
/// Names come from the SHA-256 alone, checked to be 64 lower-case hex digits, so nothing from the
/// wire becomes a name of its own. A store writes a file whole: a reader never sees half of one.
struct OriginalFileStore: CustomStringConvertible {
    let files: any FileStore
    /// The key originals are sealed with; `nil`: kept as they came.
    let key: SymmetricKey?

    init(files: any FileStore, key: SymmetricKey? = nil) {
        self.files = files
        self.key = key
    }

    var description: String { files.description }

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
            /// The store could not be read (``cause``).
            case store
        }
        var code: Code
        var sha256: String
        var cause: PictureStoreError? = nil
        var description: String {
            switch code {
            case .sealedWithoutKey: "the kept original \(sha256) is sealed and originals.key_file is not set"
            case .cannotUnseal: "the kept original \(sha256) cannot be unsealed with originals.key_file (another key, or altered)"
            case .store: "the kept original \(sha256) cannot be read: \(cause.map { "\($0)" } ?? "")"
            }
        }
    }

    /// The bytes to write for a compressed original: sealed when there is a key.
    private func sealed(_ compressed: [UInt8], sha256: String) throws -> [UInt8] {
        guard let key else { return compressed }
        let box = try ChaChaPoly.seal(compressed, using: key, authenticating: Array(sha256.utf8))
        return Self.sealedMagic + Array(box.combined)
    }

    /// What a store is told the bytes are.
    private static func contentType(of bytes: [UInt8]) -> String {
        bytes.starts(with: sealedMagic) ? "application/octet-stream" : "application/gzip"
    }

    /// Where releases before issue 23 kept them: `files/` in the shared cache.
    static func legacyDirectory(cacheDirectory: String) -> String { cacheDirectory + "/files" }

    /// Whether `sha256` is a hash this store can name a file by.
    static func isValidHash(_ sha256: String) -> Bool {
        sha256.utf8.count == 64 && sha256.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The store's name for the original with this hash: `3f/3f2a….gz`.
    static func name(for sha256: String) -> String? {
        guard isValidHash(sha256) else { return nil }
        return "\(sha256.prefix(2))/\(sha256).gz"
    }

    /// The hash a store's name stands for, or `nil` when it is not the name of an original.
    static func hash(named name: String) -> String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix(".gz") else { return nil }
        let sha256 = String(parts[1].dropLast(3))
        return isValidHash(sha256) && parts[0] == sha256.prefix(2) ? sha256 : nil
    }

    /// Whether the original is kept (a store that cannot answer: not known to be).
    func contains(_ sha256: String) -> Bool {
        guard let name = Self.name(for: sha256) else { return false }
        return (try? files.contains(name)) ?? false
    }

    /// Stores a compressed original unless one with this hash is already there.
    /// - Throws: when it cannot be written.
    func store(_ compressed: [UInt8], sha256: String) throws {
        guard let name = Self.name(for: sha256) else { throw CocoaError(.fileWriteInvalidFileName) }
        if try files.contains(name) { return }
        let bytes = try sealed(compressed, sha256: sha256)
        try files.put(bytes, as: name, contentType: Self.contentType(of: bytes))
    }

    /// The compressed original, or `nil` when it is not kept.
    /// - Throws: ``ReadError`` when it is sealed and cannot be unsealed, or the store cannot be read.
    func read(_ sha256: String) throws(ReadError) -> [UInt8]? {
        guard let name = Self.name(for: sha256) else { return nil }
        let found: [UInt8]?
        do {
            found = try files.get(name)
        } catch {
            throw ReadError(code: .store, sha256: sha256, cause: error)
        }
        guard let bytes = found else { return nil }
        guard bytes.starts(with: Self.sealedMagic) else { return bytes }
        guard let key else { throw ReadError(code: .sealedWithoutKey, sha256: sha256) }
        do {
            let box = try ChaChaPoly.SealedBox(combined: bytes.dropFirst(Self.sealedMagic.count))
            return Array(try ChaChaPoly.open(box, using: key, authenticating: Array(sha256.utf8)))
        } catch {
            throw ReadError(code: .cannotUnseal, sha256: sha256)
        }
    }

    /// Removes the originals with these hashes (absent ones are fine).
    /// - Returns: the hashes that could not be removed, each with its error.
    func remove(_ hashes: [String]) -> [(sha256: String, error: PictureStoreError)] {
        files.delete(hashes.compactMap(Self.name(for:))).map { failure in
            (Self.hash(named: failure.name) ?? failure.name, failure.error)
        }
    }

    /// A directory that held originals before and is to be emptied into this store at start:
    /// `<cache>/files/` of releases before issue 23 (`strays`: whatever is not an original there
    /// goes too), or the default directory beside the index once originals moved to a bucket.
    struct Source {
        var directory: DirectoryFileStore
        var removesStrays: Bool
    }

    /// Readies the store (a directory made private, what an earlier run left readable to others
    /// narrowed; a bucket asked for), moves the originals of `sources` here (each written here
    /// before it is removed there, so a crash between the two leaves a copy, not a loss), and
    /// seals the plain ones once a key is set. Run at start, before anything is served.
    /// - Returns: how many originals were moved, and how many permissions were narrowed.
    @discardableResult
    func prepare(movingFrom sources: [Source], logger: Logger) throws -> (moved: Int, narrowed: Int) {
        let narrowed = try files.prepare()
        var moved = 0
        for source in sources {
            let names = try source.directory.names()
            guard !names.isEmpty else { continue }
            for name in names {
                guard let sha256 = Self.hash(named: name) else {
                    // A temporary file a killed write left, or something that is not ours to keep.
                    if source.removesStrays { _ = source.directory.delete([name]) }
                    continue
                }
                if try !files.contains(name), let bytes = try source.directory.get(name) {
                    let kept = bytes.starts(with: Self.sealedMagic) ? bytes : try sealed(bytes, sha256: sha256)
                    try files.put(kept, as: name, contentType: Self.contentType(of: kept))
                    moved += 1
                }
                if let failure = source.directory.delete([name]).first { throw failure.error }
            }
            source.directory.removeEmptyFolders()
            logger.notice(
                "kept originals moved", metadata: ["from": "\(source.directory)", "to": "\(files)", "moved": "\(moved)"])
        }
        // Whatever is here already, sealed when there is a key. Without one, sealed files are
        // counted where reading their heads is cheap (a directory), not at a request each.
        var sealedNow = 0
        var unreadable = 0
        if key != nil || files.isLocal {
            for name in try files.names() {
                guard let sha256 = Self.hash(named: name), let head = try? files.head(name, count: Self.sealedMagic.count) else { continue }
                let isSealed = head == Self.sealedMagic
                if key != nil && !isSealed, let plain = try files.get(name) {
                    // Sealed in place: a sealed copy written over the plain one.
                    let bytes = try sealed(plain, sha256: sha256)
                    try files.put(bytes, as: name, contentType: Self.contentType(of: bytes))
                    sealedNow += 1
                } else if key == nil && isSealed {
                    unreadable += 1
                }
            }
        }
        if narrowed > 0 || sealedNow > 0 {
            logger.notice(
                "kept originals made private, sealed", metadata: ["narrowed": "\(narrowed)", "sealed": "\(sealedNow)", "store": "\(files)"])
        }
        if unreadable > 0 {
            logger.error(
                "kept originals are sealed but originals.key_file is not set: they cannot be read back (workctl reimport) until it is",
                metadata: ["sealed": "\(unreadable)", "store": "\(files)"])
        }
        if !files.isLocal && key == nil {
            logger.warning(
                "kept originals are in an object store unsealed: whoever holds credentials that read it reads whole routes, with what privacy zones hide; set originals.key_file, or let only the coordinator's credentials read there (docs/security.md)",
                metadata: ["store": "\(files)"])
        }
        return (moved, narrowed)
    }
}
