import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire
import WorkFeedStyle
import WorkFeedPrivacy

extension Dispatcher {
    /// Answers one request that writes or must see the writer's state (IMPORT, ENQUEUE, DELETE,
    /// ZONES, SETTINGS, RESOLVE, ORIGINAL) inside the turn's transaction, on the index thread; the loop thread
    /// has parsed it, checked its role and admitted it, and read requests never come here (the
    /// ``ReadService``'s threads answer them from read-only connections). Whatever goes wrong
    /// becomes an ERROR reply that says what, except a conflict with another coordinator's
    /// transaction, which is thrown: the turn is applied again.
    ///
    /// Each request is all or nothing (issue 23, finding 9): it runs inside a savepoint of the
    /// batch's transaction, and when it fails its changes to the index, to the picture specs (a
    /// privacy zone's) and to the outbox (events, files to remove, metrics) are undone; the
    /// batch's other requests commit.
    ///
    /// - Returns: the reply; a PROGRESS reply, or none, when the request goes on in the next
    ///   batch (``Outbox/continuing``: a long DELETE, done in steps).
    func handleControl(
        _ work: ControlWork, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws(IndexError) -> ControlReply? {
        let request = work.request
        let (specsBefore, outboxBefore) = (specs, outbox)
        do {
            return try transaction.savepoint { transaction in
                // A change sent again with its idempotency key is answered as the first time,
                // not carried out twice; the reply to one carried out is kept in the same savepoint.
                let idempotency = try IdempotencyFields.of(request)
                if let idempotency, let kept = try transaction.reader.keptReply(owner: idempotency.owner, key: idempotency.key) {
                    guard kept.digest == idempotency.digest else {
                        throw ControlRequestError(
                            .idempotencyKeyReused,
                            "\(request.command.rawValue): the idempotency key '\(idempotency.key.prefix(80))' was sent with another request")
                    }
                    logger.debug("a change sent again with its idempotency key; answered as before", metadata: ["key": "\(idempotency.key)"])
                    return ControlReply(id: request.id, ok: true, body: kept.reply)
                }
                let reply = try answer(work, specs: &specs, transaction: &transaction, outbox: &outbox)
                if let idempotency, let reply, reply.ok, !reply.isProgress {
                    try transaction.keepReply(reply.body, owner: idempotency.owner, key: idempotency.key, digest: idempotency.digest, now: Date())
                }
                return reply
            }
        } catch let error as IndexError where error.code == .conflict {
            // A deadlock with another coordinator's turn (PostgreSQL): the request was not wrong,
            // and the rows the turn locked before it are still held; the whole turn is rolled back
            // and applied again (``process(_:)``), not the request refused.
            throw error
        } catch {
            (specs, outbox) = (specsBefore, outboxBefore)
            return refusal(request, error)
        }
    }

    /// The ERROR reply to a request that failed.
    private func refusal(_ request: ControlRequest, _ error: any Error) -> ControlReply {
        switch error {
        case let error as ControlRequestError:
            return .error(id: request.id, code: error.code, reason: error.reason, error.description)
        default:
            logger.error("control request failed", metadata: ["command": "\(request.command.rawValue)", "error": "\(error)"])
            return .error(id: request.id, code: .internal, "\(request.command.rawValue) failed: \(error)")
        }
    }

    /// The reply to one write request: OK with its body, or none while a long request goes on.
    private func answer(
        _ work: ControlWork, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws -> ControlReply? {
        let request = work.request
        func ok(_ body: [UInt8]) -> ControlReply { ControlReply(id: request.id, ok: true, body: body) }
        switch request.command {
        case .importWorkout:
            let body = try decode(ImportRequest.self, request)
            let original = body.file.flatMap { work.original?[$0.sha256] }
            return ok(
                try ControlCodec.encode(
                    try importWorkout(body, attachments: request.attachments, original: original, transaction: &transaction, outbox: &outbox)))

        case .upload:
            return ok(
                try upload(
                    try decode(UploadRequest.self, request), request.attachments, original: work.original, specs: &specs,
                    transaction: &transaction, outbox: &outbox))

        case .resolve:
            let body = try decode(ResolveRequest.self, request)
            guard body.prefixes.count <= 10_000 else { throw ControlRequestError("RESOLVE: at most 10000 prefixes at a time") }
            var matches: [ResolveReply.Match] = []
            for prefix in body.prefixes {
                let hex = prefix.lowercased().filter { $0 != "-" }
                guard (4...32).contains(hex.count), hex.allSatisfy(\.isHexDigit) else {
                    throw ControlRequestError("'\(prefix.prefix(40))' is not a workout id or a prefix of one (4 to 32 hex digits)")
                }
                matches.append(
                    ResolveReply.Match(
                        prefix: prefix, ids: try transaction.reader.workouts(withPrefix: hex, limit: ResolveReply.candidateLimit)))
            }
            return ok(try ControlCodec.encode(ResolveReply(matches: matches)))

        case .original:
            let (body, file) = try original(request, reader: transaction.reader)
            return ControlReply(id: request.id, ok: true, body: body, attachments: [file])

        case .enqueue:
            let body = try decode(EnqueueRequest.self, request).checked(themes: configuration.themes, onRequest: configuration.onRequestThemes)
            return ok(try ControlCodec.encode(try enqueue(body, specs: &specs, transaction: &transaction, outbox: &outbox)))

        case .delete:
            // In steps: a PROGRESS reply, or none, while it goes on (Dispatcher+Delete.swift).
            return try deleteStep(work, specs: &specs, transaction: &transaction, outbox: &outbox)

        case .zones:
            return ok(try zones(try decode(ZonesRequest.self, request), specs: &specs, transaction: &transaction, outbox: &outbox))

        case .settings:
            return ok(try settings(try decode(SettingsRequest.self, request), specs: &specs, transaction: &transaction, outbox: &outbox))

        case .ping, .status, .show, .feed, .changes, .failed, .picture, .summary, .track:
            // Answered by the loop (PING) and the read service; never sent here.
            throw ControlRequestError("\(request.command.rawValue) is not a write request")
        }
    }
}

extension Dispatcher {
    /// IMPORT: one workout and its series (`attachments`: route, heart rate, and optionally the
    /// original file), checked as every client's must be, filed under its owner.
    /// - Parameter original: what the ``OriginalIntake`` did with the original of the workout's
    ///   file (`nil`: not kept); this thread never waits for the originals' store.
    func importWorkout(
        _ body: ImportRequest, attachments: [[UInt8]], original: OriginalIntake.Outcome?, transaction: inout Index.Transaction,
        outbox: inout Outbox
    ) throws -> ImportReply {
        guard attachments.count == 2 || attachments.count == 3 else {
            throw ControlRequestError(
                "IMPORT needs 2 attachment frames (route, heart rate) and optionally the original file, got \(attachments.count)")
        }
        var route: Route
        let heartRate: [HeartRateSample]
        do {
            route = try SeriesCodec.decodeRoute(attachments[0])
            route.altitudeSource = body.altitudeSource
            heartRate = try SeriesCodec.decodeHeartRate(attachments[1])
        } catch {
            throw ControlRequestError("IMPORT of \(body.origin): \(error)")
        }
        if let file = body.file, !OriginalFileStore.isValidHash(file.sha256) {
            throw ControlRequestError("IMPORT of \(body.origin): file.sha256 must be 64 lower-case hex digits")
        }
        if let position = body.positionInFile, !(0...1_000_000_000).contains(position) {
            throw ControlRequestError("IMPORT of \(body.origin): positionInFile must be 0...1000000000")
        }
        let workout = ImportedWorkout(
            source: body.source, sourceID: body.sourceID, activity: body.activity, name: body.name, route: route,
            heartRate: heartRate, start: body.start, end: body.end, timeZoneOffset: body.timeZoneOffset,
            timeZone: body.timeZone, timeZoneSource: body.timeZoneSource, origin: body.origin,
            file: body.file, positionInFile: body.positionInFile ?? 0, device: body.device)
        do {
            try workout.checkRanges()
        } catch {
            throw ControlRequestError("IMPORT of \(body.origin.prefix(200)): \(error)")
        }
        // The gateway and workctl check it before they send; this is the rule for every client.
        if let empty = workout.emptiness {
            throw ControlRequestError(.emptyWorkout, reason: empty.code.rawValue, "IMPORT of \(empty.description.prefix(400))")
        }
        let owner = try checkOwner(body.owner, "IMPORT") ?? configuration.defaultOwner
        let kept = original ?? OriginalIntake.Outcome(kept: false, written: false)
        var maybeUnreferenced = Set<String>()
        var reply = try transaction.importWorkout(
            workout, owner: owner, allowDuplicates: body.allowDuplicates == true, originalKept: kept.kept, now: Date(),
            replacedFile: { maybeUnreferenced.insert($0) })
        reply.owner = owner
        if kept.written, reply.result == .duplicate || reply.result == .keptRicher, let file = body.file {
            maybeUnreferenced.insert(file.sha256)
        }
        // Originals nothing stored comes from any more go once the turn is committed.
        outbox.removals += try transaction.reader.unreferencedFiles(maybeUnreferenced).filter(OriginalFileStore.isValidHash).map(Removal.original)
        if [.imported, .updated, .replacedDuplicate].contains(reply.result) {
            outbox.events.append(.workout(WorkoutEvent(workoutID: reply.id, change: reply.result.rawValue, owner: owner)))
        }
        logger.debug("workout \(reply.result.rawValue)", metadata: ["id": "\(reply.id)", "origin": "\(body.origin)", "owner": "\(owner)"])
        // Counted when the batch commits, with the reply that says so.
        outbox.tally.imports[reply.result, default: 0] += 1
        return reply
    }

    /// ENQUEUE: the pictures `body` names made current, ahead of bulk work at its priority.
    func enqueue(
        _ body: EnqueueRequest, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws -> EnqueueReply {
        _ = try checkOwner(body.owner, "ENQUEUE")
        let reply = try transaction.enqueue(
            body, scales: configuration.scales, now: Date(), interactivePerOwner: configuration.interactivePerOwner
        ) { picture, inputs in specs.cacheKey(for: picture, inputs: inputs)
        }
        if reply.created + reply.stale + reply.revived > 0 { outbox.events.append(.queued(QueuedEvent(body, reply))) }
        logger.info(
            "enqueued",
            metadata: [
                "created": "\(reply.created)", "stale": "\(reply.stale)", "pending": "\(reply.alreadyPending)",
                "current": "\(reply.current)", "failed": "\(reply.failed)",
            ])
        return reply
    }

    /// UPLOAD: a file's workouts imported, the pictures of those new or changed requested, and
    /// each answered as the feed shows it, all in the request's savepoint (``handleControl``):
    /// when any part fails, nothing of it is kept.
    private func upload(
        _ body: UploadRequest, _ attachments: [[UInt8]], original: [String: OriginalIntake.Outcome]?, specs: inout PictureSpecs,
        transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws -> [UInt8] {
        let owner = try checkOwner(body.owner, "UPLOAD") ?? configuration.defaultOwner
        guard (1...ControlLimits.maximumUploadWorkouts).contains(body.workouts.count) else {
            throw ControlRequestError("UPLOAD: workouts has \(body.workouts.count) entries, 1 to \(ControlLimits.maximumUploadWorkouts)")
        }
        let expected = body.workouts.count * 2 + (body.hasOriginal ? 1 : 0)
        guard attachments.count == expected else {
            throw ControlRequestError(
                "UPLOAD of \(body.workouts.count) workout(s)\(body.hasOriginal ? " and the original" : "") needs \(expected) attachment frames, got \(attachments.count)"
            )
        }
        var imported: [ImportReply] = []
        for (number, workout) in body.workouts.enumerated() {
            var one = workout
            one.owner = owner
            let bytes = number == 0 && body.hasOriginal ? [attachments[attachments.count - 1]] : []
            // The file's original was kept (or not) once, with the first workout; the others of
            // the file share it.
            var outcome = one.file.flatMap { original?[$0.sha256] }
            if number > 0 { outcome?.written = false }
            imported.append(
                try importWorkout(
                    one, attachments: Array(attachments[number * 2..<number * 2 + 2]) + bytes, original: outcome, transaction: &transaction,
                    outbox: &outbox))
        }
        let requested = imported.filter { [.imported, .updated, .replacedDuplicate].contains($0.result) }.map(\.id)
        if !requested.isEmpty {
            // No themes: every theme the coordinator draws ahead.
            var request = EnqueueRequest(ids: requested, kinds: body.kinds, themes: [], scales: body.scales, priority: body.priority)
            request.owner = owner
            _ = try enqueue(
                request.checked(themes: configuration.themes, onRequest: configuration.onRequestThemes), specs: &specs, transaction: &transaction,
                outbox: &outbox)
        }
        var answered: [UploadReply.Workout] = []
        for reply in imported {
            let id = reply.result == .duplicate ? (reply.duplicateOf ?? reply.id) : reply.id
            guard let workout = try transaction.reader.workout(id, owner: owner) else {
                throw ControlRequestError("UPLOAD: workout \(id) was not stored")
            }
            let item = try feedItems([workout], reader: transaction.reader, pictureSize: pictureSize)[0]
            answered.append(UploadReply.Workout(imported: reply, item: item))
        }
        return try ControlCodec.encode(UploadReply(workouts: answered))
    }

    /// The size of a picture at @1x, which feed items carry.
    private var pictureSize: PictureSize { PictureSize(width: configuration.pictureWidth, height: configuration.pictureHeight) }

    /// ORIGINAL: the kept original of a workout, as a reply body and the compressed file.
    private func original(_ request: ControlRequest, reader: Index.Reader) throws -> (body: [UInt8], file: [UInt8]) {
        let body = try decode(OriginalRequest.self, request)
        guard let found = try reader.file(of: body.id) else {
            throw ControlRequestError(.notFound, "ORIGINAL: workout \(body.id) is not in the index, or was imported before files were kept")
        }
        let kept: [UInt8]?
        do {
            kept = try originals.read(found.file.sha256)
        } catch {
            throw ControlRequestError("ORIGINAL: workout \(body.id): \(error)")
        }
        guard let compressed = kept else {
            throw ControlRequestError(.notFound, "ORIGINAL: the original of workout \(body.id) (\(found.file.name)) is not kept")
        }
        return (try ControlCodec.encode(OriginalReply(id: body.id, file: found.file, positionInFile: found.positionInFile)), compressed)
    }
}

/// The owner a request names, checked (``Owner/problem(with:)``); `nil` when it names none.
func checkOwner(_ owner: String?, _ command: String) throws(ControlRequestError) -> String? {
    guard let owner else { return nil }
    if let problem = Owner.problem(with: owner) { throw ControlRequestError("\(command): owner: \(problem)") }
    return owner
}

/// A request's JSON body as the type it must be, or an ERROR that says why not.
func decode<T: Decodable>(_ type: T.Type, _ request: ControlRequest) throws(ControlRequestError) -> T {
    do {
        return try ControlCodec.decode(type, from: request.body)
    } catch {
        throw ControlRequestError("\(request.command.rawValue): the JSON body is not a \(T.self): \(error)")
    }
}

extension EnqueueRequest {
    /// Range-checks an ENQUEUE's values, naming the field that is out of range, and gives it the
    /// themes drawn ahead when it names none (``EnqueueRequest/themes``).
    /// - Parameters:
    ///   - themes: the themes this coordinator draws ahead (`themes`);
    ///   - onRequest: those it draws when named (`on_request_themes`). A theme in neither is
    ///     refused `not-found`.
    func checked(themes: [Theme], onRequest: [Theme]) throws(ControlRequestError) -> EnqueueRequest {
        guard !kinds.isEmpty else { throw ControlRequestError("ENQUEUE needs at least one kind") }
        var body = self
        if body.themes.isEmpty { body.themes = themes }
        if let unknown = body.themes.first(where: { !themes.contains($0) && !onRequest.contains($0) }) {
            throw ControlRequestError(
                .notFound,
                "ENQUEUE: no theme \(unknown): this coordinator draws \((themes + onRequest).map(\.rawValue).joined(separator: ", ")) (its themes and on_request_themes settings)"
            )
        }
        if let scales = body.scales, scales.contains(where: { !PictureSpec.scaleRange.contains($0) }) {
            throw ControlRequestError("ENQUEUE: scales must be \(PictureSpec.scaleNames)")
        }
        if let ids = body.ids, ids.count > ControlLimits.maximumEnqueueIDs {
            throw ControlRequestError("ENQUEUE: ids has \(ids.count) entries, at most \(ControlLimits.maximumEnqueueIDs) a request")
        }
        if let codes = body.reasonCodes, codes.count > 64 || !codes.allSatisfy(FailureCode.isWellFormed) {
            throw ControlRequestError("ENQUEUE: reasonCodes must be at most 64 codes, each 1 to 64 lower-case letters, digits and '-'")
        }
        if let priority = body.priority, !ControlLimits.priorities.contains(priority) {
            throw ControlRequestError(
                "ENQUEUE: priority \(priority) is outside \(ControlLimits.priorities.lowerBound)...\(ControlLimits.priorities.upperBound)")
        }
        for (field, date) in [("since", body.since), ("until", body.until)] {
            guard let date else { continue }
            do { try ValueLimits.checkTime(date, field: field) } catch { throw ControlRequestError("ENQUEUE: \(error)") }
        }
        return body
    }
}

extension ControlCommand {
    /// Whether the request only reads: answered outside the write transaction, from a read-only
    /// connection (``ReadService``), so that no read ever holds up dispatch.
    var isRead: Bool {
        switch self {
        case .ping, .status, .show, .feed, .changes, .failed, .picture, .summary, .track: true
        // RESOLVE and ORIGINAL read too, but are small and rare: they go with the writes.
        case .importWorkout, .upload, .enqueue, .delete, .resolve, .original, .zones, .settings: false
        }
    }
}

/// Which control requests each role may send. The ZAP handler already keeps worker keys off the
/// control socket; this is the second line. A gateway key may only do what the phone app's
/// endpoints need (docs/security.md), and only on behalf of an owner: a leaked gateway key cannot
/// list every owner's workouts, read originals, or see the failures and workers of the whole system.
enum ControlPolicy {
    /// Why `request` may not be sent by `role`, or `nil` when it may. `nil` role: no CURVE (loopback
    /// only), every local process is trusted alike.
    static func refusal(of request: ControlRequest, for role: ClientRole?) -> String? {
        switch role {
        case nil, .operator?: return nil
        case .worker?: return "\(request.command.rawValue) refused: a worker key may not use the control protocol"
        case .gateway?:
            switch request.command {
            // A picture's URL names no owner and the answer says nothing about one (docs/privacy.md).
            case .ping, .picture: return nil
            case .importWorkout, .upload, .enqueue, .show, .feed, .changes, .delete, .zones, .settings, .summary, .track:
                // Only the owner field is read here; the body is parsed fully where it is answered.
                struct OwnerField: Decodable { var owner: String? }
                guard let owner = try? ControlCodec.decode(OwnerField.self, from: request.body).owner, Owner.problem(with: owner) == nil else {
                    return "\(request.command.rawValue) refused: a gateway must name the owner it acts for"
                }
                return nil
            case .status, .failed, .resolve, .original:
                return "\(request.command.rawValue) refused: a gateway key may not use it (it is for operators, with workctl)"
            }
        }
    }
}

/// A control request the coordinator understood but refuses; its text goes back to the client.
/// A control request refused: its code travels to the client (``ControlErrorCode``), the
/// description is the message for people.
struct ControlRequestError: Error, CustomStringConvertible {
    var code: ControlErrorCode
    /// A finer code under ``code`` (``ControlErrorBody/reason``).
    var reason: String?
    var description: String
    /// A bad request: malformed, out of range, or not for this command.
    init(_ description: String) { self.init(.badRequest, description) }

    init(_ code: ControlErrorCode, reason: String? = nil, _ description: String) {
        self.code = code
        self.reason = reason
        self.description = description
    }
}

extension Dispatcher {
    /// ZONES: lists an owner's privacy zones, after adding or removing one. A change gives new
    /// cache keys to the owner's pictures whose route's box meets the zone (``PrivacyPolicies``),
    /// so exactly those generated pictures become stale and are queued again, and pictures that
    /// failed as wholly hidden get another chance; the owner's other pictures and another owner's
    /// keep their keys.
    ///
    /// Adding a zone the owner has already (the same centre and radius) adds nothing: that zone is
    /// the one added, and nothing becomes stale. So a request carried out twice (a client that
    /// timed out and asked another coordinator of the index) leaves one zone, as once would.
    func zones(_ body: ZonesRequest, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox) throws -> [UInt8] {
        guard let owner = try checkOwner(body.owner, "ZONES") else { throw ControlRequestError("ZONES needs an owner") }
        // Another coordinator of the index may have changed the owner's zones or settings: the
        // keys computed below are made of what the index holds.
        try specs.reload(owner: owner, reader: transaction.reader)
        var added: PrivacyZone?
        var removed: Bool?
        if let zone = body.add {
            do {
                try PrivacyZone(id: 0, latitude: zone.latitude, longitude: zone.longitude, radius: zone.radius).validate()
            } catch {
                let zones = try transaction.reader.privacyZones(owner: owner)
                return try ControlCodec.encode(
                    ZonesReply(zones: zones, refusal: .init(code: "bad-zone", field: error.field, message: "\(error.field): \(error.message)")))
            }
            let zones = try transaction.reader.privacyZones(owner: owner)
            if let same = zones.first(where: { $0.latitude == zone.latitude && $0.longitude == zone.longitude && $0.radius == zone.radius }) {
                return try ControlCodec.encode(ZonesReply(zones: zones, added: same, removed: nil, stale: 0))
            }
            guard zones.count < PrivacyZone.maximumPerOwner else {
                let message = "owner \(owner) has \(zones.count) privacy zones, the most there may be: remove one first"
                return try ControlCodec.encode(ZonesReply(zones: zones, refusal: .init(code: "too-many-zones", message: message)))
            }
            added = try transaction.addPrivacyZone(owner: owner, latitude: zone.latitude, longitude: zone.longitude, radius: zone.radius, now: Date())
        }
        if let id = body.remove { removed = try transaction.removePrivacyZone(owner: owner, id: id) }
        let zones = try transaction.reader.privacyZones(owner: owner)
        var stale = 0
        if added != nil || removed == true {
            // The pictures whose keys the new zones move (those whose route's box meets a zone
            // added or removed): their old URLs answer 410 once their files are gone.
            specs.privacy.setZones(zones, of: owner)
            let withdrawn = try transaction.rememberWithdrawnPictures(owner: owner, now: Date(), keeping: IndexLimits.withdrawnPerOwner) {
                picture, inputs in specs.cacheKey(for: picture, inputs: inputs)
            }
            logger.debug("picture keys remembered as withdrawn", metadata: ["owner": "\(owner)", "keys": "\(withdrawn.count)"])
            // No longer to be served from now on, though the bucket holds them until the pictures
            // are drawn again and the old files go: the gateways hear of it at once (their memory
            // and what they know current), not when the files go (issue 37's attack
            // s3-zone-before-redraw: 200 until redrawn).
            if !withdrawn.isEmpty { outbox.events.append(.released(keys: withdrawn)) }
            var request = EnqueueRequest(
                ids: nil, kinds: PictureKind.allCases, themes: configuration.drawnThemes, scales: Array(PictureSpec.scaleRange))
            request.owner = owner
            request.existingOnly = true
            request.includeFailed = true
            request.reasonCodes = [FailureCode.hiddenByPrivacy.rawValue]
            request.priority = EnqueueRequest.privacyPriority
            let reply = try transaction.enqueue(
                request, scales: configuration.scales, now: Date(), interactivePerOwner: configuration.interactivePerOwner
            ) { picture, inputs in specs.cacheKey(for: picture, inputs: inputs)
            }
            stale = reply.stale + reply.revived
            if stale > 0 { outbox.events.append(.queued(QueuedEvent(request, reply))) }
            logger.info(
                "privacy zones changed",
                metadata: ["owner": "\(owner)", "zones": "\(zones.count)", "stale": "\(reply.stale)", "revived": "\(reply.revived)"])
        }
        return try ControlCodec.encode(ZonesReply(zones: zones, added: added, removed: removed, stale: stale))
    }
}

/// What makes a change idempotent (docs/gateway.md, "Idempotency-Key"): the owner it is for, the
/// key its client sent (`idempotencyKey` in the body, beside `owner`), and the digest of the
/// request (its command and body; not its attachments, which the body names: an upload's file by
/// its SHA-256) that tells a key sent again with another request.
struct IdempotencyFields {
    var owner: String
    var key: String
    var digest: String

    /// How long a reply is kept for its key: a client retries within minutes, not days.
    static let keptFor: TimeInterval = 24 * 3600

    /// The fields of `request`, or `nil` when it has no key (or no owner, which a key needs).
    static func of(_ request: ControlRequest) throws(ControlRequestError) -> IdempotencyFields? {
        struct Fields: Decodable {
            var owner: String?
            var idempotencyKey: String?
        }
        guard let fields = try? ControlCodec.decode(Fields.self, from: request.body), let key = fields.idempotencyKey else { return nil }
        guard IdempotencyKey.isValid(key) else {
            throw ControlRequestError("\(request.command.rawValue): idempotencyKey must be 1 to 255 printable ASCII characters")
        }
        guard let owner = fields.owner else { throw ControlRequestError("\(request.command.rawValue): an idempotencyKey needs an owner") }
        var hasher = SHA256()
        hasher.update(request.command.rawValue)
        hasher.update([0])
        hasher.update(request.body)
        return IdempotencyFields(owner: owner, key: key, digest: hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }
}
