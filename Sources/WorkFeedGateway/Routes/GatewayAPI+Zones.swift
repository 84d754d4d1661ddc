import Foundation
import Hummingbird
import Logging
import WorkFeedModel
import WorkFeedWire
import WorkFeedPrivacy

extension GatewayAPI {
    /// `GET /v1/zones`: the caller's privacy zones, oldest first.
    func zones(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let reply = try await ask(.zones, ZonesRequest(owner: owner), as: ZonesReply.self)
        return try Self.json(ZoneList(zones: reply.zones.map(ZoneItem.init)))
    }

    /// `POST /v1/zones`: adds a zone (`{"latitude", "longitude", "radius"}`); 201 with the zone
    /// and its `Location`. Every picture of the caller is drawn again without the zone's
    /// surroundings. 400 names the field that is wrong; 409 when the caller has the most zones
    /// there may be.
    func addZone(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let body = try await Self.body(of: request, upTo: 4096)
        let zone = try Self.newZone(Data(body.readableBytesView))
        var change = ZonesRequest(owner: owner, add: zone)
        change.idempotencyKey = try Self.idempotencyKey(request)
        let reply = try await ask(.zones, change, as: ZonesReply.self, change: true)
        if let refusal = reply.refusal {
            guard refusal.code == "too-many-zones" else { throw Problem.badZone(refusal.message, field: refusal.field) }
            throw Problem("too-many-zones", "Too many privacy zones", status: .conflict, detail: refusal.message)
        }
        guard let added = reply.added else { throw Problem.internalError() }
        context.logger.info("privacy zone added", metadata: ["owner": "\(owner)", "zone": "\(added.id)", "stale": "\(reply.stale)"])
        return try Self.json(ZoneItem(added), status: .created, headers: [.location: "/v1/zones/\(added.id)"])
    }

    /// `DELETE /v1/zones/{id}`: removes one of the caller's zones; 204, or 404 for a zone the
    /// caller does not have (another owner's included).
    func deleteZone(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text), id > 0 else { throw Problem.notFound("no zone \(text.prefix(40))") }
        var change = ZonesRequest(owner: owner, remove: id)
        change.idempotencyKey = try Self.idempotencyKey(request)
        let reply = try await ask(.zones, change, as: ZonesReply.self, change: true)
        guard reply.removed == true else { throw Problem.notFound("no zone \(id)") }
        context.logger.info("privacy zone removed", metadata: ["owner": "\(owner)", "zone": "\(id)", "stale": "\(reply.stale)"])
        return Response(status: .noContent)
    }

    /// The zone a POST body describes, checked with the same limits the coordinator applies.
    static func newZone(_ body: Data) throws(Problem) -> ZonesRequest.NewZone {
        let fields: ZoneBody
        do {
            fields = try JSONDecoder().decode(ZoneBody.self, from: body)
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            let field = context.codingPath[0].stringValue
            throw Problem.badZone("\(field) must be a number", field: field)
        } catch {
            throw Problem.badZone("the body is not a JSON object: send {\"latitude\": ..., \"longitude\": ..., \"radius\": ...}", field: nil)
        }
        if let unknown = fields.unknown.first {
            throw Problem.badZone("\(unknown) is not a field of a zone (latitude, longitude, radius)", field: unknown)
        }
        guard let latitude = fields.latitude else { throw Problem.badZone("latitude is missing", field: "latitude") }
        guard let longitude = fields.longitude else { throw Problem.badZone("longitude is missing", field: "longitude") }
        guard let radius = fields.radius else { throw Problem.badZone("radius is missing (metres)", field: "radius") }
        do {
            try PrivacyZone(id: 0, latitude: latitude, longitude: longitude, radius: radius).validate()
        } catch {
            throw Problem.badZone("\(error.field): \(error.message)", field: error.field)
        }
        return ZonesRequest.NewZone(latitude: latitude, longitude: longitude, radius: radius)
    }
}

/// A POST body's fields, and any it has that a zone does not.
private struct ZoneBody: Decodable {
    var latitude: Double?
    var longitude: Double?
    var radius: Double?
    var unknown: [String] = []

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            switch key.stringValue {
            case "latitude": latitude = try container.decode(Double.self, forKey: key)
            case "longitude": longitude = try container.decode(Double.self, forKey: key)
            case "radius": radius = try container.decode(Double.self, forKey: key)
            default: unknown.append(String(key.stringValue.prefix(40)))
            }
        }
    }
}

/// `{"zones": [...]}` (docs/openapi.yaml, `ZoneList`).
struct ZoneList: Encodable, Sendable {
    var zones: [ZoneItem]
}

/// One privacy zone (docs/openapi.yaml, `Zone`): the owner's own circle, as they entered it.
struct ZoneItem: Encodable, Sendable {
    var id: Int64
    var latitude: Double
    var longitude: Double
    /// Metres.
    var radius: Double

    init(_ zone: PrivacyZone) {
        id = zone.id
        latitude = zone.latitude
        longitude = zone.longitude
        radius = zone.radius
    }
}

extension Problem {
    static func badZone(_ detail: String, field: String?) -> Problem {
        var problem = Problem.badRequest("bad-zone", detail)
        if let field { problem.extra["field"] = .text(field) }
        return problem
    }
}
