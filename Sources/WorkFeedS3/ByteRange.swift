package import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The bytes a server sent for a GET with `Range: bytes=START-END`, checked against what was
/// asked (``ByteRange/check(status:contentRange:bodyCount:asked:)``).
public struct RangedBody: Sendable, Hashable {
    public var bytes: [UInt8]
    /// The whole object's size, from `Content-Range` (`bytes START-END/SIZE`).
    public var objectSize: UInt64
    /// The answer's `ETag`, as sent (quotes and any `W/` kept); `nil` without one.
    public var etag: String?
    /// The answer's `Last-Modified`, as sent; `nil` without one.
    public var lastModified: String?

    public init(bytes: [UInt8], objectSize: UInt64, etag: String?, lastModified: String?) {
        self.bytes = bytes
        self.objectSize = objectSize
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// Range requests (RFC 9110, 14): the `Range` header for a span of bytes, and the check of the
/// answer's status, `Content-Range` and body, shared by ``S3Client/get(_:range:ifMatch:)`` and any
/// plain HTTP reader. Nothing in an answer is trusted: every number is parsed without trapping and
/// compared with what was asked.
public enum ByteRange {
    /// `bytes=START-END` (both inclusive) for a non-empty `range`.
    public static func header(_ range: Range<UInt64>) -> String {
        "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
    }

    /// The whole object's size when the answer holds exactly the asked bytes (or, at the object's
    /// end, the ones that exist), or what is wrong with it.
    ///
    /// - `206`: `Content-Range` must be `bytes START-END/SIZE` with START the asked start, the
    ///   body `END - START + 1` bytes long, and as long as the asked range or up to the object's end.
    /// - `200` (the server ignored `Range` and sent the whole object): taken only when the asked
    ///   range starts at 0 and the whole object fit in it (the caller bounds the body it takes in
    ///   to little more than the asked length, so a larger object never arrives whole); refused
    ///   otherwise.
    /// - Parameters:
    ///   - status: the answer's HTTP status (the caller has handled everything but 200 and 206).
    public static func check(status: Int, contentRange: String?, bodyCount: Int, asked: Range<UInt64>) -> Result<UInt64, ByteRangeError> {
        if status == 200 {
            guard asked.lowerBound == 0, UInt64(bodyCount) < asked.upperBound else {
                return .failure(
                    ByteRangeError(
                        "the server ignored the Range header: it answered 200 with the whole object to a request for bytes "
                            + "\(asked.lowerBound)-\(asked.upperBound - 1) (it must answer 206 Partial Content)"))
            }
            return .success(UInt64(bodyCount))
        }
        guard status == 206 else { return .failure(ByteRangeError("HTTP \(status) to a range request (206 expected)")) }
        guard let contentRange, let parsed = parse(contentRange) else {
            return .failure(ByteRangeError("206 without a Content-Range 'bytes START-END/SIZE' (got '\(contentRange ?? "")')"))
        }
        guard parsed.first == asked.lowerBound else {
            return .failure(ByteRangeError("Content-Range '\(contentRange)' starts elsewhere than the \(asked.lowerBound) asked for"))
        }
        let wanted = min(asked.upperBound, parsed.size) - min(asked.lowerBound, parsed.size)
        guard parsed.last - parsed.first + 1 == UInt64(bodyCount), UInt64(bodyCount) == wanted else {
            return .failure(
                ByteRangeError(
                    "Content-Range '\(contentRange)' with a body of \(bodyCount) bytes, for \(asked.upperBound - asked.lowerBound) bytes at "
                        + "\(asked.lowerBound) of a \(parsed.size)-byte object"))
        }
        return .success(parsed.size)
    }

    /// The answer's body as the bytes of `asked`, with its `ETag` and `Last-Modified`, when
    /// ``check(status:contentRange:bodyCount:asked:)`` takes it.
    package static func body(of response: HTTPClient.Response, asked: Range<UInt64>) -> Result<RangedBody, ByteRangeError> {
        let bytes = response.body.map { Array($0.readableBytesView) } ?? []
        let status = Int(response.status.code)
        return check(status: status, contentRange: response.headers.first(name: "Content-Range"), bodyCount: bytes.count, asked: asked).map {
            RangedBody(
                bytes: bytes, objectSize: $0, etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified"))
        }
    }

    /// `bytes FIRST-LAST/SIZE` with FIRST ≤ LAST < SIZE; `nil` for anything else (`*` sizes included).
    static func parse(_ text: String) -> (first: UInt64, last: UInt64, size: UInt64)? {
        let trimmed = text.trimmingPrefix(" ")
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let rest = trimmed.dropFirst("bytes ".count)
        let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let first = UInt64(ends[0]), let last = UInt64(ends[1]), let size = UInt64(halves[1]),
            first <= last, last < size
        else { return nil }
        return (first, last, size)
    }
}

/// What is wrong with an answer to a range request, in words that name the numbers.
public struct ByteRangeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
