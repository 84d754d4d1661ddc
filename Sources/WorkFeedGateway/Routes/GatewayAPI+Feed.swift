import Hummingbird
import Logging
import WorkFeedModel
import WorkFeedWire

extension GatewayAPI {
    /// `GET /v1/feed?limit=&cursor=`: the owner's workouts, newest first, a keyset page at a time.
    func feed(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let limit = try Self.integer(request, "limit", in: 1...100, default: 20)
        var cursor: String?
        if let text = request.uri.queryParameters["cursor"] {
            guard let parsed = FeedCursor(String(text)) else {
                throw Problem.badRequest("bad-cursor", "cursor is not one this feed gave out: pass the `next` of the previous page")
            }
            cursor = parsed.description
        }
        let request = FeedRequest(limit: limit, cursor: cursor, owner: owner, summary: true)
        let bytes = try await ask(.feed) { () async throws(CoordinatorError) in try await clients.requestRaw(.feed, request) }
        let reply: FeedSummaryReply
        do {
            reply = try FeedSummaryReply(json: bytes)
        } catch {
            logger.error("the coordinator's FEED reply could not be read", metadata: ["error": "\(error)"])
            throw Problem.internalError()
        }
        return Self.json(FeedPage(items: reply.items.map { WorkoutItem($0, size: reply.pictureSize) }, next: reply.next))
    }

    /// `GET /v1/changes?since=&limit=`: what changed for the owner after an anchor, oldest first.
    func changes(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let since = try Self.integer(request, "since", in: 0...Int(Int64.max), default: 0)
        let limit = try Self.integer(request, "limit", in: 1...1000, default: 500)
        let reply = try await ask(.changes, ChangesRequest(since: Int64(since), limit: limit, owner: owner), as: ChangesReply.self)
        return try Self.json(
            ChangesPage(
                changes: reply.changes.map { .init(anchor: $0.anchor, id: $0.id.description, change: $0.change.rawValue) }, more: reply.more,
                anchor: reply.changes.last.map { reply.more ? $0.anchor : reply.anchor } ?? reply.anchor))
    }
}
