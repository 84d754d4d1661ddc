/// An S3 request that did not succeed: what was asked (``operation``, ``bucket``, ``endpoint``), and
/// what happened: either the service's answer (``status`` with S3's error ``s3Code`` and
/// ``message``, as in `<Error><Code>NoSuchBucket</Code>…`) or no answer at all (``transport``: a
/// refused connection, a timeout, a TLS failure), kept whole.
public struct S3Error: Error, CustomStringConvertible, Sendable {
    /// How a caller should treat it; decided from the status and S3's code, never from words.
    public enum Kind: String, Sendable {
        /// The bucket does not exist (`NoSuchBucket`), or the object does not (`NoSuchKey`, 404).
        case notFound = "not-found"
        /// Credentials missing, unknown, expired or refused (`AccessDenied`, `InvalidAccessKeyId`,
        /// `SignatureDoesNotMatch`, `ExpiredToken`, 401/403), or a request the service will not take.
        case denied
        /// No answer, or one that says to come back later (`SlowDown`, 500, 502, 503, 504).
        case unavailable
        /// No room left (`XMinioStorageFull`, 507, a quota).
        case full
        /// An answer that cannot be read (a list that is not XML, a body cut short).
        case corrupt
        /// A condition on the request did not hold (`PreconditionFailed`, 412).
        case conditionFailed = "condition-failed"
        /// An answer larger than the caller takes in (``S3Client/get(_:length:maximumBytes:)``): its
        /// `Content-Length` said so, or its body grew past it; the request was cut off there.
        case tooLarge = "too-large"
    }

    public var kind: Kind
    /// `PUT`, `GET`, `HEAD`, `DELETE`, `LIST`, `DELETE-OBJECTS`, `COPY`, `HEAD-BUCKET`.
    public var operation: String
    public var bucket: String
    public var endpoint: String
    /// The object key, when the request was about one.
    public var key: String?
    /// The HTTP status, when the service answered.
    public var status: Int?
    /// S3's error code (`NoSuchBucket`, `SlowDown`, ...), when the answer had one.
    public var s3Code: String?
    /// S3's message, or what went wrong.
    public var message: String
    /// The error of the HTTP client when no answer came.
    public var transport: (any Error & Sendable)?

    public init(
        _ kind: Kind, operation: String, bucket: String, endpoint: String, key: String? = nil, status: Int? = nil, s3Code: String? = nil,
        message: String, transport: (any Error & Sendable)? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.bucket = bucket
        self.endpoint = endpoint
        self.key = key
        self.status = status
        self.s3Code = s3Code
        self.message = message
        self.transport = transport
    }

    /// The kind of an answer with `status` and S3's `code`.
    public static func kind(status: Int, code: String?) -> Kind {
        switch code {
        case "NoSuchBucket", "NoSuchKey": return .notFound
        case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "RequestTimeTooSkewed": return .unavailable
        case "XMinioStorageFull", "QuotaExceeded", "XMinioAdminBucketQuotaExceeded": return .full
        case "PreconditionFailed": return .conditionFailed
        case "BadDigest", "InvalidDigest", "IncompleteBody": return .corrupt
        default: break
        }
        switch status {
        case 404: return .notFound
        case 401, 403: return .denied
        case 412: return .conditionFailed
        case 429, 500...599:
            return status == 507 ? .full : .unavailable
        default: return .denied
        }
    }

    /// What S3 said (or why it said nothing), in words that are the same for every object failing
    /// the same way.
    public var summary: String {
        if let status {
            return "HTTP \(status)" + (s3Code.map { " \($0)" } ?? "") + (message.isEmpty ? "" : ": \(message)")
        }
        return message
    }

    public var description: String {
        let what = key.map { "s3://\(bucket)/\($0)" } ?? "bucket '\(bucket)'"
        return "\(operation) \(what) at \(endpoint): \(summary)"
    }
}
