import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStyle

/// The picture specs the coordinator hands out, their JSON encodings (sent with every job), and the
/// cache keys derived from them.
///
/// A cache key is the SHA-256 of everything a picture depends on: the renderer version, the spec
/// (kind, theme, size, scale, that theme's route and map styles, heatmap zones for heatmaps, the
/// ramp for pace and elevation pictures with what it measures and the owner's units, the
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
    /// The owners' `units` settings, for those who set one: part of each pace and elevation
    /// picture's spec (its legend's figures). Without one, an owner's are metric, as their feed's.
    var units: [String: UnitSystem]
    /// The owners' `cardFigures` settings, for those who chose: part of each share card's spec.
    /// Without one, an owner's cards show every figure.
    var cardFigures: [String: [ShareCardFigure]]
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
        /// What a ramp-coloured picture measures and in which units; `nil` for the other kinds.
        var ramp: RampKey?
        /// A share card's words, in its owner's units; `nil` for the other kinds. One workout's, so
        /// a card's spec is encoded per workout (the memo's bound keeps them few).
        var card: ShareCardText?
    }

    /// What a pace or elevation picture's ramp depends on besides the kind.
    struct RampKey: Hashable {
        var measure: RouteMeasure
        var units: UnitSystem
    }

    init(
        configuration: CoordinatorConfiguration, basemap: String?, privacy: PrivacyPolicies, heartRateZones: OwnerHeartRateZones,
        pictureSettings: [String: OwnerSettings] = [:]
    ) {
        self.configuration = configuration
        self.basemap = basemap
        self.privacy = privacy
        self.heartRateZones = heartRateZones
        self.units = pictureSettings.compactMapValues(\.units)
        self.cardFigures = pictureSettings.compactMapValues(\.cardFigures)
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
        let settings = try reader.ownerSettings(owner: owner)
        heartRateZones.set(settings.heartRateZones, of: owner)
        setUnits(settings.units, of: owner)
        setCardFigures(settings.cardFigures, of: owner)
    }

    /// Takes an owner's new `units` setting (after SETTINGS stored it).
    /// - Returns: whether their units changed, and with them their pace and elevation pictures' keys.
    @discardableResult
    mutating func setUnits(_ setting: UnitSystem?, of owner: String) -> Bool {
        let before = units(of: owner)
        units[owner] = setting == nil || setting == .metric ? nil : setting
        return units(of: owner) != before
    }

    /// Takes an owner's new `cardFigures` setting (after SETTINGS stored it).
    /// - Returns: whether their choice changed, and with it their share cards' keys.
    @discardableResult
    mutating func setCardFigures(_ setting: [ShareCardFigure]?, of owner: String) -> Bool {
        let before = cardFigures(of: owner)
        cardFigures[owner] = setting == ShareCardFigure.allCases ? nil : setting
        return cardFigures(of: owner) != before
    }

    /// The figures `owner`'s share cards show, in order: their setting, else every one.
    func cardFigures(of owner: String) -> [ShareCardFigure] { cardFigures[owner] ?? ShareCardFigure.allCases }

    /// The units `owner`'s pictures' legends are in: their setting, else metric.
    func units(of owner: String) -> UnitSystem { units[owner] ?? .metric }

    /// - Parameters:
    ///   - thresholds: the heatmap zones' bounds; `nil`: the configured ones.
    ///   - ramp: what a pace or elevation picture measures, in which units (``specKey(_:inputs:)``
    ///     gives one to every such picture); `nil` for the other kinds.
    /// - Returns: `nil` for a theme the configuration does not draw (``draws(_:)``).
    ///   - card: a share card's words; `nil` for the other kinds.
    func spec(
        kind: PictureKind, theme: Theme, scale: Int, thresholds: [Double]? = nil, ramp: RampKey? = nil, card: ShareCardText? = nil
    ) -> PictureSpec? {
        guard let look = configuration.themeStyle(for: theme) else { return nil }
        var heatmap = configuration.heatmap
        if let thresholds { heatmap.thresholds = thresholds }
        let size = kind.declaration.size ?? PictureSize(width: configuration.pictureWidth, height: configuration.pictureHeight)
        return PictureSpec(
            kind: kind, theme: theme, width: size.width, height: size.height, scale: scale, style: look.route, heatmap: heatmap,
            ramp: ramp.map { RampStyle.standard($0.measure, units: $0.units) }, card: card, map: look.map, basemap: basemap)
    }

    /// Whether pictures of `theme` can be drawn: it is one of the configured themes. Jobs of a
    /// theme taken out of `themes` and `on_request_themes` stay in the index; when one is leased it fails with
    /// ``FailureCode/themeNotConfigured`` instead of being sent to a worker.
    func draws(_ theme: Theme) -> Bool { configuration.themeStyle(for: theme) != nil }

    /// The key of every picture of a theme that is not configured: no picture is ever drawn
    /// under it, so such a picture is never current.
    private static func undrawableKey(_ theme: Theme) -> String {
        var hasher = SHA256()
        hasher.update("workfeed-theme-not-configured\ntheme=\(theme.rawValue)")
        return hasher.finalize().hexString
    }

    private func specKey(_ picture: PictureID, inputs: PictureInputs) -> SpecKey {
        SpecKey(
            kind: picture.kind, theme: picture.theme, scale: picture.scale,
            thresholds: picture.kind.usesHeartRate ? heartRateZones.thresholds(for: inputs.owner) : nil,
            ramp: picture.kind.rampMeasure(for: inputs.activity).map { RampKey(measure: $0, units: units(of: inputs.owner)) },
            card: picture.kind.isCard
                ? ShareCardText(
                    figures: inputs.figures, activity: inputs.activity, units: units(of: inputs.owner), shown: cardFigures(of: inputs.owner))
                : nil)
    }

    /// The spec's JSON, encoded once per kind, theme, scale, zones and ramp.
    /// - Parameter inputs: the workout's owner, whose heart-rate zones a heatmap's spec holds and
    ///   whose units a pace or elevation picture's, and its activity (pace or speed).
    mutating func encodedSpec(for picture: PictureID, inputs: PictureInputs) -> [UInt8] {
        encodedSpec(specKey(picture, inputs: inputs))
    }

    private mutating func encodedSpec(_ key: SpecKey) -> [UInt8] {
        if let bytes = encoded[key] { return bytes }
        if encoded.count >= Self.memoLimit { encoded.removeAll(keepingCapacity: true) }
        let bytes =
            spec(kind: key.kind, theme: key.theme, scale: key.scale, thresholds: key.thresholds, ramp: key.ramp, card: key.card)?.encoded() ?? []
        encoded[key] = bytes
        return bytes
    }

    /// - Parameter inputs: the workout's hashes; its owner, whose privacy policy's fingerprint (of
    ///   the zones the route's box meets) is part of the key, and whose heart-rate zones are part
    ///   of a heatmap's spec; the route's box.
    mutating func cacheKey(for picture: PictureID, inputs: PictureInputs) -> String {
        guard draws(picture.theme) else { return Self.undrawableKey(picture.theme) }
        let owner = inputs.owner
        let key = specKey(picture, inputs: inputs)
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
