import Foundation
public import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// Pictures in a directory shared by every host (a local disk, NFS, a Kubernetes volume), laid out
/// by ``CacheLayout``: `route/3f/3f2a…_dark.png` by picture, `keys/9c/9c04….png` by content (a hard
/// link to the same file).
///
/// Readers never see a half-written file: the bytes go to a temporary file in the picture's own
/// directory, are flushed to disk, and the file is renamed over the final name (rename is atomic
/// within a directory); the by-content name is a hard link made the same way.
public struct DirectoryPictureStore: PictureStore, CustomStringConvertible {
    public let root: String
    /// Larger files are not pictures this system draws: the largest it can draw
    /// (``StoredPicture/maximumBytes``).
    public static let maximumPictureSize = StoredPicture.maximumBytes

    public init(root: String) {
        self.root = root
    }

    public var description: String { root }

    public func location(of picture: PictureID) -> String {
        root + "/" + CacheLayout.relativePath(for: picture)
    }

    public func put(_ bytes: [UInt8], for picture: PictureID, key: String) throws(PictureStoreError) {
        let path = location(of: picture)
        let directory = (path as NSString).deletingLastPathComponent
        try Self.makeDirectory(directory, parentToo: true)
        try Self.writeDurably(bytes, to: Self.temporaryName(for: path), renamingTo: path)
        if let keyed = CacheLayout.relativePath(forKey: key) {
            try link(path, to: root + "/" + keyed)
        }
    }

    /// The picture named `key`, read without following a symbolic link anywhere below the root,
    /// and only when it is a regular file holding a PNG whose embedded key
    /// (``CacheLayout/keyTextKeyword``) is `key`: every worker host can write this directory, so
    /// a name there is not trusted to be what it says (docs/security.md, "Only pictures are served").
    /// - Throws: ``PictureStoreError`` with a ``PictureStoreError/refusal`` when something other
    ///   than that picture is there.
    public func picture(key: String) throws(PictureStoreError) -> [UInt8]? {
        guard let relative = CacheLayout.relativePath(forKey: key) else { return nil }
        guard let bytes = try Self.readPicture(root: root, relative: relative) else { return nil }
        try StoredPicture.check(bytes, key: key, path: root + "/" + relative)
        return bytes
    }

    /// The picture stored for `picture`, read as ``picture(key:)`` reads (no link followed, a
    /// regular file, a PNG); its key is not known here, so it is not compared.
    public func picture(_ picture: PictureID) throws(PictureStoreError) -> [UInt8]? {
        let relative = CacheLayout.relativePath(for: picture)
        guard let bytes = try Self.readPicture(root: root, relative: relative) else { return nil }
        try StoredPicture.check(bytes, key: nil, path: root + "/" + relative)
        return bytes
    }

    public func contains(key: String) -> Bool {
        guard let relative = CacheLayout.relativePath(forKey: key) else { return false }
        return Self.isRegularFileInside(root: root, relative: relative)
    }

    public func contains(_ picture: PictureID) -> Bool {
        Self.isRegularFileInside(root: root, relative: CacheLayout.relativePath(for: picture))
    }

    public func delete(_ picture: PictureID) throws(PictureStoreError) {
        try Self.remove(location(of: picture))
    }

    public func delete(key: String) throws(PictureStoreError) {
        guard let relative = CacheLayout.relativePath(forKey: key) else { return }
        try Self.remove(root + "/" + relative)
    }

