import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire
import WorkFeedStyle

extension Dispatcher {
    /// Every owner's heart-rate zones, from their settings in the index. An owner whose explicit
    /// bounds no longer fill the configured zones (the heatmap's colours were changed since) gets
    /// the configured zones, with a warning; their setting is kept as it is.
    static func loadHeartRateZones(configuration: CoordinatorConfiguration, index: Index, logger: Logger) throws -> OwnerHeartRateZones {
        let settings = try index.read { try $0.heartRateZoneSettings() }
        let zones = OwnerHeartRateZones(
            configured: configuration.heatmap.thresholds, percentages: configuration.maximumHeartRatePercentages, settings: settings)
        let misfits = settings.filter {
            zones.bounds(for: $0.key).source == .configured && $0.value.thresholds(percentages: zones.percentages) != zones.configured
        }
        if !misfits.isEmpty {
            logger.warning(
                "owners' heart-rate zone bounds do not fill the configured heatmap zones; their heatmaps use the configured zones until they set theirs again",
                metadata: [
                    "owners": "\(misfits.count)", "example": "\(misfits.keys.sorted().first ?? "")", "zones": "\(zones.configured.count + 1)",
                ])
        }
        return zones
    }

    /// SETTINGS: an owner's settings, after changing them. A change of the heart-rate zones gives
    /// exactly that owner's heatmaps new cache keys (``OwnerHeartRateZones``), and a change of
    /// their units their pace and elevation pictures (whose legends are in them): those generated
    /// become stale and are queued again at ``EnqueueRequest/settingsPriority``; route pictures and
    /// other owners' keys do not move, and neither does anything for the other settings.
    /// Bad values are answered with a refusal naming the field, and nothing changes.
    func settings(_ body: SettingsRequest, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox) throws -> [UInt8] {
        guard let owner = try checkOwner(body.owner, "SETTINGS") else { throw ControlRequestError("SETTINGS needs an owner") }
        // Another coordinator of the index may have changed the owner's zones or settings: what
        // is answered and compared is what the index holds.
        try specs.reload(owner: owner, reader: transaction.reader)
        let stored = try transaction.reader.ownerSettings(owner: owner)
        guard body.set != nil || body.unset != nil else {
            return try ControlCodec.encode(
                SettingsReply(
                    settings: stored, heartRateZones: specs.heartRateZones.bounds(for: owner),
                    summaries: try transaction.reader.summaryState(owner: owner)?.rebuild))
        }
        var wanted = body.replace == true ? (body.set ?? OwnerSettings()) : stored.merging(body.set ?? OwnerSettings())
        wanted = wanted.unsetting(body.unset ?? [])
        do {
            try wanted.validate(zoneCount: configuration.heatmap.thresholds.count + 1)
        } catch {
            let refusal = ControlRefusal(code: "bad-settings", field: error.field, reason: error.code.rawValue, message: error.description)
            return try ControlCodec.encode(SettingsReply(settings: stored, heartRateZones: specs.heartRateZones.bounds(for: owner), refusal: refusal))
        }
        guard wanted != stored else {
            return try ControlCodec.encode(SettingsReply(settings: stored, heartRateZones: specs.heartRateZones.bounds(for: owner)))
        }
        try transaction.setOwnerSettings(wanted, owner: owner, now: Date())
        var stale = 0
        // The kinds drawn with the owner's zones (those drawn from heart rate) and with their
        // units (pace and elevation, whose legends give figures).
        let zonesChanged = specs.heartRateZones.set(wanted.heartRateZones, of: owner)
        let unitsChanged = specs.setUnits(wanted.units, of: owner)
        let figuresChanged = specs.setCardFigures(wanted.cardFigures, of: owner)
        let kinds = PictureKind.allCases.filter {
            (zonesChanged && $0.usesHeartRate) || (unitsChanged && $0.usesUnits) || (figuresChanged && $0.isCard)
        }
        if !kinds.isEmpty {
            var request = EnqueueRequest(ids: nil, kinds: kinds, themes: configuration.drawnThemes, scales: Array(PictureSpec.scaleRange))
            request.owner = owner
            request.existingOnly = true
            request.priority = EnqueueRequest.settingsPriority
            let reply = try transaction.enqueue(
                request, scales: configuration.scales, now: Date(), interactivePerOwner: EnqueueRequest.defaultInteractivePerOwner
            ) { picture, inputs in specs.cacheKey(for: picture, inputs: inputs)
            }
            stale = reply.stale
            if stale > 0 { outbox.events.append(.queued(QueuedEvent(request, reply))) }
        }
        let zones = specs.heartRateZones.bounds(for: owner)
        logger.info(
            "owner settings changed",
            metadata: [
                "owner": "\(owner)", "zones": "\(zones.source.rawValue) \(zones.bounds.map { Int($0) })", "units": "\(wanted.units?.rawValue ?? "-")",
                "time_zone": "\(wanted.timeZone ?? "-")", "first_weekday": "\(wanted.firstWeekday?.name ?? "-")", "stale": "\(stale)",
            ])
        return try ControlCodec.encode(
            SettingsReply(
                settings: wanted, heartRateZones: zones, stale: stale, summaries: try transaction.reader.summaryState(owner: owner)?.rebuild))
    }
}
