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
        // The coordinator writes the page as the API gives it (``FeedPage``, in the owner's
        // units): sent on as it came, neither decoded nor written again.
        let bytes = try await ask(.feed) { () async throws(CoordinatorError) in try await clients.requestRaw(.feed, request) }
        return try Self.json(object: bytes, from: .feed, logger: logger)
    }

    /// `GET /v1/changes?since=&limit=&include=`: what changed for the owner after an anchor, oldest
    /// first; with `include=workout` each change but a deletion carries the workout as the feed
    /// shows it, and `limit` is that of a feed page (1–100).
    func changes(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let since = try Self.integer(request, "since", in: 0...Int(Int64.max), default: 0)
        var workouts = false
        if let include = request.uri.queryParameters["include"] {
            guard include == "workout" else {
                throw Problem.badRequest("bad-parameter", "include may only be 'workout', is '\(include.prefix(40))'")
            }
            workouts = true
        }
        let limit = try Self.integer(request, "limit", in: workouts ? 1...100 : 1...1000, default: workouts ? 100 : 500)
        let reply = try await ask(
            .changes, ChangesRequest(since: Int64(since), limit: limit, owner: owner, workouts: workouts ? true : nil), as: ChangesReply.self)
        return try Self.json(
            ChangesPage(
                changes: reply.changes, more: reply.more, anchor: reply.changes.last.map { reply.more ? $0.anchor : reply.anchor } ?? reply.anchor))
    }
}
