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
        let settings = try await Self.settingsBody(of: request, read: OwnerSettings.decode(json:))
        var change = SettingsRequest(owner: try context.requireOwner(), set: settings, replace: true)
        change.idempotencyKey = try Self.idempotencyKey(request)
        return try await changeSettings(change, context: context)
    }

    /// `PATCH /v1/settings`: a JSON merge patch (RFC 7396) of the caller's settings: the members
    /// the body names are set (or unset, given as `null`), the others are kept as stored. A patch
    /// that leaves the heart-rate zones as they are makes no picture stale and changes no URL.
    /// 400 `bad-settings` as for `PUT`.
    func patchSettings(_ request: Request, context: GatewayContext) async throws -> Response {
        let patch = try await Self.settingsBody(of: request, read: OwnerSettingsPatch.decode(json:))
        // The coordinator merges (`replace: false`) against what the index holds, in one transaction.
        var change = SettingsRequest(owner: try context.requireOwner(), set: patch.set, replace: false, unset: patch.unset)
        change.idempotencyKey = try Self.idempotencyKey(request)
        return try await changeSettings(change, context: context)
    }

    /// A settings body read by `read`: a small JSON object; beyond 4 KiB, 413 at once (as zones
    /// and uploads answer); a refusal is 400 `bad-settings` naming the field.
    private static func settingsBody<Body>(of request: Request, read: (Data) throws(SettingsError) -> Body) async throws -> Body {
        let body = Data(try await body(of: request, upTo: 4096).readableBytesView)
        do {
            return try read(body)
        } catch {
            throw Problem.badSettings(error.description, field: error.field)
        }
    }

    /// Sends a change to the coordinator and answers with the settings after it (or its refusal).
    private func changeSettings(_ change: SettingsRequest, context: GatewayContext) async throws -> Response {
        let reply = try await ask(.settings, change, as: SettingsReply.self, change: true)
        if let refusal = reply.refusal { throw Problem.badSettings(refusal.message, field: refusal.field) }
        context.logger.info(
            change.replace == true ? "owner settings replaced" : "owner settings patched",
            metadata: ["owner": "\(change.owner)", "zones": "\(reply.heartRateZones.source.rawValue)", "stale": "\(reply.stale)"])
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
