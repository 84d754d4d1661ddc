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
    /// - Throws: ``CacheWriteError`` naming the path and the system's reason.
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
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheWriteError(path: directory, reason: "cannot create the directory: \(error.localizedDescription)")
        }
        let temporary = "\(directory)/.\((name as NSString).lastPathComponent).\(Self.hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard Glibc.link(path, temporary) == 0 else { throw CacheWriteError(path: temporary, reason: "link: " + String(cString: strerror(errno))) }
        guard rename(temporary, name) == 0 else {
            let failure = CacheWriteError(path: name, reason: "rename: " + String(cString: strerror(errno)))
            unlink(temporary)
            throw failure
        }
    }

    private func write(_ bytes: [UInt8], to path: String) throws(CacheWriteError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheWriteError(path: directory, reason: "cannot create the directory: \(error.localizedDescription)")
        }
        let name = (path as NSString).lastPathComponent
        let temporary = "\(directory)/.\(name).\(Self.hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CacheWriteError(path: temporary, reason: String(cString: strerror(errno))) }
        var failure: CacheWriteError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = CacheWriteError(path: temporary, reason: String(cString: strerror(errno)))
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = CacheWriteError(path: temporary, reason: "fsync: " + String(cString: strerror(errno)))
        }
        close(descriptor)
        if failure == nil && rename(temporary, path) != 0 {
            failure = CacheWriteError(path: path, reason: "rename: " + String(cString: strerror(errno)))
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
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

/// The cache could not be written: a transient failure, retried by the coordinator.
struct CacheWriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cache write failed at \(path): \(reason)" }
}
