#if canImport(Glibc)
import Glibc
#endif
public import WorkFeedModel

/// A store could not do what was asked: which step, why (a code a failure report can carry), and
/// where. A failure of the storage, not of the picture: the coordinator retries such jobs later
/// without counting an attempt.
public struct PictureStoreError: Error, CustomStringConvertible, Sendable {
    /// `create`, `write`, `fsync`, `close`, `rename`, `mkdir`, `stat`, `unlink`, `link`, `open`, `read`.
    public var step: String
    /// The operating system's error number (`errno`).
    public var errno: Int32
    /// The file or object: for logs, never in the reason sent to the coordinator, where temporary
    /// names would make every failure a group of its own.
    public var path: String

    public init(step: String, errno: Int32, path: String) {
        self.step = step
        self.errno = errno
        self.path = path
    }

    /// What kind of failure it is: a full, forbidden or read-only store, or another I/O error.
    public var code: FailureCode {
        switch errno {
        case ENOSPC, EDQUOT: .cacheFull
        case EACCES, EPERM: .cacheDenied
        case EROFS: .cacheReadOnly
        default: .cacheIO
        }
    }

    /// The reason sent to the coordinator: the same words for every picture that fails the same way.
    public var reason: String {
        step == "stat"
            ? "cannot use the cache directory: \(String(cString: strerror(errno)))"
            : "cache write failed at \(step): \(String(cString: strerror(errno)))"
    }

    public var description: String { "\(reason) (\(path))" }
}