    @discardableResult
    public func delete(_ picture: PictureID, ifKey key: String) throws(PictureStoreError) -> Bool {
        let path = location(of: picture)
        // Moved aside first (rename is atomic): a writer renaming a new picture over the name
        // meanwhile is not undone, and the one moved aside is looked at where nobody writes.
        let aside = Self.temporaryName(for: path)
        guard rename(path, aside) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return false }
            throw PictureStoreError(step: "rename", errno: errno, path: path)
        }
        let head = Self.head(of: aside)
        if head.map({ PNGText.value(of: "workfeed:cache-key", in: $0) }) == key {
            try Self.remove(aside)
            return true
        }
        // Another key's picture: back under its name, unless a newer one is there already (a
        // hard link never replaces; the newer one wins).
        if Glibc.link(aside, path) != 0 && errno != EEXIST {
            let failure = PictureStoreError(step: "link", errno: errno, path: path)
            unlink(aside)
            throw failure
        }
        try Self.remove(aside)
        return false
    }

    public func pictures(withPrefix prefix: String) throws(PictureStoreError) -> [PictureID] {
        var found: [PictureID] = []
        for kind in JobKind.allCases {
            let kindRoot = root + "/" + kind.rawValue
            let folders: [String]
            if prefix.count >= 2 {
                folders = [String(prefix.prefix(2))]
            } else {
                guard let all = try? FileManager.default.contentsOfDirectory(atPath: kindRoot) else { continue }
                folders = all.filter { $0.count == 2 && $0.hasPrefix(prefix) }
            }
            for folder in folders {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: kindRoot + "/" + folder) else { continue }
                for name in names where name.hasSuffix(".png") {
                    let relative = "\(kind.rawValue)/\(folder)/\(name)"
                    if let picture = CacheLayout.picture(atRelativePath: relative), picture.workoutID.description.hasPrefix(prefix) {
                        found.append(picture)
                    }
                }
            }
        }
        return found
    }

    public func name(key: String, as picture: PictureID) throws(PictureStoreError) {
        guard let keyed = CacheLayout.relativePath(forKey: key) else { return }
        let path = location(of: picture)
        try Self.makeDirectory((path as NSString).deletingLastPathComponent, parentToo: true)
        // A hard link never replaces: a picture written there meanwhile wins.
        guard Glibc.link(root + "/" + keyed, path) == 0 || errno == EEXIST || errno == ENOENT else {
            throw PictureStoreError(step: "link", errno: errno, path: path)
        }
    }

    public func embeddedKey(of picture: PictureID) -> String? {
        Self.head(of: location(of: picture)).flatMap { PNGText.value(of: "workfeed:cache-key", in: $0) }
    }

    public func isNamed(_ picture: PictureID, key: String) -> Bool {
        guard let keyed = CacheLayout.relativePath(forKey: key) else { return false }
        var byPicture = stat()
        var byKey = stat()
        guard lstat(location(of: picture), &byPicture) == 0, lstat(root + "/" + keyed, &byKey) == 0 else { return false }
        return byPicture.st_dev == byKey.st_dev && byPicture.st_ino == byKey.st_ino
    }

    /// The first 4 KiB of a file (a picture's text chunks come right after its header), or `nil`.
    static func head(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count) }
            if read < 0 && errno == EINTR { continue }
            if read <= 0 { break }
            count += read
        }
        return Array(bytes.prefix(count))
    }

    public func name(_ picture: PictureID, key: String) throws(PictureStoreError) {
        guard let keyed = CacheLayout.relativePath(forKey: key) else { return }
        try link(location(of: picture), to: root + "/" + keyed)
    }

    public func keys(withPrefix prefix: String) throws(PictureStoreError) -> [String] {
        let folders: [String]
        let keysRoot = root + "/" + CacheLayout.keysFolder
        if prefix.count >= 2 {
            folders = [String(prefix.prefix(2))]
        } else {
            guard let all = try? FileManager.default.contentsOfDirectory(atPath: keysRoot) else { return [] }
            folders = all.filter { $0.count == 2 && $0.hasPrefix(prefix) }
        }
        var found: [String] = []
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: keysRoot + "/" + folder) else { continue }
            for name in names where name.hasSuffix(".png") {
                let key = String(name.dropLast(4))
                if CacheLayout.isCacheKey(key) && key.hasPrefix(prefix) { found.append(key) }
            }
        }
        return found
    }

    public func ownerMarker() throws(PictureStoreError) -> String? {
        try Self.readInside(root: root, relative: CacheLayout.ownerMarkerName, maximumSize: 4096).map { String(decoding: $0, as: UTF8.self) }
    }

    public func writeOwnerMarker(_ text: String) throws(PictureStoreError) {
        let path = root + "/" + CacheLayout.ownerMarkerName
        try Self.writeDurably(Array(text.utf8), to: Self.temporaryName(for: path), renamingTo: path)
    }

    public func holdsPictures() throws(PictureStoreError) -> Bool {
        let fileManager = FileManager.default
        for top in [CacheLayout.keysFolder] + JobKind.allCases.map(\.rawValue) {
            guard let folders = try? fileManager.contentsOfDirectory(atPath: root + "/" + top) else { continue }
            for folder in folders where folder.count == 2 {
                let names = (try? fileManager.contentsOfDirectory(atPath: root + "/" + top + "/" + folder)) ?? []
                if names.contains(where: { $0.hasSuffix(".png") }) { return true }
            }
        }
        return false
    }

    /// Writes a probe file of `size` bytes in the root, flushes it, renames it and deletes it, as
    /// every picture is written.
    public func probe() throws(PictureStoreError) {
        try probe(size: 128 << 10)
    }

    public func probe(size: Int) throws(PictureStoreError) {
        var status = stat()
        guard stat(root, &status) == 0 else { throw PictureStoreError(step: "stat", errno: errno, path: root) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw PictureStoreError(step: "stat", errno: ENOTDIR, path: root) }
        let base = "\(root)/.workfeed-probe.\(Self.hostTag).\(getpid())"
        try Self.writeDurably([UInt8](repeating: 0x57, count: size), to: Self.temporaryName(for: base), renamingTo: base)
        guard unlink(base) == 0 else { throw PictureStoreError(step: "unlink", errno: errno, path: base) }
    }

    /// A reader may start before the writers make the directory: nothing to check without writing.
    public func checkReachable() throws(PictureStoreError) {}

    /// Makes the root directory when it does not exist and its parent does (`/var/cache/workfeed`
    /// on a fresh host, `./var/cache` in a new checkout). A missing parent is a mount or a volume
    /// that is not there: that is not papered over with a new directory.
    public func createIfMissing() throws(PictureStoreError) -> Bool {
        var status = stat()
        guard stat(root, &status) != 0, errno == ENOENT else { return false }
        let parent = (root as NSString).deletingLastPathComponent
        guard stat(parent.isEmpty ? "." : parent, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return false }
        if mkdir(root, 0o755) == 0 { return true }
        if errno == EEXIST { return false }
        throw PictureStoreError(step: "mkdir", errno: errno, path: root)
    }

    /// Removes temporary files that a killed writer left behind: `.<picture>.<host>.<pid>.<n>.tmp`
    /// files of this host whose process is gone, and any older than an hour (a write takes
    /// milliseconds; an hour-old one belongs to a dead process on some host).
    public func removeAbandonedWrites() -> Int {
        Self.sweep(root: root)
    }

    static func sweep(root: String, staleAfter: TimeInterval = 3_600, now: Date = Date()) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
        var removed = 0
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            guard name.hasPrefix("."), name.hasSuffix(".tmp") else { continue }
            let path = root + "/" + relative
            let parts = name.split(separator: ".")
            var dead = false
            if parts.count >= 5, String(parts[parts.count - 4]) == hostTag, let pid = Int32(parts[parts.count - 3]) {
                dead = pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? now
            if dead || now.timeIntervalSince(modified) > staleAfter {
                if unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }
}

extension DirectoryPictureStore {
    /// This host's name as it appears in temporary file names (no dots, so names split cleanly).
    static let hostTag = ProcessInfo.processInfo.hostName.replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "/", with: "_")

    /// `.<name>.<host>.<pid>.<random>.tmp` beside `path`: created, never reused.
    static func temporaryName(for path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return "\(directory)/.\((path as NSString).lastPathComponent).\(hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Gives the file at `path` a second name, `name`, replacing any file there: a hard link under
    /// a temporary name, renamed over the final one.
    private func link(_ path: String, to name: String) throws(PictureStoreError) {
        try Self.makeDirectory((name as NSString).deletingLastPathComponent, parentToo: true)
        let temporary = Self.temporaryName(for: name)
        guard Glibc.link(path, temporary) == 0 else { throw PictureStoreError(step: "link", errno: errno, path: temporary) }
        guard rename(temporary, name) == 0 else {
            let failure = PictureStoreError(step: "rename", errno: errno, path: name)
            unlink(temporary)
            throw failure
        }
    }
}
