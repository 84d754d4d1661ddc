public import WorkFeedModel

/// SETTINGS: an owner's settings (docs/settings.md); with `set` or `unset`, changed first.
///
/// - neither: read them.
/// - `set` with `replace`: they become exactly `set` (what `PUT /v1/settings` does: a member left
///   out is unset).
/// - `set` without `replace`: the members `set` has are changed, the others kept.
/// - `unset`: these members are unset (after `set`).
///
/// A change of the heart-rate zones gives exactly that owner's heatmaps new cache keys: they are
/// made stale and queued at ``EnqueueRequest/settingsPriority``. Other settings change no picture.
public struct SettingsRequest: Codable, Sendable, Hashable {
    public var owner: String
    public var set: OwnerSettings?
    public var replace: Bool?
    public var unset: [OwnerSettings.Field]?
    /// The client's `Idempotency-Key` (docs/gateway.md): the same change sent again with it is
    /// answered as the first time, not carried out twice.
    public var idempotencyKey: String?

    public init(owner: String, set: OwnerSettings? = nil, replace: Bool? = nil, unset: [OwnerSettings.Field]? = nil) {
        self.owner = owner
        self.set = set
        self.replace = replace
        self.unset = unset
    }
}

public struct SettingsReply: Codable, Sendable, Hashable {
    /// The owner's settings after the change (as stored: unset members absent).
    public var settings: OwnerSettings
    /// The zones the owner's heatmaps are drawn with now.
    public var heartRateZones: HeartRateZoneBounds
    /// Heatmaps of the owner made stale by the change and queued again.
    public var stale: Int
    /// Why the change was not made (the settings are unchanged): `bad-settings`, with the
    /// ``ControlRefusal/field`` that is wrong and the ``SettingsError/Code`` as ``ControlRefusal/reason``.
    public var refusal: ControlRefusal?
    /// While the owner's summaries are being built again (a new time zone, first weekday or
    /// zones: docs/summaries.md), how far the rebuild is.
    public var summaries: SummaryRebuild?

    public init(
        settings: OwnerSettings, heartRateZones: HeartRateZoneBounds, stale: Int = 0, refusal: ControlRefusal? = nil, summaries: SummaryRebuild? = nil
    ) {
        self.settings = settings
        self.heartRateZones = heartRateZones
        self.stale = stale
        self.refusal = refusal
        self.summaries = summaries
    }
}

/// A request the coordinator understood and answers, but whose change it did not make because a
/// value in it is wrong: a problem of the request, not of the coordinator, so it is an answer
/// rather than an ERROR, and a gateway can tell its caller which field is wrong.
public struct ControlRefusal: Codable, Sendable, Hashable {
    /// What kind of refusal, stable (`bad-settings`).
    public var code: String
    /// The member that is wrong, as a dotted path (`heartRateZones.bounds[1]`).
    public var field: String?
    /// A finer code where the refusal has one (``SettingsError/Code``).
    public var reason: String?
    public var message: String

    public init(code: String, field: String? = nil, reason: String? = nil, message: String) {
        self.code = code
        self.field = field
        self.reason = reason
        self.message = message
    }
}

extension EnqueueRequest {
    /// Heatmaps drawn again because their owner's heart-rate zones changed: ahead of bulk work,
    /// behind privacy changes (``privacyPriority``) and interactive requests.
    public static let settingsPriority = 10
}
