import Foundation
import Hummingbird
import Logging
import WorkFeedConfig
import WorkFeedImport
import WorkFeedModel
import WorkFeedThreads
import WorkFeedWire

extension GatewayAPI {
    /// `GET /v1/workouts/{id}`: one of the owner's workouts with its pictures.
    func workout(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let bytes = try await showItem(try Self.workoutID(context), owner: owner)
        return try Self.json(object: bytes, from: .show, logger: logger)
    }

    /// `GET /v1/workouts/{id}/track`: the route as the workout's pictures show it (privacy zones
    /// applied), simplified to at most ``WorkoutTrack/maximumPoints`` points, as encoded polylines
    /// and GeoJSON, with its elevation and heart-rate series: a ``WorkoutTrack``, built by the
    /// coordinator (which alone holds the privacy secret) and sent on as it wrote it. 404 for a
    /// workout the owner does not have.
    func track(_ request: Request, context: GatewayContext) async throws -> Response {
        let track = TrackRequest(id: try Self.workoutID(context), owner: try context.requireOwner())
        let bytes = try await ask(.track, notFound: "no workout \(track.id)") { () async throws(CoordinatorError) in
            try await clients.requestRaw(.track, track)
        }
        return try Self.json(object: bytes, from: .track, logger: logger)
    }

    /// `DELETE /v1/workouts/{id}`: deletes one of the owner's workouts with its pictures; 204.
    func deleteWorkout(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let id = try Self.workoutID(context)
        var change = DeleteRequest(ids: [id], owner: owner)
        change.idempotencyKey = try Self.idempotencyKey(request)
        let reply = try await ask(.delete, change, as: DeleteReply.self, change: true)
        guard reply.deleted.contains(id) else { throw Problem.notFound("no workout \(id)") }
        return Response(status: .noContent)
    }

