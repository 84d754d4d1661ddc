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
        var fingerprint: String
    }

    init(secret: [UInt8], endTrimMetres: Double, zones: [String: [PrivacyZone]]) {
        self.secret = secret
        self.endTrimMetres = endTrimMetres
        everyone = Self.entry(PrivacyPolicy(zones: [], endTrimMetres: endTrimMetres, secret: secret))
        for (owner, list) in zones { setZones(list, of: owner) }
    }

    /// The policy for `owner`'s pictures.
    func policy(for owner: String) -> PrivacyPolicy { (byOwner[owner] ?? everyone).policy }

    /// What goes into the cache keys of `owner`'s pictures: `""` when nothing is hidden.
    func fingerprint(for owner: String) -> String { (byOwner[owner] ?? everyone).fingerprint }

    /// Replaces an owner's zones (after ZONES changed them in the index).
    mutating func setZones(_ zones: [PrivacyZone], of owner: String) {
        byOwner[owner] = zones.isEmpty ? nil : Self.entry(PrivacyPolicy(zones: zones, endTrimMetres: endTrimMetres, secret: secret))
    }

    private static func entry(_ policy: PrivacyPolicy) -> Entry { Entry(policy: policy, fingerprint: policy.fingerprint) }
}
