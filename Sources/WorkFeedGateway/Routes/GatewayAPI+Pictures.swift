import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStore
import WorkFeedStyle
import WorkFeedWire
import WorkFeedThreads

extension GatewayAPI {
    /// `GET /v1/pictures/{key}.png`: a picture by its cache key. The key names the bytes, so the
    /// answer is immutable: cached for a year anywhere (a CDN too), with the key as its strong
    /// ETag, and `If-None-Match` answered 304. The key is checked to be 64 hex digits before it
    /// becomes a path. The store is read only for a key the index calls current (``current(_:)``):
    /// the bucket may still hold what the index withdrew or deleted, and a made-up key costs no
    /// bucket round trip. Pictures in memory, and keys the index called current in the last
    /// minutes, are served while the coordinator restarts.
    func picture(_ request: Request, context: GatewayContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard file.hasSuffix(".png"), CacheLayout.isCacheKey(file.dropLast(4)) else {
            throw Problem.notFound("no picture \(file.prefix(80)): a picture is named by its cache key, 64 lower-case hex digits, and .png")
        }
        let key = String(file.dropLast(4))
        let etag = "\"\(key)\""
        var headers: HTTPFields = [.cacheControl: "public, max-age=31536000, immutable", .eTag: etag]
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        if configuration.picturesRedirect, let url = pictures.store.publicURL(key: key, base: configuration.picturesRedirectBase) {
            // The bucket (or a CDN in front of it) serves the bytes; the redirect is as immutable as
            // they are, and as a read goes only to a key the index calls current.
            let client = try enterRead(request, context)
            defer { reads.leave(client) }
            try await current(key)
            headers[.location] = url
            return Response(status: .found, headers: headers)
        }
        let bytes: [UInt8]
        if let cached = memory.bytes(for: key) {
            metrics.memoryHits.increment()
            bytes = cached
        } else {
            metrics.memoryMisses.increment()
            let client = try enterRead(request, context)
            defer { reads.leave(client) }
            try await current(key)
            let found: [UInt8]?
            do {
                found = try await pictures.picture(key: key)
            } catch let error as PictureStoreError where error.refusal != nil {
                // Something other than the picture is under its name (a link planted by a host
                // that writes the cache, another file): never served, counted and logged.
                if let reason = error.refusal { metrics.picturesRefused[reason]?.increment() }
                throttled.log(
                    "picture-refused", "a picture name in the cache is not that picture; not served",
                    metadata: ["reason": "\(error.refusal?.rawValue ?? "")", "path": "\(error.path)"], logger: logger)
                throw Problem.notFound("no picture \(key)")
            } catch let error as PictureStoreError {
                // The store did not answer, or refused this gateway: nothing is wrong with the
                // request, so 503 with Retry-After (not 500), counted, and one log line a second
                // however many readers meet it (the line says how many it stands for).
                metrics.pictureReadFailures.increment()
                throttled.log(
                    "picture-store-unavailable", "the picture store cannot be read; answered 503",
                    metadata: ["code": "\(error.code.rawValue)", "error": "\(error)"], logger: logger)
                throw Problem.storeUnavailable()
            } catch let error as BlockingWorkError {
                throttled.log("picture-reads-busy", "picture reads refused: too many waiting", metadata: ["error": "\(error)"], logger: logger)
                throw Problem.busy(error)
            }
            // Current, yet not in the store: drawn again after a store was emptied, or its file lost.
            guard let read = found else { throw Problem.notFound("no picture \(key)") }
            // Not kept when an event released the key while it was read: the bytes may be gone.
            if !verdicts.wasReleased(key) { memory.insert(read, for: key) }
            bytes = read
        }
        headers[.contentType] = "image/png"
        headers[.contentLength] = String(bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Returns when `key` names a picture the index calls current: known so lately
    /// (``PictureVerdicts``), or asked (PICTURE). Else 410 Gone when a change of its owner's
    /// privacy zones withdrew it, 404 when the index does not know it, 503 when no coordinator
    /// answers (the store may hold what was withdrawn). The key is all the caller has, so no
    /// answer says anything of an owner.
    private func current(_ key: String) async throws(Problem) {
        if verdicts.isCurrent(key) { return }
        metrics.pictureQuestions.increment()
        let reply = try await ask(.picture, PictureRequest(key: key), as: PictureReply.self)
        // A coordinator of before issue 37 does not say `generated`: not withdrawn is read.
        guard reply.generated ?? !reply.withdrawn else { throw reply.withdrawn ? Self.withdrawn(key) : Problem.notFound("no picture \(key)") }
        verdicts.noteCurrent(key)
    }

    /// Counts a read of the request's client (``ClientReads``), or 429 with `Retry-After` when
    /// it has `pictures.reads_per_client` under way.
    private func enterRead(_ request: Request, _ context: GatewayContext) throws(Problem) -> String {
        let client = ClientReads.client(
            peer: context.peer, forwardedFor: request.headers[Self.forwardedFor], trustedProxies: configuration.trustedProxySet)
        guard reads.enter(client) else {
            metrics.pictureReadsRefused.increment()
            var problem = Problem(
                "too-many-reads", "Too many picture reads at once", status: .tooManyRequests,
                detail: "a client may have \(reads.perClient) picture reads under way at once: ask for the next when one is answered",
                extra: ["retryAfter": .number(1)])
            problem.headers[.retryAfter] = "1"
            throw problem
        }
        return client
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// 410 Gone for a key a change of its owner's privacy zones withdrew.
    static func withdrawn(_ key: String) -> Problem {
        Problem(
            "withdrawn", "The picture was withdrawn", status: .gone,
            detail: "picture \(key) was withdrawn when its owner's privacy zones changed: ask /v1/changes for the workout's pictures now")
    }

    /// Whether an `If-None-Match` header names `etag` (strong or weak comparison is the same
    /// here: the bytes behind a key never change), or is `*`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }

    /// `GET /v1/workouts/{id}/pictures/{kind}/{theme}?scale=&wait=` (a share card's also
    /// `&size=post|story`, at @3x unless `scale` says otherwise): a feed row became visible.
    /// The picture is requested ahead of bulk work (nothing happens when it is current), and the
    /// call waits up to `wait` seconds for it through the event stream: 200 with its URL, 202 with
    /// `Retry-After` while it is still pending, 422 when it cannot be drawn.
    func requestPicture(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let id = try Self.workoutID(context)
        guard var kind = PictureKind(rawValue: context.parameters.get("kind") ?? "") else {
            throw Problem.notFound("no picture kind \(context.parameters.get("kind")?.prefix(20) ?? ""): \(PictureKind.names())")
        }
        if let size = request.uri.queryParameters["size"] {
            guard kind.isCard, let chosen = ShareCardSize(rawValue: String(size)) else {
                throw Problem.badRequest(
                    "bad-parameter",
                    kind.isCard
                        ? "size must be \(ShareCardSize.allCases.map(\.rawValue).joined(separator: " or ")), is '\(size.prefix(40))'"
                        : "size is a share card's only: \(kind.rawValue) pictures have the configured size")
            }
            kind = chosen.kind
        }
        // Any name a theme may have: the coordinator knows which themes it draws, and answers
        // not-found for the others.
        guard let theme = Theme(rawValue: context.parameters.get("theme") ?? "") else {
            throw Problem.notFound("no picture theme \(context.parameters.get("theme")?.prefix(20) ?? "")")
        }
        let scale = try Self.integer(request, "scale", in: PictureSpec.scaleRange, default: kind.isCard ? ShareCardSize.defaultScale : 1)
        let wait = try Self.seconds(request, "wait", maximum: configuration.maximumWaitSeconds)
        let picture = PictureID(workoutID: id, kind: kind, theme: theme, scale: scale)

        // Registered before the request, so that an event between the request and the wait counts.
        let waiter = events.waiter(for: picture)
        defer { events.remove(waiter, for: picture) }
        var enqueue = EnqueueRequest(ids: [id], kinds: [kind], themes: [theme], scales: [scale], priority: EnqueueRequest.interactivePriority)
        enqueue.owner = owner
        _ = try await ask(.enqueue, notFound: "no picture theme \(theme)") { () async throws(CoordinatorError) in
            try await clients.request(.enqueue, enqueue, attachments: [], as: EnqueueReply.self)
        }
        var reply = try await show(id, owner: owner)
        if let record = Self.record(picture, in: reply), record.status == .pending, wait > 0 {
            if await waiter.wait(timeout: .milliseconds(Int64(wait * 1000))) != nil {
                reply = try await show(id, owner: owner)
            }
        }
        guard let record = Self.record(picture, in: reply) else {
            // No job: a picture of a workout without what its kind needs (a heatmap of a workout
            // without heart rate) is never drawn.
            let lacking = PictureInput.allCases.first { kind.needs.contains($0) && $0.isOptional && !$0.isPresent(in: reply.item.workout) }
            throw Problem(
                "not-drawable", "This picture cannot be drawn", status: .unprocessableContent,
                detail: lacking.map { "the workout has \($0.missing): it has no \(kind.rawValue)" } ?? "the picture cannot be drawn",
                extra: ["reason": .text(lacking?.missing ?? "not drawable")])
        }
        let state = PictureState(id: id, picture: FeedPicture(record, size: reply.pictureSize.map { ($0.width, $0.height) }))
        switch record.status {
        case .generated:
            // Its URL is read next: known current, it is served without asking again.
            if let key = record.cacheKey { verdicts.noteCurrent(key) }
            return try Self.json(state)
        case .pending:
            return try Self.json(state, status: .accepted, headers: [.retryAfter: "1"])
        case .failedNoRetry:
            throw Problem(
                "picture-failed", "The picture cannot be drawn", status: .unprocessableContent,
                detail: "\(kind.rawValue) \(theme.rawValue) of \(id): \(record.reason ?? "failed")",
                extra: ["reason": .text(record.reason ?? "failed")])
        }
    }

    static func record(_ picture: PictureID, in reply: ShowReply) -> PictureRecord? {
        reply.item.pictures.first { $0.picture == picture }
    }

    /// A number of seconds from 0 to `maximum` (fractions allowed), 0 when absent.
    static func seconds(_ request: Request, _ name: String, maximum: Double) throws(Problem) -> Double {
        guard let text = request.uri.queryParameters[Substring(name)] else { return 0 }
        guard let value = Double(text), value.isFinite, value >= 0, value <= maximum else {
            throw Problem.badRequest("bad-parameter", "\(name) must be a number of seconds from 0 to \(maximum), is '\(text.prefix(40))'")
        }
        return value
    }
}