    /// `POST /v1/workouts`: one GPX, TCX or FIT file as the body, or as the one file part of a
    /// `multipart/form-data` body (``MultipartUpload``). 201 for a new workout (its
    /// pictures requested ahead of bulk work), 200 for one already there (the same file again, or
    /// the same activity from another file), 400 naming the line and field of a broken file, which
    /// stores nothing. 429 with `Retry-After` past `uploads.per_owner_per_minute`, its body read
    /// and dropped (nothing kept).
    func upload(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let idempotencyKey: String?
        do {
            idempotencyKey = try Self.idempotencyKey(request)
        } catch {
            try await Self.discardBody(of: request, upTo: configuration.uploadMaximumBytes)
            throw error
        }
        if let seconds = uploads.take(owner) {
            context.logger.notice("upload refused: too many", metadata: ["owner": "\(owner)", "retry_after_s": "\(seconds)"])
            // Read and dropped as it comes, so that the client, still sending, reads the 429
            // (and its Retry-After) rather than a reset connection.
            try await Self.discardBody(of: request, upTo: configuration.uploadMaximumBytes)
            throw Problem.tooManyUploads(perMinute: uploads.perMinute, retryAfter: seconds)
        }
        // At most two uploads of an owner, and maximumReceiving in all, are received at once:
        // their bodies are what the gateway holds in memory (docs/gateway.md, "Uploads off the
        // cooperative pool"). Past either, refused before a byte of the body is read.
        // The refused body is read and dropped as it comes (nothing kept), so that the client,
        // still sending it, gets the answer rather than a reset connection.
        switch uploads.enter(owner, maximumInAll: Self.maximumReceiving) {
        case .admitted: break
        case .ownerAtOnce(let limit):
            context.logger.notice("upload refused: too many at once", metadata: ["owner": "\(owner)", "at_once": "\(limit)"])
            try await Self.discardBody(of: request, upTo: configuration.uploadMaximumBytes)
            throw Problem.tooManyUploadsAtOnce(limit)
        case .gatewayFull(let limit):
            context.logger.notice("upload refused: the gateway is receiving too many", metadata: ["owner": "\(owner)", "receiving": "\(limit)"])
            try await Self.discardBody(of: request, upTo: configuration.uploadMaximumBytes)
            throw Problem.busy(BlockingWorkError(label: "uploads being received", limit: limit))
        }
        defer { uploads.leave(owner) }
        // The body as it came, in chunks (never joined on the cooperative pool); its size bounded.
        let body = UploadBody(chunks: try await Self.bodyChunks(of: request, upTo: configuration.uploadMaximumBytes))
        // Checked once the body is read, so that the connection can carry the next request.
        let boundary = try MultipartUpload.boundary(ofContentType: request.headers[.contentType])
        let given = request.uri.queryParameters["filename"].map(String.init)

        // Everything that costs a core (the multipart parse, the file's parse and its checks) on
        // the parsing pool, never the cooperative pool; past its bound the upload is answered 503
        // with Retry-After, and nothing is stored.
        let outcome: Result<UploadedFile, Problem>
        do {
            outcome = try await parsing.run {
                Result { () throws(Problem) in try Self.readUpload(&body.chunks, boundary: boundary, filename: given) }
            }
        } catch {
            context.logger.notice("upload refused: the gateway is reading too many", metadata: ["owner": "\(owner)", "error": "\(error)"])
            throw Problem.busy(error)
        }
        let (name, workouts) = try outcome.map { ($0.name, $0.workouts) }.get()

        // One request: the workouts imported, their pictures requested and each returned as the
        // feed shows it, all in one transaction, so that a 503 (the coordinator did not answer in
        // time) means nothing was kept (it was an IMPORT for each workout, an ENQUEUE and a SHOW
        // for each: a stall after the first kept the workout behind the 503).
        var attachments: [[UInt8]] = workouts.flatMap { [SeriesCodec.encode($0.route), SeriesCodec.encode($0.heartRate)] }
        let original = workouts[0].original
        if let original { attachments.append(Gzip.compress(original)) }
        var change = UploadRequest(
            workouts: workouts.map { ImportRequest($0, owner: owner) }, hasOriginal: original != nil, kinds: configuration.uploadKinds,
            scales: configuration.uploadScales, priority: EnqueueRequest.interactivePriority, owner: owner)
        change.idempotencyKey = idempotencyKey
        let reply = try await ask(.upload, change, attachments: attachments, as: UploadReply.self, change: true)
        let uploaded = reply.workouts.map { UploadResult.Uploaded(result: $0.imported.result, reason: $0.imported.reason, workout: $0.item) }
        let results = reply.workouts.map { (id: $0.item.id, result: $0.imported.result) }
        guard !results.isEmpty else {
            logger.error("the coordinator's UPLOAD reply has no workout")
            throw Problem.internalError()
        }
        let created = results.contains { $0.result == .imported }
        let first = results[0]
        var headers: HTTPFields = [:]
        if created { headers[.location] = "/v1/workouts/\(first.id)" }
        context.logger.info(
            "upload", metadata: ["owner": "\(owner)", "file": "\(name)", "workouts": "\(results.count)", "result": "\(first.result.rawValue)"])
        return try Self.json(UploadResult(workouts: uploaded), status: created ? .created : .ok, headers: headers)
    }

    /// An upload's body as it came, handed whole from the handler to the parsing pool's thread,
    /// which lets each chunk go once parsed: the one reference to the chunks, so that they are
    /// freed as the parse goes (an array captured by the closure would keep them all).
    final class UploadBody: @unchecked Sendable {
        // @unchecked: filled by the handler, then used by one pool thread alone, the handler
        // waiting for it.
        var chunks: [ByteBuffer]
        init(chunks: [ByteBuffer]) { self.chunks = chunks }
    }

    /// A file uploaded and read: its name for messages and its workouts, each checked.
    struct UploadedFile: Sendable {
        var name: String
        var workouts: [ImportedWorkout]
    }

