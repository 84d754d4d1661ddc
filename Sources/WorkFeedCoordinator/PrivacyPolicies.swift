import WorkFeedModel
import WorkFeedPrivacy

/// Every owner's privacy policy as the index thread needs it for cache keys and for cutting the
/// routes it sends (docs/privacy.md): the configured end trim for everyone, each owner's zones,
/// and the secret. Held in memory (zones are few: at most
/// ``IndexTransaction/maximumPrivacyZones`` an owner), loaded at start and changed with the
/// index by ZONES, so that no cache key needs a read of the index.
struct PrivacyPolicies {
    let secret: [UInt8]
    let endTrimMetres: Double
    private var byOwner: [String: Entry] = [:]
    private let everyone: Entry

    private struct Entry {
        var policy: PrivacyPolicy
        /// Each zone's hidden circle, in the order of the policy's zones.
        var circles: [HiddenCircle]
        /// The fingerprint of the policy as routes meet it (``PrivacyPolicy/meeting(_:)``), by
        /// the set of zones met (bit i: zone i); every zone: the policy's own.
        var fingerprints: [UInt64: String]
    }

    init(secret: [UInt8], endTrimMetres: Double, zones: [String: [PrivacyZone]]) {
        self.secret = secret
        self.endTrimMetres = endTrimMetres
        everyone = Self.entry(PrivacyPolicy(zones: [], endTrimMetres: endTrimMetres, secret: secret))
        for (owner, list) in zones { setZones(list, of: owner) }
    }

    /// The policy for `owner`'s pictures.
    func policy(for owner: String) -> PrivacyPolicy { (byOwner[owner] ?? everyone).policy }

    /// What goes into the cache keys of `owner`'s pictures of a route within `bounds`: the
    /// fingerprint of the zones its box meets and the end trim (``PrivacyPolicy/meeting(_:)``),
    /// `""` when that hides nothing; every zone when the box is not known.
    mutating func fingerprint(for owner: String, bounds: RouteBounds?) -> String {
        guard var entry = byOwner[owner] else { return everyone.fingerprints[0] ?? "" }
        // A mask names a set of zones only for owners of at most 64 (the index keeps 32).
        guard entry.circles.count <= 64 else { return entry.policy.meeting(bounds).fingerprint }
        let met = Self.met(entry.circles, bounds)
        if let known = entry.fingerprints[met] { return known }
        let fingerprint = entry.policy.meeting(bounds).fingerprint
        byOwner[owner] = nil
        if entry.fingerprints.count >= Self.memoLimit { entry.fingerprints = [Self.all(entry.circles.count): entry.policy.fingerprint] }
        entry.fingerprints[met] = fingerprint
        byOwner[owner] = entry
        return fingerprint
    }

    /// Replaces an owner's zones (after ZONES changed them in the index).
    mutating func setZones(_ zones: [PrivacyZone], of owner: String) {
        byOwner[owner] = zones.isEmpty ? nil : Self.entry(PrivacyPolicy(zones: zones, endTrimMetres: endTrimMetres, secret: secret))
    }

    private static func entry(_ policy: PrivacyPolicy) -> Entry {
        let circles = policy.zones.map(policy.hiddenCircle(for:))
        return Entry(policy: policy, circles: circles, fingerprints: [all(circles.count): policy.fingerprint])
    }

    /// The zones whose circles a route within `bounds` meets, as bits; all of them without bounds.
    private static func met(_ circles: [HiddenCircle], _ bounds: RouteBounds?) -> UInt64 {
        guard let bounds else { return all(circles.count) }
        var met: UInt64 = 0
        for (index, circle) in circles.enumerated() where circle.mayMeet(bounds) { met |= 1 << UInt64(index) }
        return met
    }

    /// Fingerprints kept at most an owner: sets of zones met are few in practice (a route meets
    /// the zones of one city), past it the memo starts again.
    private static let memoLimit = 256

    private static func all(_ count: Int) -> UInt64 { count >= 64 ? .max : (1 << UInt64(count)) - 1 }
}
