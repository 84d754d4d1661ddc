import WorkFeedS3

/// A GET of a span of a remote archive's bytes: over plain HTTP (``HTTPRangeTransport``) or S3
/// (``S3RangeTransport``). Each call blocks until the answer is there: call it from a thread of
/// your own, never from Swift's cooperative pool.
protocol RangeTransport: Sendable {
    /// The archive's URL (`https://…`, `s3://bucket/key`), for messages.
    var location: String { get }
    /// What a person checks when the archive cannot be reached (the URL and the server; the
    /// bucket, the endpoint and the credentials).
    var whatToCheck: String { get }

    /// The bytes of `range` (fewer at the archive's end), checked as
    /// ``ByteRange/check(status:contentRange:bodyCount:asked:)`` does, and never more than the
    /// range's length taken in.
    /// - Parameter ifMatch: the entity tag the archive must still have (`If-Match`).
    func get(_ range: Range<UInt64>, ifMatch: String?) throws(RemoteReadFailure) -> RangedBody
}

/// Why a range request gave no bytes, by what a caller does about it.
struct RemoteReadFailure: Error, Sendable {
    enum Kind: Sendable {
        /// No answer: a refused or dropped connection, a timeout, a name that does not resolve.
        case noAnswer
        /// An answer that says to come back later: HTTP 429 or 5xx.
        case serverTrouble
        /// There is no archive there (HTTP 404 or 410, S3's `NoSuchKey`).
        case notFound
        /// The request is refused (HTTP 401, 403 and other 4xx).
        case refused
        /// The archive is no longer the one asked for (HTTP 412 to `If-Match`).
        case changed
        /// An answer that is not the asked range (a server that ignores `Range`, a body of
        /// another length).
        case badAnswer
    }

    var kind: Kind
    /// The HTTP status, when the server answered.
    var status: Int?
    var message: String
}

/// A remote archive read by range requests: every read is one GET of exactly the bytes asked
/// for, except that the first bytes (the PMTiles header and, as the spec asks writers to place
/// it, the root directory: ``prefetchBytes``) are fetched once when it opens and served from
/// memory. Nothing reads the archive whole.
///
/// It notices an archive that changed behind its URL: each read sends `If-Match` with the
/// strong `ETag` of the first answer, and an answer with another `ETag`, `Last-Modified` or size
/// fails with `.unavailable` saying so (every later picture that needs an unread tile fails the
/// same way, and is drawn once the coordinator and workers are restarted on the new archive).
///
/// Failures at open are named with what to check (``RangeTransport/whatToCheck``); every failure
/// of a later read is `.unavailable`: the archive answered once, so what fails is the network or
/// the server, and the picture is tried again later.
final class RemoteRangeReader: RangeReader {
    let location: String
    let size: UInt64
    let remoteVersion: String?
    private let transport: any RangeTransport
    private let head: [UInt8]
    private let etag: String?
    private let lastModified: String?

    /// What the first request asks for: the PMTiles header and root directory fit in it (spec 3.1).
    static let prefetchBytes: UInt64 = 16_384

    /// Reads the first ``prefetchBytes`` (the whole archive when it is smaller).
    ///
    /// - Throws: ``TileError`` naming the URL: `.unavailable` when the server does not answer or
    ///   answers 429 or 5xx, `.unreadable` when there is no archive there, access is refused, or
    ///   the server does not answer range requests; each with what to check.
    init(_ transport: any RangeTransport) throws(TileError) {
        let first: RangedBody
        do {
            first = try transport.get(0..<Self.prefetchBytes, ifMatch: nil)
        } catch {
            throw Self.openingError(error, transport)
        }
        location = transport.location
        self.transport = transport
        size = first.objectSize
        head = first.bytes
        etag = first.etag
        lastModified = first.lastModified
        remoteVersion = first.etag.map { "etag \($0)" } ?? first.lastModified.map { "last-modified \($0)" } ?? ""
    }

    func read(at offset: UInt64, count: Int) throws(TileError) -> [UInt8] {
        guard count > 0 else { return [] }
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        guard !overflow, end <= size else {
            throw TileError(.unreadable, "bytes \(offset) + \(count) lie past the end of the \(size)-byte archive", path: location)
        }
        if end <= UInt64(head.count) { return Array(head[Int(offset)..<Int(end)]) }
        let body: RangedBody
        do {
            // Weak tags never match If-Match (RFC 9110, 13.1.1): those are compared below instead.
            body = try transport.get(offset..<end, ifMatch: etag.flatMap { $0.hasPrefix("W/") ? nil : $0 })
        } catch {
            if error.kind == .changed { throw changed("the server refused If-Match \(etag ?? "")") }
            throw TileError(.unavailable, "bytes \(offset) + \(count) cannot be fetched: \(error.message)", path: location)
        }
        if let etag, body.etag != etag { throw changed("ETag \(etag) when opened, \(body.etag ?? "none") now") }
        if etag == nil, let lastModified, body.lastModified != lastModified {
            throw changed("Last-Modified \(lastModified) when opened, \(body.lastModified ?? "none") now")
        }
        guard body.objectSize == size else { throw changed("\(size) bytes when opened, \(body.objectSize) now") }
        // ByteRange.check gave exactly the bytes that exist in the range, and the range lies inside.
        guard body.bytes.count == count else {
            throw TileError(.unavailable, "\(body.bytes.count) bytes came for the \(count) at \(offset)", path: location)
        }
        return body.bytes
    }

    private func changed(_ how: String) -> TileError {
        TileError(
            .unavailable,
            "the archive changed since it was opened (\(how)): restart the coordinator and the workers to draw on the new one "
                + "(its identity changes, and with it every map picture's cache key)",
            path: location)
    }

    private static func openingError(_ failure: RemoteReadFailure, _ transport: any RangeTransport) -> TileError {
        let check = "check \(transport.whatToCheck)"
        switch failure.kind {
        case .noAnswer, .serverTrouble, .changed:
            return TileError(.unavailable, "cannot be reached: \(failure.message); \(check)", path: transport.location)
        case .notFound:
            return TileError(.unreadable, "no archive there: \(failure.message); \(check)", path: transport.location)
        case .refused:
            return TileError(.unreadable, "access refused: \(failure.message); \(check)", path: transport.location)
        case .badAnswer:
            return TileError(
                .unreadable, "\(failure.message); serve the archive from a server that answers range requests (206 Partial Content)",
                path: transport.location)
        }
    }
}