    /// Reads an upload's body (`chunks`, let go as they are parsed): the file as the body or as the
    /// one file part of a multipart body (curl -F, FormData), its format, its workouts and their
    /// checks. Blocking work for a core: called on the parsing pool.
    /// - Throws: ``Problem``: 400 (`empty-file`, `unreadable-file`, `no-workout`,
    ///   `empty-workout`, a multipart body without one file), 415 (`unsupported-format`).
    static func readUpload(_ chunks: inout [ByteBuffer], boundary: String?, filename given: String?) throws(Problem) -> UploadedFile {
        let upload = try boundary.map { boundary throws(Problem) in try MultipartUpload.file(in: &chunks, boundary: boundary) }
        var bytes: [UInt8]
        if let upload {
            bytes = upload.bytes
        } else {
            bytes = []
            bytes.reserveCapacity(chunks.reduce(0) { $0 + $1.readableBytes })
            for index in chunks.indices {
                bytes += chunks[index].readableBytesView
                chunks[index] = ByteBuffer()
            }
        }
        let name = uploadName(given ?? upload?.filename)
        guard !bytes.isEmpty else {
            throw Problem.badRequest("empty-file", "the \(upload == nil ? "request body" : "file part") is empty: \(MultipartUpload.sendOneFile)")
        }
        if let refusal = refusal(bytes) {
            throw Problem("unsupported-format", "Unsupported format", status: .unsupportedMediaType, detail: refusal)
        }
        // The content is the rule (the file name's extension helps only where it says nothing).
        guard WorkoutFileReader.isSingleWorkoutFile(bytes, file: name) else {
            throw Problem(
                "unreadable-file", "The file cannot be read", status: .badRequest,
                detail: "\(name): unknown file format: expected a GPX, TCX or FIT file: \(MultipartUpload.sendOneFile)",
                extra: ["file": .text(name)])
        }
        let workouts: [ImportedWorkout]
        do {
            workouts = try WorkoutFileReader.read(bytes: bytes, file: name)
        } catch {
            throw Problem.unreadable(error)
        }
        guard !workouts.isEmpty else {
            throw Problem.badRequest("no-workout", "\(name): the file holds no workout (no track, activity or course)")
        }
        // No track and no figure: an empty card is not a workout (docs/import.md, "Nothing to
        // show"). Refused as a whole, as a value out of range is, and nothing is stored.
        for workout in workouts {
            do throws(EmptyWorkout) {
                try workout.checkHasContent()
            } catch {
                throw Problem.emptyWorkout(error, file: name)
            }
        }
        // The coordinator refuses these too; checked here they are the file's fault (400), not a
        // request the gateway should not have made (500).
        for workout in workouts {
            do throws(ValueRangeError) {
                try workout.checkRanges()
            } catch {
                throw Problem(
                    "unreadable-file", "The file cannot be read", status: .badRequest, detail: "\(name): \(error.field): \(error.message)",
                    extra: ["file": .text(name), "field": .text(error.field)])
            }
        }
        return UploadedFile(name: name, workouts: workouts)
    }

    /// The request's body as it came, in chunks, at most `limit` bytes in all: a `Content-Length`
    /// over it is answered 413 at once, and so is a body that grows past it.
    static func bodyChunks(of request: Request, upTo limit: Int) async throws(Problem) -> [ByteBuffer] {
        if let claimed = request.headers[.contentLength], Int(claimed).map({ $0 > limit }) ?? true {
            throw Problem.tooLarge(limit: limit)
        }
        var chunks: [ByteBuffer] = []
        var count = 0
        do {
            for try await chunk in request.body {
                count += chunk.readableBytes
                guard count <= limit else { throw Problem.tooLarge(limit: limit) }
                chunks.append(chunk)
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.badRequest("bad-request", "the request body could not be read")
        }
        return chunks
    }

    /// Reads the request's body and keeps none of it (at most `limit` bytes, else 413).
    static func discardBody(of request: Request, upTo limit: Int) async throws(Problem) {
        if let claimed = request.headers[.contentLength], Int(claimed).map({ $0 > limit }) ?? true {
            throw Problem.tooLarge(limit: limit)
        }
        var count = 0
        do {
            for try await chunk in request.body {
                count += chunk.readableBytes
                guard count <= limit else { throw Problem.tooLarge(limit: limit) }
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.badRequest("bad-request", "the request body could not be read")
        }
    }

    /// The request's body, at most `limit` bytes: a `Content-Length` over it is answered 413 at
    /// once, before a byte of the body is read (a client that claims a gigabyte and sends nothing
    /// does not hold a connection until the idle timeout), and so is a body that grows past it.
    static func body(of request: Request, upTo limit: Int) async throws(Problem) -> ByteBuffer {
        if let claimed = request.headers[.contentLength], Int(claimed).map({ $0 > limit }) ?? true {
            throw Problem.tooLarge(limit: limit)
        }
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.tooLarge(limit: limit)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.badRequest("bad-request", "the request body could not be read")
        }
    }

    /// The file name used in messages: the client's `filename`, reduced to a plain name.
    static func uploadName(_ given: String?) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let base = (given ?? "").split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(base.filter { allowed.contains($0) }.prefix(100))
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "upload" : cleaned
    }

