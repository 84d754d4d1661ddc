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
    /// Larger files are not pictures this system draws (2048 × 2048 pixels is far below it).
    public static let maximumPictureSize = 64 << 20

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
        guard let bytes = try Self.readInside(root: root, relative: relative) else { return nil }
        try StoredPicture.check(bytes, key: key, path: root + "/" + relative)
        return bytes
    }

    /// The picture stored for `picture`, read as ``picture(key:)`` reads (no link followed, a
    /// regular file, a PNG); its key is not known here, so it is not compared.
    public func picture(_ picture: PictureID) throws(PictureStoreError) -> [UInt8]? {
        let relative = CacheLayout.relativePath(for: picture)
        guard let bytes = try Self.readInside(root: root, relative: relative) else { return nil }
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

    /// Makes `directory` unless it exists, and its parent first when that is missing too (the
    /// kind's directory, `route/`). The root is never made: a missing root is a mount that is not
    /// there, which the probe reports.
    static func makeDirectory(_ directory: String, parentToo: Bool) throws(PictureStoreError) {
        if mkdir(directory, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT && parentToo {
            try makeDirectory((directory as NSString).deletingLastPathComponent, parentToo: false)
            try makeDirectory(directory, parentToo: false)
            return
        }
        throw PictureStoreError(step: "mkdir", errno: errno, path: directory)
    }

    /// Writes `bytes` to `temporary` (created, never reused), flushes them to disk, and renames the
    /// file to `path`; on any failure the temporary file is removed.
    /// - Parameter mode: the file's permissions; narrower than 0644 they hold whatever the umask.
    static func writeDurably(_ bytes: [UInt8], to temporary: String, renamingTo path: String, mode: mode_t = 0o644) throws(PictureStoreError) {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw PictureStoreError(step: "create", errno: errno, path: temporary) }
        var failure: PictureStoreError?
        if mode & 0o077 == 0 && fchmod(descriptor, mode) != 0 {
            failure = PictureStoreError(step: "chmod", errno: errno, path: temporary)
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while failure == nil && offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = PictureStoreError(step: "write", errno: errno, path: temporary)
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = PictureStoreError(step: "fsync", errno: errno, path: temporary)
        }
        if close(descriptor) != 0 && failure == nil && errno != EINTR {
            // NFS reports some write errors only at close.
            failure = PictureStoreError(step: "close", errno: errno, path: temporary)
        }
        if failure == nil && rename(temporary, path) != 0 {
            failure = PictureStoreError(step: "rename", errno: errno, path: path)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Opens `relative` below `root` one name at a time (`openat`), following no symbolic link:
    /// each directory on the way with `O_NOFOLLOW | O_DIRECTORY`, the file with `O_NOFOLLOW` (and
    /// `O_NONBLOCK`, so that a FIFO planted there cannot block the reader), then checks that it is a
    /// regular file. The root itself is the operator's configuration and may be a link.
    /// - Returns: the open descriptor (the caller closes it), or `nil` when nothing is there.
    /// - Throws: ``PictureStoreError`` with a ``PictureStoreError/refusal`` for a link, a
    ///   directory component that is not a directory, or a file that is not a regular file.
    static func openInside(root: String, relative: String) throws(PictureStoreError) -> Int32? {
        let path = root + "/" + relative
        var directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw PictureStoreError(step: "open", errno: errno, path: root)
        }
        let names = relative.split(separator: "/").map(String.init)
        for (number, name) in names.enumerated() {
            let last = number == names.count - 1
            let flags = last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC : O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC
            let next = openat(directory, name, flags)
            let failure = errno
            close(directory)
            guard next >= 0 else {
                switch failure {
                case ENOENT: return nil
                // ELOOP: the name is a symbolic link; ENOTDIR: a directory on the way is a file or a link.
                case ELOOP, ENOTDIR: throw PictureStoreError(refusal: .symbolicLink, path: path)
                default: throw PictureStoreError(step: "open", errno: failure, path: path)
                }
            }
            directory = next
        }
        var status = stat()
        guard fstat(directory, &status) == 0 else {
            let failure = PictureStoreError(step: "stat", errno: errno, path: path)
            close(directory)
            throw failure
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(directory)
            throw PictureStoreError(refusal: .notRegularFile, path: path)
        }
        return directory
    }

    /// Whether a regular file is at `relative` below `root`, reached without following a link.
    static func isRegularFileInside(root: String, relative: String) -> Bool {
        guard let descriptor = try? openInside(root: root, relative: relative) else { return false }
        close(descriptor)
        return true
    }

    /// The whole regular file at `relative` below `root` (``openInside(root:relative:)``), or `nil`
    /// when nothing is there.
    static func readInside(root: String, relative: String, maximumSize: Int = maximumPictureSize) throws(PictureStoreError) -> [UInt8]? {
        guard let descriptor = try openInside(root: root, relative: relative) else { return nil }
        defer { close(descriptor) }
        return try read(descriptor, path: root + "/" + relative, maximumSize: maximumSize)
    }

    /// The whole of an open file, from its start; larger than `maximumSize` is `corrupt` (EFBIG).
    static func read(_ descriptor: Int32, path: String, maximumSize: Int = maximumPictureSize) throws(PictureStoreError) -> [UInt8]? {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            if errno == EISDIR || errno == ESPIPE { return nil }
            throw PictureStoreError(step: "read", errno: errno, path: path)
        }
        let size = Int(end)
        guard size <= maximumSize else { throw PictureStoreError(step: "read", errno: EFBIG, path: path) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress! + offset, size - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR { return nil }
                throw PictureStoreError(step: "read", errno: errno, path: path)
            }
            if count == 0 { break }
            offset += count
        }
        return offset == size ? bytes : Array(bytes.prefix(offset))
    }

    /// Removes a file; one that is not there is fine.
    static func remove(_ path: String) throws(PictureStoreError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw PictureStoreError(step: "unlink", errno: errno, path: path) }
    }
}
