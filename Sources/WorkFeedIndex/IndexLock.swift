import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One writer per index: an exclusive `flock` on a lock file beside it (`index.sqlite.lock`), held
/// for as long as the index is open and released by the kernel when the process ends however it
/// ends (a SIGKILLed coordinator leaves no stale lock). Two coordinators on one index would both
/// lease its jobs and overwrite each other's statuses; the second one stops at start, naming the
/// first one's process id (written in the lock file).
final class IndexLock {
    let path: String
    private let descriptor: Int32

    /// - Throws: ``IndexError`` naming the process that holds the lock, or why the lock file cannot
    ///   be made.
    init(indexPath: String) throws(IndexError) {
        path = indexPath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw IndexError(.unavailable, "cannot open the index's lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = read(descriptor, &buffer, buffer.count)
            close(descriptor)
            if reason == EWOULDBLOCK {
                let holder = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
                throw IndexError(
                    .locked,
                    "another coordinator (process \(holder)) has the index \(indexPath) open: only one coordinator may own an index "
                        + "(it holds the lock on \(path)); stop it first, or give this one another index.path")
            }
            throw IndexError(.unavailable, "cannot lock \(path): \(String(cString: strerror(reason)))")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    deinit {
        // Closing the descriptor releases the lock; the file stays (removing it would race a
        // coordinator that has just opened it).
        close(descriptor)
    }
}
