/// Where pictures live in the shared cache.
///
/// - By picture: `<cache>/<kind>/<first two hex digits of id>/<id>[_<metric>]_<theme>[@2x].png`
///   (DESIGN.md), replaced in place when the picture is drawn again.
/// - By content: `<cache>/keys/<first two hex digits of the key>/<cache key>.png`, a hard link to
///   the same file made when it is written. A cache key names exactly one picture's bytes (the same
///   inputs give the same bytes), so this name never changes meaning: the gateway serves
///   `/v1/pictures/<cache key>.png` from it as immutable, and never needs the index to find a file.
public enum CacheLayout {
    /// The picture's path relative to the cache root, for example `route/3f/3f2a..._dark.png`.
    public static func relativePath(for picture: PictureID) -> String {
        let id = picture.workoutID.description
        let metric = picture.metric.map { "_\($0)" } ?? ""
        let scale = picture.scale == 1 ? "" : "@\(picture.scale)x"
        return "\(picture.kind.rawValue)/\(id.prefix(2))/\(id)\(metric)_\(picture.theme.rawValue)\(scale).png"
    }

    /// The keyword of the PNG `tEXt` chunk in which a worker writes the picture's cache key.
    public static let keyTextKeyword = "workfeed:cache-key"

    /// The picture stored at `relative` (a path ``relativePath(for:)`` gives), or `nil` for any
    /// other path: the inverse, checked by giving the path back.
    public static func picture(atRelativePath relative: String) -> PictureID? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let kind = PictureKind(rawValue: String(parts[0])), parts[2].hasSuffix(".png") else { return nil }
        var name = parts[2].dropLast(4)
        var scale = 1
        if let at = name.lastIndex(of: "@") {
            guard name.hasSuffix("x"), let value = Int(name[name.index(after: at)..<name.index(before: name.endIndex)]) else { return nil }
            scale = value
            name = name[..<at]
        }
        guard let underscore = name.lastIndex(of: "_"), let theme = Theme(rawValue: String(name[name.index(after: underscore)...])) else {
            return nil
        }
        let idText = name[..<underscore].prefix(36)
        guard let id = WorkoutID(String(idText)) else { return nil }
        let picture = PictureID(workoutID: id, kind: kind, theme: theme, scale: scale)
        return relativePath(for: picture) == relative ? picture : nil
    }

    /// The folder of the by-content names, relative to the cache root.
    public static let keysFolder = "keys"
    /// The store's owner marker at its root: the index whose pictures it holds (docs/operations.md,
    /// "One store, one index"). No picture name can be it.
    public static let ownerMarkerName = "workfeed-index"

    /// The by-content path of the picture with this cache key, relative to the cache root, for
    /// example `keys/9c/9c04…e1.png`; `nil` when `key` is not a cache key (64 lower-case hex
    /// digits), so that nothing else ever becomes a path.
    ///
    /// - Parameter format: the bytes' format: a WebP picture is `keys/<aa>/<its content key>.webp`
    ///   (``PictureFormat/contentKey(pictureKey:)``); the PNG keeps today's name.
    public static func relativePath(forKey key: String, format: PictureFormat = .standard) -> String? {
        guard isCacheKey(key) else { return nil }
        return "\(keysFolder)/\(key.prefix(2))/\(key).\(format.fileExtension)"
    }

    /// Whether `text` is a cache key: exactly 64 lower-case hex digits (a SHA-256).
    public static func isCacheKey(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
