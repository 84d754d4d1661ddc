import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire
import WorkFeedThreads

/// The gateway's endpoints (docs/openapi.yaml). Each handler asks the coordinator through
/// ``CoordinatorClients`` for the owner its token named, and reads pictures through the
/// ``PictureReader``; none opens the index.
struct GatewayAPI: Sendable {
    let configuration: GatewayConfiguration
    let clients: CoordinatorClients
    let events: PictureEvents
    let pictures: PictureReader
    let memory: PictureMemoryCache
    /// The keys the index called current lately, and those it released (read before the store).
    let verdicts: PictureVerdicts
    /// Picture reads under way for each client, bounded.
    let reads: ClientReads
    let metrics: GatewayMetrics
    /// Lines a client can cause at will (``ThrottledLog``).
    let throttled = ThrottledLog()
    /// Uploads per owner and minute.
    let uploads: UploadLimiter
    /// Reading uploaded files (GPX, TCX, FIT): work for a core, off the cooperative pool, bounded.
    let parsing: BlockingWork
    let logger: Logger

    /// The origin pictures are redirected to (`pictures.redirect`: the bucket's, or
    /// `pictures.redirect_base`'s), which the feed page's policy lets images come from; `nil`
    /// without redirects.
    var pictureOrigin: String? {
        guard configuration.picturesRedirect,
            let url = pictures.store.publicURL(key: String(repeating: "0", count: 64), base: configuration.picturesRedirectBase)
        else { return nil }
        return FeedPageRoute.origin(of: url)
    }

    /// Asks the coordinator; its failures become problems (503 when it does not answer).
    /// - Parameter change: the request changes what is stored: when the coordinator does not
    ///   answer, the 503 says what may have happened (``Problem/unavailableChange()``).
    func ask<Reply: Decodable & Sendable>(
        _ command: ControlCommand, _ body: some Encodable & Sendable, attachments: [[UInt8]] = [], as: Reply.Type = Reply.self,
        change: Bool = false
    ) async throws(Problem) -> Reply {
        try await ask(command, change: change) { () async throws(CoordinatorError) in
            try await clients.request(command, body, attachments: attachments, as: Reply.self)
        }
    }

    /// Runs a coordinator request; its failures become problems by their code
    /// (``Problem/from(_:notFound:)``: 404 for `not-found`, 503 when it did not answer or may be
    /// sent again, 500 for a request the gateway should not have made, which is logged).
    /// - Parameter notFound: the 404's detail, when the coordinator does not find what it names.
    func ask<Reply>(
        _ command: ControlCommand, notFound: String = "not found", change: Bool = false,
        _ request: () async throws(CoordinatorError) -> Reply
    ) async throws(Problem) -> Reply {
        do {
            return try await request()
        } catch {
            var problem = Problem.from(error, notFound: notFound)
            // Not answered at all (not refused `expired` or `busy`, which were surely not done).
            if change, case .unavailable = error { problem = .unavailableChange() }
            switch problem.status {
            case .serviceUnavailable: unavailable(error)
            case .internalServerError:
                logger.error("the coordinator refused a request of the gateway", metadata: ["command": "\(command.rawValue)", "error": "\(error)"])
            default: break
            }
            throw problem
        }
    }

    /// The request's `Idempotency-Key` (docs/gateway.md, "Idempotency-Key"), or `nil`; 400
    /// `bad-idempotency-key` when it is not 1 to 255 printable ASCII characters.
    static func idempotencyKey(_ request: Request) throws(Problem) -> String? {
        guard let key = request.headers[idempotencyKeyField] else { return nil }
        guard IdempotencyKey.isValid(key) else {
            throw Problem.badRequest(
                "bad-idempotency-key", "Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID, say), is '\(key.prefix(40))'")
        }
        return key
    }

    static let idempotencyKeyField = HTTPField.Name("Idempotency-Key")!

    /// Counts and logs (throttled) a request the coordinator did not answer; the client is told
    /// only that (``Problem/unavailable()``), the log says where and why.
    func unavailable(_ error: CoordinatorError) {
        metrics.coordinatorFailures.increment()
        throttled.log("coordinator-unavailable", "the coordinator did not answer; answered 503", metadata: ["error": "\(error)"], logger: logger)
    }

    /// One workout of `owner` with its pictures, or 404 (another owner's id is not found either).
    func show(_ id: WorkoutID, owner: String) async throws(Problem) -> ShowReply {
        let bytes = try await showRaw(ShowRequest(id: id, owner: owner))
        do {
            return try ControlCodec.decode(ShowReply.self, from: bytes)
        } catch {
            logger.error("the coordinator's SHOW reply could not be read", metadata: ["error": "\(error)"])
            throw Problem.internalError()
        }
    }

    /// One workout of `owner` as the feed shows it (a ``FeedItem``'s JSON, as the coordinator
    /// wrote it), or 404.
    func showItem(_ id: WorkoutID, owner: String) async throws(Problem) -> [UInt8] {
        try await showRaw(ShowRequest(id: id, owner: owner, summary: true))
    }

    private func showRaw(_ request: ShowRequest) async throws(Problem) -> [UInt8] {
        try await ask(.show, notFound: "no workout \(request.id)") { () async throws(CoordinatorError) in
            try await clients.requestRaw(.show, request)
        }
    }

    /// The workout id in the path; anything that is not one is a workout that does not exist.
    static func workoutID(_ context: GatewayContext) throws(Problem) -> WorkoutID {
        let text = context.parameters.get("id") ?? ""
        guard let id = WorkoutID(text) else { throw Problem.notFound("no workout \(text.prefix(40))") }
        return id
    }

    /// A whole-number query parameter within `range`, `fallback` when absent.
    static func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(Problem) -> Int {
        guard let text = request.uri.queryParameters[Substring(name)] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.badRequest(
                "bad-parameter", "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), is '\(text.prefix(40))'")
        }
        return value
    }

    /// A JSON object the coordinator wrote as the API gives it (a ``FeedPage``, a ``FeedItem``),
    /// sent on with the gateway's JSON headers. Anything but an object is not sent: 500, logged.
    static func json(object bytes: [UInt8], from command: ControlCommand, logger: Logger) throws(Problem) -> Response {
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            logger.error("the coordinator's reply is not a JSON object", metadata: ["command": "\(command.rawValue)", "bytes": "\(bytes.count)"])
            throw Problem.internalError()
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// JSON with the gateway's conventions: keys sorted at every level (as the coordinator writes
    /// the documents sent on as they came: docs/gateway.md, "Figures"), no escaped slashes, never
    /// cached by shared caches.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = headers
        headers[.contentType] = "application/json"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "private, no-cache" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
