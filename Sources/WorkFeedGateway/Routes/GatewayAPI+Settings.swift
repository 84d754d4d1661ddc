import Foundation
import Hummingbird
import Logging
import WorkFeedModel
import WorkFeedWire

extension GatewayAPI {
    /// `GET /v1/settings`: the caller's settings (unset ones absent) and the heart-rate zones their
    /// heatmaps are drawn with.
    func settings(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let reply = try await ask(.settings, SettingsRequest(owner: owner), as: SettingsReply.self)
        return try Self.json(SettingsDocument(reply))
    }

    /// `PUT /v1/settings`: replaces the caller's settings with the body (a member left out is
    /// unset, and its default applies). A change of heart-rate zones draws exactly the caller's
    /// heatmaps again. 400 `bad-settings` names the `field` that is wrong; nothing changes then.
    func putSettings(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        // A small JSON object: beyond 4 KiB, 413 at once (as zones and uploads answer).
        let body = Data(try await Self.body(of: request, upTo: 4096).readableBytesView)
        let settings: OwnerSettings
        do {
            settings = try OwnerSettings.decode(json: body)
        } catch {
            throw Problem.badSettings(error.description, field: error.field)
        }
        let reply = try await ask(.settings, SettingsRequest(owner: owner, set: settings, replace: true), as: SettingsReply.self)
        if let refusal = reply.refusal { throw Problem.badSettings(refusal.message, field: refusal.field) }
        context.logger.info(
            "owner settings replaced", metadata: ["owner": "\(owner)", "zones": "\(reply.heartRateZones.source.rawValue)", "stale": "\(reply.stale)"])
        return try Self.json(SettingsDocument(reply))
    }
}

/// `{"settings": {...}, "heartRateZones": {"bounds": [...], "source": ...}}` (docs/openapi.yaml,
/// `SettingsDocument`): the settings and the zones in use, each in the shape the wire gives them.
struct SettingsDocument: Encodable, Sendable {
    var settings: OwnerSettings
    var heartRateZones: HeartRateZoneBounds
    /// While the owner's summaries are built again, how far (docs/summaries.md).
    var summaries: SummaryRebuild?

    init(_ reply: SettingsReply) {
        settings = reply.settings
        heartRateZones = reply.heartRateZones
        summaries = reply.summaries
    }
}

extension Problem {
    static func badSettings(_ detail: String, field: String?) -> Problem {
        .badRequest("bad-settings", detail, field: field)
    }

    /// A 400 whose `field` names the member of the body that is wrong.
    static func badRequest(_ name: String, _ detail: String, field: String?) -> Problem {
        var problem = Problem.badRequest(name, detail)
        if let field { problem.extra["field"] = .text(field) }
        return problem
    }
}
