import Foundation
public import WorkFeedModel

extension PictureSpec {
    /// The spec as JSON with sorted keys: the bytes sent with every job (docs/PROTOCOL.md) and
    /// hashed into cache keys. The same spec always gives the same bytes.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Plain value types with sorted keys always encode.
        return Array(try! encoder.encode(self))
    }

    /// The cache key of a picture drawn with this spec from series with these hashes: SHA-256 of
    /// everything the picture depends on (the renderer version, the spec's JSON, the route hash,
    /// and for heatmaps the heart-rate hash). A `generated` picture whose stored key differs from
    /// the current one is stale.
    /// - Parameter encodedSpec: ``encoded()``, passed in so callers can encode once per spec.
    public static func cacheKey(kind: PictureKind, encodedSpec: [UInt8], routeHash: String, heartRateHash: String) -> String {
        cacheKey(kind: kind, specHasher: specHasher(encodedSpec: encodedSpec), routeHash: routeHash, heartRateHash: heartRateHash)
    }

    /// The hash state after the part of the key that is the same for every job of one spec; the
    /// coordinator keeps one per spec so that each job hashes only its series' hashes.
    public static func specHasher(encodedSpec: [UInt8]) -> SHA256 {
        var hasher = SHA256()
        hasher.update("workfeed-cache-key-v1\nrenderer=\(BuildInfo.rendererVersion)\nspec=")
        hasher.update(encodedSpec)
        return hasher
    }

    /// ``cacheKey(kind:encodedSpec:routeHash:heartRateHash:)`` from a ``specHasher(encodedSpec:)``.
    /// - Parameters:
    ///   - privacy: the owner's ``PrivacyPolicy/fingerprint``; `""` (nothing hidden) leaves the key
    ///     as it was before privacy zones.
    ///   - owner: the workout's owner. Two owners with the same file get two pictures, so a zone
    ///     one of them adds withdraws their picture's URL without touching the other's (a picture
    ///     shared by key stayed served after a zone hid it from one owner, issue 23).
    public static func cacheKey(
        kind: PictureKind, specHasher: SHA256, routeHash: String, heartRateHash: String, privacy: String = "", owner: String = ""
    ) -> String {
        var hasher = specHasher
        hasher.update("\nroute=\(routeHash)")
        if !owner.isEmpty { hasher.update("\nowner=\(owner)") }
        if !privacy.isEmpty { hasher.update("\nprivacy=\(privacy)") }
        // A route picture does not depend on heart rate: a new heart-rate series alone keeps its key.
        if kind.usesHeartRate { hasher.update("\nheartrate=\(heartRateHash)") }
        return hasher.finalize().hexString
    }
}
