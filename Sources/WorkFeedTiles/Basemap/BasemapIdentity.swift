import Foundation
public import Logging
import WorkFeedModel
public import WorkFeedStyle

/// What a basemap is, as one hash: the tilesets' content identities in their configured order, the
/// attribution text drawn, and the fonts its names and attribution are drawn with. It goes into the cache key of every
/// picture drawn on the map, so replacing a tileset (or the font) makes exactly those pictures
/// stale, and a worker whose basemap differs from the coordinator's is refused.
///
/// Paths and modification times are not part of it: a copy of the same tileset on another host
/// has the same identity.
public struct BasemapIdentity: Sendable, Hashable {
    public let tilesets: [TilesetInfo]
    /// The attribution drawn on pictures that show the map: each tileset's own, or the override.
    public let attributions: [String]
    /// The main font (names and attribution).
    public let fontPath: String
    /// Fonts for names the main font cannot draw, tried in order.
    public let fallbackFontPaths: [String]
    public let hash: String

    /// Opens each tileset (metadata and index only, never its tiles) and hashes the font file.
    ///
    /// - Parameters:
    ///   - tilesetLocations: files, `https://` URLs or `s3://bucket/key` (``TilesetLocation``).
    ///   - access: how `s3://` tilesets are reached.
    ///   - attributionOverride: drawn instead of every tileset's own attribution when not empty.
    /// - Throws: ``TileError`` naming the tileset or font that cannot be read.
    public init(
        tilesetLocations: [String], access: TilesetAccess = TilesetAccess(), fontPath: String,
        fallbackFontPaths: [String] = BasemapDefaults.fallbackFontPaths, attributionOverride: String = ""
    ) throws(TileError) {
        var infos: [TilesetInfo] = []
        for text in tilesetLocations {
            infos.append(try Tileset.open(Tileset.location(text), access: access).info)
        }
        try self.init(tilesets: infos, fontPath: fontPath, fallbackFontPaths: fallbackFontPaths, attributionOverride: attributionOverride)
    }

    /// The identity of tilesets already open.
    public init(
        tilesets: [TilesetInfo], fontPath: String, fallbackFontPaths: [String] = BasemapDefaults.fallbackFontPaths,
        attributionOverride: String = ""
    ) throws(TileError) {
        self.tilesets = tilesets
        self.fontPath = fontPath
        self.fallbackFontPaths = fallbackFontPaths
        let override = Attribution.plainText(attributionOverride)
        attributions = tilesets.map { override.isEmpty ? Attribution.plainText($0.attribution) : override }
        var hasher = SHA256()
        hasher.update("workfeed-basemap-v2\n")
        for (info, attribution) in zip(tilesets, attributions) {
            hasher.update("tileset=\(info.identity)\nattribution=\(attribution)\n")
        }
        for (key, path) in [("font", fontPath)] + fallbackFontPaths.map({ ("fallback", $0) }) {
            guard let font = FileManager.default.contents(atPath: path) else {
                let setting = key == "font" ? "basemap.font" : "basemap.fallback_fonts"
                throw TileError(.unreadable, "cannot read the map's font (install fonts-noto-core, or set \(setting))", path: path)
            }
            var fontHasher = SHA256()
            fontHasher.update(Array(font))
            hasher.update("\(key)=\(fontHasher.finalize().hexString)\n")
        }
        hash = hasher.finalize().hexString
    }
}

extension TilesetInfo {
    /// What daemons log about a tileset they opened.
    public var logMetadata: Logger.Metadata {
        [
            "path": "\(path)", "name": "\(name)", "zooms": "\(minZoom)-\(maxZoom)", "tiles": "\(tileCount)",
            "identity": "\(identity.prefix(12))",
        ]
    }
}
