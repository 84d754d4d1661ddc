#if canImport(Glibc)
import Glibc
#endif
public import WorkFeedModel

/// A store could not do what was asked: what kind of failure (``code``, which callers switch on),
/// which operation, where, and the error underneath kept whole (``cause``: an ``ErrnoCause`` for a
/// directory, an S3 error response or a connection error for an object store). A failure of the
/// storage, not of the picture: the coordinator retries such jobs later without counting an attempt.
public struct PictureStoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure: the one thing callers decide on (back off, stop at start, refuse).
    public enum Code: String, Sendable, CaseIterable {
        /// The store itself is not there: a missing directory (mount), a missing bucket.
        case notFound = "not-found"
        /// This process may not do it: permissions, a read-only file system, rejected credentials.
        case denied
        /// The store cannot answer now, or asks to slow down: an I/O error, a connection refused,
        /// a timeout, HTTP 500/503, S3's `SlowDown`. Transient.
        case unavailable
        /// No space or quota left.
        case full
        /// What is stored under a picture's name is not that picture (``refusal``), or the store
        /// answered with something that cannot be read.
        case corrupt
    }

    public var code: Code
    /// The operation or step: `create`, `write`, `fsync`, `rename`, `stat`, `unlink`, `link`,
    /// `open`, `read`, `check` in a directory; `PUT`, `GET`, `DELETE`, `LIST`, ... on an object store.
    public var step: String
    /// The file or object (a path, a URL): for logs, never in the reason sent to the coordinator,
    /// where temporary names would make every failure a group of its own.
    public var path: String
    /// The error underneath, whole.
    public var cause: (any Error & Sendable)?

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
        /// Larger than any picture this system draws (``StoredPicture/maximumBytes``): not read.
        case tooLarge = "too-large"

        var message: String {
            switch self {
            case .symbolicLink: "a symbolic link (or a link on the way to it) is not followed"
            case .notRegularFile: "not a regular file"
            case .notPNG: "not a PNG file"
            case .otherKey: "the PNG's embedded cache key is not its name"
            case .tooLarge: "larger than the largest picture this system draws (\(StoredPicture.maximumBytes) bytes)"
            }
        }
    }

    public init(_ code: Code, step: String, path: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.step = step
        self.path = path
        self.cause = cause
    }

    /// A failed system call of a directory store: the code follows from `errno`, kept as the cause.
    public init(step: String, errno: Int32, path: String) {
        self.init(ErrnoCause(errno).code, step: step, path: path, cause: ErrnoCause(errno))
    }

    /// What is stored under a picture's name is refused (``refusal``).
    public init(refusal: Refusal, path: String) {
        self.init(.corrupt, step: "check", path: path)
        self.refusal = refusal
    }

    /// The operating system's error number when a system call failed, else 0.
    public var errno: Int32 { (cause as? ErrnoCause)?.number ?? 0 }

    /// The failure code a worker reports for a picture it could not store: every one of them is a
    /// failure of the worker's surroundings (``FailureCode/isCacheFailure``), retried without
    /// counting an attempt once the store can be written again.
    public var failureCode: FailureCode {
        switch code {
        case .full: .cacheFull
        case .denied: errno == EROFS ? .cacheReadOnly : .cacheDenied
        case .unavailable: cause is ErrnoCause ? .cacheIO : .cacheUnavailable
        case .notFound, .corrupt: .cacheIO
        }
    }

    /// Whether trying again later may succeed without anyone changing anything: a store that is
    /// unavailable or throttling. Full, denied and missing stores wait for an operator (a worker
    /// still probes them with a back-off).
    public var isTransient: Bool { code == .unavailable }

    /// The reason sent to the coordinator: the same words for every picture that fails the same way.
    public var reason: String {
        if let refusal { return "not a picture: \(refusal.message)" }
        if let cause = cause as? ErrnoCause {
            return step == "stat"
                ? "cannot use the cache directory: \(cause.message)"
                : "cache write failed at \(step): \(cause.message)"
        }
        let said = cause.map { ": \(Self.summary(of: $0))" } ?? ""
        return "cache \(code.rawValue) at \(step)\(said)"
    }

    public var description: String { "\(reason) (\(path))" }

    /// The cause in a few stable words: its own ``PictureStoreCause/summary`` when it has one.
    static func summary(of cause: any Error) -> String {
        (cause as? any PictureStoreCause)?.summary ?? "\(cause)"
    }
}

/// An error underneath a ``PictureStoreError`` that can say itself in words that are the same for
/// every picture failing the same way (no object names, no request ids).
public protocol PictureStoreCause: Error, Sendable {
    var summary: String { get }
}

/// A system call's `errno`, with the code it means for a store.
public struct ErrnoCause: PictureStoreCause, CustomStringConvertible, Equatable {
    public let number: Int32

    public init(_ number: Int32) {
        self.number = number
    }

    public var message: String { String(cString: strerror(number)) }
    public var summary: String { message }
    public var description: String { "\(message) (errno \(number))" }

    var code: PictureStoreError.Code {
        switch number {
        case ENOSPC, EDQUOT: .full
        case EFBIG: .corrupt
        case EACCES, EPERM, EROFS: .denied
        case ENOENT, ENOTDIR: .notFound
        default: .unavailable
        }
    }
}
