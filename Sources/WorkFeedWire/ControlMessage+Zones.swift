import WorkFeedModel
public import WorkFeedPrivacy

// MARK: Privacy zones and withdrawn pictures: ZONES, PICTURE (docs/PROTOCOL.md)

/// ZONES: an owner's privacy zones (docs/privacy.md); with `add` or `remove`, changed first.
/// A change makes exactly that owner's pictures stale, and they are queued to be drawn again.
public struct ZonesRequest: Codable, Sendable, Hashable {
    public var owner: String
    public var add: NewZone?
    /// The id of a zone to remove.
    public var remove: Int64?
    /// The client's `Idempotency-Key` (docs/gateway.md): the same change sent again with it is
    /// answered as the first time, not carried out twice.
    public var idempotencyKey: String?

    public struct NewZone: Codable, Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        /// Metres, ``PrivacyZone/radiusRange``.
        public var radius: Double
        public init(latitude: Double, longitude: Double, radius: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.radius = radius
        }
    }

    public init(owner: String, add: NewZone? = nil, remove: Int64? = nil) {
        self.owner = owner
        self.add = add
        self.remove = remove
    }
}

public struct ZonesReply: Codable, Sendable, Hashable {
    /// The owner's zones after the change, oldest first.
    public var zones: [PrivacyZone]
    /// The zone added, with its id.
    public var added: PrivacyZone?
    /// Whether the zone to remove was there (another owner's is not).
    public var removed: Bool?
    /// Pictures of the owner made stale by the change and queued again.
    public var stale: Int
    /// Why the zone to add was not added (the list is unchanged): a problem of the request, not
    /// of the coordinator, so it is an answer rather than a refusal, and the gateway can tell its
    /// caller which field is wrong.
    public var refusal: Refusal?

    /// `bad-zone` (a field out of range: ``ControlRefusal/field``) or `too-many-zones`
    /// (``PrivacyZone/maximumPerOwner``).
    public typealias Refusal = ControlRefusal

    public init(zones: [PrivacyZone], added: PrivacyZone? = nil, removed: Bool? = nil, stale: Int = 0, refusal: Refusal? = nil) {
        self.zones = zones
        self.added = added
        self.removed = removed
        self.stale = stale
        self.refusal = refusal
    }
}

/// PICTURE: what the index knows of a cache key the picture store no longer holds.
public struct PictureRequest: Codable, Sendable, Hashable {
    /// A cache key, 64 lower-case hex digits.
    public var key: String
    public init(key: String) { self.key = key }
}

public struct PictureReply: Codable, Sendable, Hashable {
    /// The key named a picture that a change of its owner's privacy zones withdrew.
    public var withdrawn: Bool
    /// The key names a picture that is current: a generated picture's job stores it. A key may be
    /// both (a zone removed again brings an old key back): current wins. `nil` from a coordinator
    /// of before issue 37, which did not say.
    public var generated: Bool?
    public init(withdrawn: Bool, generated: Bool? = nil) {
        self.withdrawn = withdrawn
        self.generated = generated
    }
}