    /// Why a body is not a single GPX, TCX or FIT file, or `nil` when it may be one: archives and
    /// Apple Health exports (whose routes are other files) are for `workctl import`.
    static func refusal(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x1F, 0x8B]) {
            return "an archive: upload one GPX, TCX or FIT file (workctl import reads zip archives and exports)"
        }
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if head.contains("<HealthData") { return "an Apple Health export: upload one GPX, TCX or FIT file (workctl import reads exports)" }
        return nil
    }
}

extension Problem {
    static func tooManyUploads(perMinute: Int, retryAfter seconds: Int) -> Problem {
        var problem = Problem(
            "too-many-uploads", "Too many uploads", status: .tooManyRequests,
            detail: "an owner may upload \(perMinute) files a minute: try again in \(seconds) s", extra: ["retryAfter": .number(seconds)])
        problem.headers[.retryAfter] = "\(seconds)"
        return problem
    }

    /// 429: the owner has ``UploadLimiter/maximumAtOncePerOwner`` uploads being received already.
    static func tooManyUploadsAtOnce(_ limit: Int) -> Problem {
        var problem = Problem(
            "too-many-uploads", "Too many uploads at once", status: .tooManyRequests,
            detail: "an owner may send \(limit) uploads at once: send the next when one is answered", extra: ["retryAfter": .number(1)])
        problem.headers[.retryAfter] = "1"
        return problem
    }

    static func tooLarge(limit: Int) -> Problem {
        var problem = Problem(
            "too-large", "The request body is too large", status: .contentTooLarge, detail: "this body is limited to \(limit) bytes",
            extra: ["limit": .number(limit)])
        // The body that was not read must not be taken for the next request.
        problem.headers[.connection] = "close"
        return problem
    }

    /// A file with neither a track nor a figure (``EmptyWorkout``): 400 `empty-workout`, its
    /// `reason` the code (`no-points`, `one-point`).
    static func emptyWorkout(_ error: EmptyWorkout, file: String) -> Problem {
        Problem(
            "empty-workout", "The file has nothing to show", status: .badRequest, detail: "\(file): \(error.message)",
            extra: ["file": .text(file), "reason": .text(error.code.rawValue)])
    }

    /// A file that cannot be read: what is wrong and where (line for XML formats, the field or the
    /// byte offset for FIT).
    static func unreadable(_ error: ImportError) -> Problem {
        var extra: [String: ProblemValue] = ["file": .text(error.file)]
        if let line = error.line { extra["line"] = .number(line) }
        if let field = error.field { extra["field"] = .text(field) }
        return Problem("unreadable-file", "The file cannot be read", status: .badRequest, detail: error.description, extra: extra)
    }
}

extension GatewayAPI {
    /// Uploaded files read at once: one a core (a read is CPU work: parsing, decompressing).
    static let parsingThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Uploads being read or waiting to be, at once: four a core. The next is answered 503 with
    /// `Retry-After: 1` (`busy`) after its body was read, and nothing is stored; the app sends it
    /// again. With `uploads.max_bytes` (16 MiB) that bounds the bodies held for reading to 64 MiB
    /// a core, where one thread per upload had no bound at all.
    static let maximumParsing = 4 * parsingThreads
    /// Uploads whose bodies are being received at once, in all: twice those that may be read, so
    /// that bodies arrive while others are parsed. With `uploads.max_bytes` (16 MiB) it bounds the
    /// bodies in memory to 256 MiB here; the next is answered 503 `busy` before its body is read.
    static let maximumReceiving = 2 * maximumParsing
}
