import Foundation
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// Writes pictures into the shared cache so that readers never see a half-written file: the bytes go
/// to a temporary file in the picture's own directory, are flushed to disk, and the file is renamed
/// over the final name (rename is atomic within a directory). The picture also gets its
/// by-content name (``CacheLayout/relativePath(forKey:)``), a hard link made the same way.
struct CacheWriter: Sendable {
    let root: String

    /// - Parameter key: the picture's cache key; it is linked under `keys/` too.
    /// - Returns: the picture's final path.
    /// - Throws: ``CacheWriteError`` saying which step failed and why (its code tells a full,
    ///   read-only or forbidden cache apart).
    func write(_ bytes: [UInt8], for picture: PictureID, key: String? = nil) throws(CacheWriteError) -> String {
        let path = root + "/" + CacheLayout.relativePath(for: picture)
        try write(bytes, to: path)
        if let key, let keyed = CacheLayout.relativePath(forKey: key) {
            try link(path, to: root + "/" + keyed)
        }
        return path
    }

    /// Gives the file at `path` a second name, `name`, replacing any file there: a hard link under
    /// a temporary name, renamed over the final one.
    private func link(_ path: String, to name: String) throws(CacheWriteError) {
        let directory = (name as NSString).deletingLastPathComponent
        try Self.makeDirectory(directory, parentToo: true)
        let temporary = "\(directory)/.\((name as NSString).lastPathComponent).\(Self.hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard Glibc.link(path, temporary) == 0 else { throw CacheWriteError(step: "link", errno: errno, path: temporary) }
        guard rename(temporary, name) == 0 else {
            let failure = CacheWriteError(step: "rename", errno: errno, path: name)
            unlink(temporary)
            throw failure
        }
    }

    private func write(_ bytes: [UInt8], to path: String) throws(CacheWriteError) {
        let directory = (path as NSString).deletingLastPathComponent
        try Self.makeDirectory(directory, parentToo: true)
        let name = (path as NSString).lastPathComponent
        let temporary = "\(directory)/.\(name).\(Self.hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        try Self.writeDurably(bytes, to: temporary, renamingTo: path)
    }

    /// Makes `directory` unless it exists, and its parent first when that is missing too (the
    /// kind's directory, `route/`). The cache's root is never made: a missing root is a mount
    /// that is not there, which the probe reports.
    static func makeDirectory(_ directory: String, parentToo: Bool) throws(CacheWriteError) {
        if mkdir(directory, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT && parentToo {
            try makeDirectory((directory as NSString).deletingLastPathComponent, parentToo: false)
            try makeDirectory(directory, parentToo: false)
            return
        }
        throw CacheWriteError(step: "mkdir", errno: errno, path: directory)
    }

    /// Writes `bytes` to `temporary` (created, never reused), flushes them to disk, and renames the
    /// file to `path`; on any failure the temporary file is removed.
    static func writeDurably(_ bytes: [UInt8], to temporary: String, renamingTo path: String) throws(CacheWriteError) {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CacheWriteError(step: "create", errno: errno, path: temporary) }
        var failure: CacheWriteError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = CacheWriteError(step: "write", errno: errno, path: temporary)
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = CacheWriteError(step: "fsync", errno: errno, path: temporary)
        }
        if close(descriptor) != 0 && failure == nil && errno != EINTR {
            // NFS reports some write errors only at close.
            failure = CacheWriteError(step: "close", errno: errno, path: temporary)
        }
        if failure == nil && rename(temporary, path) != 0 {
            failure = CacheWriteError(step: "rename", errno: errno, path: path)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Checks that the cache can take a picture: writes a probe file of `size` bytes in its root,
    /// flushes it, renames it and deletes it, as every picture is written. A worker does this
    /// before it announces itself, and again before it takes jobs after a cache write failed.
    /// - Throws: ``CacheWriteError`` naming the step that failed and why.
    func probe(size: Int = 128 << 10) throws(CacheWriteError) {
        var status = stat()
        guard stat(root, &status) == 0 else { throw CacheWriteError(step: "stat", errno: errno, path: root) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw CacheWriteError(step: "stat", errno: ENOTDIR, path: root) }
        let base = "\(root)/.workfeed-probe.\(Self.hostTag).\(getpid())"
        let temporary = "\(base).\(UInt32.random(in: 0...UInt32.max)).tmp"
        try Self.writeDurably([UInt8](repeating: 0x57, count: size), to: temporary, renamingTo: base)
        guard unlink(base) == 0 else { throw CacheWriteError(step: "unlink", errno: errno, path: base) }
    }
}

extension CacheWriter {
    /// This host's name as it appears in temporary file names (no dots, so names split cleanly).
    static let hostTag = ProcessInfo.processInfo.hostName.replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "/", with: "_")

    /// Removes temporary files that a killed writer left behind: `.<picture>.<host>.<pid>.<n>.tmp`
    /// files of this host whose process is gone, and any that are older than `staleAfter` seconds
    /// (a write takes milliseconds; an hour-old one belongs to a dead process on some host).
    /// - Returns: how many files were removed.
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

/// The cache could not be written: a failure of the worker's surroundings, retried by the
/// coordinator later and later without counting an attempt; the worker stops taking jobs until a
/// probe write succeeds.
struct CacheWriteError: Error, CustomStringConvertible {
    /// `create`, `write`, `fsync`, `close`, `rename`, `mkdir`, `stat`, `unlink`, `link`.
    var step: String
    var errno: Int32
    /// The file or directory, for the worker's log: never in the reason sent to the coordinator,
    /// where temporary names would make every failure a group of its own.
    var path: String

    var code: FailureCode {
        switch errno {
        case ENOSPC, EDQUOT: .cacheFull
        case EACCES, EPERM: .cacheDenied
        case EROFS: .cacheReadOnly
        default: .cacheIO
        }
    }

    /// The reason sent to the coordinator: the same words for every picture that fails the same way.
    var reason: String {
        step == "stat" ? "cannot use the cache directory: \(String(cString: strerror(errno)))" : "cache write failed at \(step): \(String(cString: strerror(errno)))"
    }

    var description: String { "\(reason) (\(path))" }
}
