import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

extension Dispatcher {
    /// Answers one write request (IMPORT, ENQUEUE, DELETE) inside the turn's transaction; the loop
    /// has parsed it, checked its role and admitted it, and read requests never come here (the
    /// ``ReadService`` answers them from a read-only connection). Never throws: whatever goes
    /// wrong becomes an ERROR reply that says what.
    func handleControl(
        _ request: ControlRequest, specs: inout PictureSpecs, transaction: inout IndexTransaction, outbox: inout Outbox
    ) -> ControlReply {
        do {
            let body = try answer(request, specs: &specs, transaction: &transaction, outbox: &outbox)
            return ControlReply(id: request.id, ok: true, body: body)
        } catch let error as ControlRequestError {
            return .error(id: request.id, error.description)
        } catch {
            logger.error("control request failed", metadata: ["command": "\(request.command.rawValue)", "error": "\(error)"])
            return .error(id: request.id, "\(request.command.rawValue) failed: \(error)")
        }
    }

    private func answer(
        _ request: ControlRequest, specs: inout PictureSpecs, transaction: inout IndexTransaction, outbox: inout Outbox
    ) throws -> [UInt8] {
        switch request.command {
        case .importWorkout:
            let body = try decode(ImportRequest.self, request)
            guard request.attachments.count == 2 else {
                throw ControlRequestError("IMPORT needs 2 attachment frames (route, heart rate), got \(request.attachments.count)")
            }
            let route: Route
            let heartRate: [HeartRateSample]
            do {
                route = try SeriesCodec.decodeRoute(request.attachments[0])
                heartRate = try SeriesCodec.decodeHeartRate(request.attachments[1])
            } catch {
                throw ControlRequestError("IMPORT of \(body.origin): \(error)")
            }
            let workout = ImportedWorkout(
                source: body.source, sourceID: body.sourceID, activity: body.activity, name: body.name, route: route,
                heartRate: heartRate, start: body.start, end: body.end, timeZoneOffset: body.timeZoneOffset, origin: body.origin)
            do {
                try workout.checkRanges()
            } catch {
                throw ControlRequestError("IMPORT of \(body.origin.prefix(200)): \(error)")
            }
            let reply = try transaction.importWorkout(workout)
            logger.debug("workout \(reply.result.rawValue)", metadata: ["id": "\(reply.id)", "origin": "\(body.origin)"])
            return try ControlCodec.encode(reply)

        case .enqueue:
            let body = try decode(EnqueueRequest.self, request)
            try Self.check(body)
            let reply = try transaction.enqueue(body, scales: configuration.scales) { picture, routeHash, heartRateHash in
                specs.cacheKey(for: picture, routeHash: routeHash, heartRateHash: heartRateHash)
            }
            logger.info(
                "enqueued",
                metadata: [
                    "created": "\(reply.created)", "stale": "\(reply.stale)", "pending": "\(reply.alreadyPending)",
                    "current": "\(reply.current)", "failed": "\(reply.failed)",
                ])
            return try ControlCodec.encode(reply)

        case .delete:
            let body = try decode(DeleteRequest.self, request)
            guard body.ids.count <= ControlLimits.maximumDeleteIDs else {
                throw ControlRequestError("DELETE: ids has \(body.ids.count) entries, at most \(ControlLimits.maximumDeleteIDs) a request")
            }
            let deleted = try transaction.delete(body.ids)
            // The files go once the deletion is committed.
            let paths = deleted.values.joined().map { cacheDirectory + "/" + CacheLayout.relativePath(for: $0) }
            outbox.removals += paths
            logger.info("workouts deleted", metadata: ["workouts": "\(deleted.count)", "pictures": "\(paths.count)"])
            return try ControlCodec.encode(
                DeleteReply(
                    deleted: body.ids.filter { deleted[$0] != nil }, missing: body.ids.filter { deleted[$0] == nil }, pictures: paths.count))

        case .ping, .status, .show, .feed, .changes, .failed:
            // Answered by the loop (PING) and the read service; never sent here.
            throw ControlRequestError("\(request.command.rawValue) is not a write request")
        }
    }
}

/// A request's JSON body as the type it must be, or an ERROR that says why not.
func decode<T: Decodable>(_ type: T.Type, _ request: ControlRequest) throws(ControlRequestError) -> T {
    do {
        return try ControlCodec.decode(type, from: request.body)
    } catch {
        throw ControlRequestError("\(request.command.rawValue): the JSON body is not a \(T.self): \(error)")
    }
}

extension Dispatcher {
    /// Range-checks an ENQUEUE's values, naming the field that is out of range.
    static func check(_ body: EnqueueRequest) throws(ControlRequestError) {
        guard !body.kinds.isEmpty, !body.themes.isEmpty else { throw ControlRequestError("ENQUEUE needs at least one kind and one theme") }
        if let scales = body.scales, scales.contains(where: { !(1...3).contains($0) }) {
            throw ControlRequestError("ENQUEUE: scales must be 1, 2 or 3")
        }
        if let ids = body.ids, ids.count > ControlLimits.maximumEnqueueIDs {
            throw ControlRequestError("ENQUEUE: ids has \(ids.count) entries, at most \(ControlLimits.maximumEnqueueIDs) a request")
        }
        if let codes = body.reasonCodes, codes.count > 64 || !codes.allSatisfy(FailureCode.isWellFormed) {
            throw ControlRequestError("ENQUEUE: reasonCodes must be at most 64 codes, each 1 to 64 lower-case letters, digits and '-'")
        }
        if let priority = body.priority, !ControlLimits.priorities.contains(priority) {
            throw ControlRequestError("ENQUEUE: priority \(priority) is outside \(ControlLimits.priorities.lowerBound)...\(ControlLimits.priorities.upperBound)")
        }
        for (field, date) in [("since", body.since), ("until", body.until)] {
            guard let date else { continue }
            do { try ValueLimits.checkTime(date, field: field) } catch { throw ControlRequestError("ENQUEUE: \(error)") }
        }
    }
}

extension ControlCommand {
    /// Whether the request only reads: answered outside the write transaction, from a read-only
    /// connection (``ReadService``), so that no read ever holds up dispatch.
    var isRead: Bool {
        switch self {
        case .ping, .status, .show, .feed, .changes, .failed: true
        case .importWorkout, .enqueue, .delete: false
        }
    }
}

/// Which control requests each role may send. The ZAP handler already keeps worker keys off the
/// control socket; this is the second line, and the place where the gateway's requests will be
/// narrowed.
enum ControlPolicy {
    /// Why `role` may not send `command`, or `nil` when it may. `nil` role: no CURVE (loopback
    /// only), every local process is trusted alike.
    static func refusal(of command: ControlCommand, for role: ClientRole?) -> String? {
        switch role {
        case nil, .operator?, .gateway?: nil
        case .worker?: "\(command.rawValue) refused: a worker key may not use the control protocol"
        }
    }
}

/// A control request the coordinator understood but refuses; its text goes back to the client.
struct ControlRequestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
