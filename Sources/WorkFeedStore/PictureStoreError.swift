#if canImport(Glibc)
import Glibc
#endif
public import WorkFeedModel

/// A store could not do what was asked: which step, why (a code a failure report can carry), and
/// where. A failure of the storage, not of the picture: the coordinator retries such jobs later
/// without counting an attempt.
public struct PictureStoreError: Error, CustomStringConvertible, Sendable {
    /// `create`, `write`, `fsync`, `close`, `rename`, `mkdir`, `stat`, `unlink`, `link`, `open`, `read`, `check`.
    public var step: String
    /// The operating system's error number (`errno`).
    public var errno: Int32
    /// The file or object: for logs, never in the reason sent to the coordinator, where temporary
    /// names would make every failure a group of its own.
    public var path: String

    /// Set when the store refused what it found under a picture's name (a link, not a regular
    /// file, not a PNG, another picture's key): nothing failed, but nothing may be served either.
    public var refusal: Refusal?

    /// Why what is stored under a picture's name is not served.
    public enum Refusal: String, Sendable, CaseIterable {
        /// The name, or a directory on the way to it, is a symbolic link (or not a directory).
        case symbolicLink = "symbolic-link"
        /// A FIFO, a device, a socket or a directory.
        case notRegularFile = "not-regular-file"
        /// The bytes do not start with the PNG signature.
        case notPNG = "not-png"
        /// The PNG's embedded cache key is missing or is another picture's.
        case otherKey = "other-key"

        var message: String {
            switch self {
            case .symbolicLink: "a symbolic link (or a link on the way to it) is not followed"
            case .notRegularFile: "not a regular file"
            case .notPNG: "not a PNG file"
            case .otherKey: "the PNG's embedded cache key is not its name"
            }
        }
    }

    public init(step: String, errno: Int32, path: String) {
        self.step = step
        self.errno = errno
        self.path = path
    }

    /// What is stored under a picture's name is refused (``refusal``).
    public init(refusal: Refusal, path: String) {
        self.init(step: "check", errno: 0, path: path)
        self.refusal = refusal
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
        if let refusal { return "not a picture: \(refusal.message)" }
        return step == "stat"
            ? "cannot use the cache directory: \(String(cString: strerror(errno)))"
            : "cache write failed at \(step): \(String(cString: strerror(errno)))"
    }

    public var description: String { "\(reason) (\(path))" }
}
