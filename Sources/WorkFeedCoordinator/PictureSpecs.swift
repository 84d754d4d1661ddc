import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStyle

/// The picture specs the coordinator hands out, their JSON encodings (sent with every job), and the
/// cache keys derived from them.
///
/// A cache key is the SHA-256 of everything a picture depends on: the renderer version, the spec
/// (kind, theme, size, scale, that theme's route and map styles, heatmap zones for heatmaps, the
/// basemap's identity), the hashes of the series it draws, and the fingerprint of its owner's
/// privacy policy as the route meets it (the end trim and the zones its box meets) when that hides
/// anything. A heatmap's zones are its owner's when they set their
/// own (``OwnerHeartRateZones``), as explicit bounds in the spec. A
/// `generated` job whose stored key differs from the current one is stale.
struct PictureSpecs {
    private let configuration: CoordinatorConfiguration
    /// The basemap's identity hash, `nil` without tilesets.
    private let basemap: String?
    private var encoded: [SpecKey: [UInt8]] = [:]
    /// Every owner's privacy zones and the end trim: part of each picture's key.
    var privacy: PrivacyPolicies
    /// Every owner's heart-rate zones: part of each heatmap's spec.
    var heartRateZones: OwnerHeartRateZones
    private var hashers: [SpecKey: SHA256] = [:]
    /// The policy version each owner's zones and heart-rate zones were read at, from an index of
    /// several writers (``follow(owner:to:reader:)``).
    private var policyVersions: [String: Int64] = [:]

    /// Specs kept encoded at most: one per kind, theme and scale, and per set of owners' zones
    /// in use; past it the memo starts again (owners' zones are few distinct lists in practice).
    private static let memoLimit = 4096

    private struct SpecKey: Hashable {
        var kind: PictureKind
        var theme: Theme
        var scale: Int
        /// The heatmap's zones when they are not the configured ones; `nil` for route pictures.
        var thresholds: [Double]?
    }

    init(configuration: CoordinatorConfiguration, basemap: String?, privacy: PrivacyPolicies, heartRateZones: OwnerHeartRateZones) {
        self.configuration = configuration
        self.basemap = basemap
        self.privacy = privacy
        self.heartRateZones = heartRateZones
    }

    /// Brings `owner`'s privacy zones and heart-rate zones up to `version`, the owner's policy
    /// version in the index (``LeasedJob/policyVersion``): another coordinator on the same index
    /// may have changed them since this copy was read. Read again with `reader` when the copy is
    /// of another version; nothing for version 0 (an index of one writer: this copy is the only one).
    mutating func follow(owner: String, to version: Int64, reader: some IndexReading) throws {
        guard version != 0, policyVersions[owner] != version else { return }
        try reload(owner: owner, reader: reader)
        if policyVersions.count >= Self.memoLimit * 16 { policyVersions.removeAll(keepingCapacity: true) }
        policyVersions[owner] = version
    }

    /// Reads `owner`'s privacy zones and heart-rate zones again (a change of either through this
    /// coordinator starts from what the index holds, not from this copy).
    mutating func reload(owner: String, reader: some IndexReading) throws {
        privacy.setZones(try reader.privacyZones(owner: owner), of: owner)
        heartRateZones.set(try reader.ownerSettings(owner: owner).heartRateZones, of: owner)
    }

    /// - Parameter thresholds: the heatmap zones' bounds; `nil`: the configured ones.
    /// - Returns: `nil` for a theme the configuration does not draw (``draws(_:)``).
    func spec(kind: PictureKind, theme: Theme, scale: Int, thresholds: [Double]? = nil) -> PictureSpec? {
        guard let look = configuration.themeStyle(for: theme) else { return nil }
        var heatmap = configuration.heatmap
        if let thresholds { heatmap.thresholds = thresholds }
        return PictureSpec(
            kind: kind, theme: theme, width: configuration.pictureWidth, height: configuration.pictureHeight,
            scale: scale, style: look.route, heatmap: heatmap, map: look.map, basemap: basemap)
    }

    /// Whether pictures of `theme` can be drawn: it is one of the configured themes. Jobs of a
    /// theme taken out of `themes` stay in the index; when one is leased it fails with
    /// ``FailureCode/themeNotConfigured`` instead of being sent to a worker.
    func draws(_ theme: Theme) -> Bool { configuration.themeStyle(for: theme) != nil }

    /// The key of every picture of a theme that is not configured: no picture is ever drawn
    /// under it, so such a picture is never current.
    private static func undrawableKey(_ theme: Theme) -> String {
        var hasher = SHA256()
        hasher.update("workfeed-theme-not-configured\ntheme=\(theme.rawValue)")
        return hasher.finalize().hexString
    }

    private func specKey(_ picture: PictureID, owner: String) -> SpecKey {
        SpecKey(
            kind: picture.kind, theme: picture.theme, scale: picture.scale,
            thresholds: picture.kind.usesHeartRate ? heartRateZones.thresholds(for: owner) : nil)
    }

    /// The spec's JSON, encoded once per kind, theme, scale and zones.
    /// - Parameter owner: the workout's owner, whose heart-rate zones a heatmap's spec holds.
    mutating func encodedSpec(for picture: PictureID, owner: String) -> [UInt8] {
        encodedSpec(specKey(picture, owner: owner))
    }

    private mutating func encodedSpec(_ key: SpecKey) -> [UInt8] {
        if let bytes = encoded[key] { return bytes }
        if encoded.count >= Self.memoLimit { encoded.removeAll(keepingCapacity: true) }
        let bytes = spec(kind: key.kind, theme: key.theme, scale: key.scale, thresholds: key.thresholds)?.encoded() ?? []
        encoded[key] = bytes
        return bytes
    }

    /// - Parameter inputs: the workout's hashes; its owner, whose privacy policy's fingerprint (of
    ///   the zones the route's box meets) is part of the key, and whose heart-rate zones are part
    ///   of a heatmap's spec; the route's box.
    mutating func cacheKey(for picture: PictureID, inputs: PictureInputs) -> String {
        guard draws(picture.theme) else { return Self.undrawableKey(picture.theme) }
        let owner = inputs.owner
        let key = specKey(picture, owner: owner)
        let hasher: SHA256
        if let cached = hashers[key] {
            hasher = cached
        } else {
            hasher = PictureSpec.specHasher(encodedSpec: encodedSpec(key))
            if hashers.count >= Self.memoLimit { hashers.removeAll(keepingCapacity: true) }
            hashers[key] = hasher
        }
        return PictureSpec.cacheKey(
            kind: picture.kind, specHasher: hasher, routeHash: inputs.routeHash, heartRateHash: inputs.heartRateHash,
            privacy: privacy.fingerprint(for: owner, bounds: inputs.routeBounds), owner: owner)
    }
}
