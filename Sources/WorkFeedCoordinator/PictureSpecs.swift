import WorkFeedConfig
import WorkFeedModel

/// The picture specs the coordinator hands out, their JSON encodings (sent with every job), and the
/// cache keys derived from them.
///
/// A cache key is the SHA-256 of everything a picture depends on: the renderer version, the spec
/// (kind, theme, size, scale, that theme's route and map styles, heatmap zones for heatmaps, the
/// basemap's identity), the hashes of the series it draws, and the fingerprint of its owner's
/// privacy policy when it hides anything. A
/// `generated` job whose stored key differs from the current one is stale.
struct PictureSpecs {
    private let configuration: CoordinatorConfiguration
    /// The basemap's identity hash, `nil` without tilesets.
    private let basemap: String?
    private var encoded: [SpecKey: [UInt8]] = [:]
    /// Every owner's privacy zones and the end trim: part of each picture's key.
    var privacy: PrivacyPolicies
    private var hashers: [SpecKey: SHA256] = [:]

    private struct SpecKey: Hashable {
        var kind: JobKind
        var theme: Theme
        var scale: Int
    }

    init(configuration: CoordinatorConfiguration, basemap: String?, privacy: PrivacyPolicies) {
        self.configuration = configuration
        self.basemap = basemap
        self.privacy = privacy
    }

    func spec(kind: JobKind, theme: Theme, scale: Int) -> PictureSpec {
        PictureSpec(
            kind: kind, theme: theme, width: configuration.pictureWidth, height: configuration.pictureHeight,
            scale: scale, style: configuration.style(for: theme), heatmap: configuration.heatmap,
            map: configuration.mapStyle(for: theme), basemap: basemap)
    }

    /// The spec's JSON, encoded once per kind, theme and scale.
    mutating func encodedSpec(for picture: PictureID) -> [UInt8] {
        let key = SpecKey(kind: picture.kind, theme: picture.theme, scale: picture.scale)
        if let bytes = encoded[key] { return bytes }
        let bytes = spec(kind: picture.kind, theme: picture.theme, scale: picture.scale).encoded()
        encoded[key] = bytes
        return bytes
    }

    /// - Parameter owner: the workout's owner, whose privacy policy's fingerprint is part of the key.
    mutating func cacheKey(for picture: PictureID, routeHash: String, heartRateHash: String, owner: String) -> String {
        let key = SpecKey(kind: picture.kind, theme: picture.theme, scale: picture.scale)
        let hasher: SHA256
        if let cached = hashers[key] {
            hasher = cached
        } else {
            hasher = PictureSpec.specHasher(encodedSpec: encodedSpec(for: picture))
            hashers[key] = hasher
        }
        return PictureSpec.cacheKey(
            kind: picture.kind, specHasher: hasher, routeHash: routeHash, heartRateHash: heartRateHash, privacy: privacy.fingerprint(for: owner))
    }
}
