import Foundation
import Testing
import WorkFeedModel
import WorkFeedStyle

/// A picture's cache key covers exactly what it depends on: its theme's map style, its kind's
/// styles, the basemap; changing anything else leaves it current.
@Suite struct CacheKeyScopeTests {
    static let routeHash = String(repeating: "a", count: 64)
    static let heartRateHash = String(repeating: "b", count: 64)

    /// The key of a picture drawn as the coordinator would specify it.
    static func key(
        _ kind: JobKind, _ theme: Theme, light: MapStyle = .light, dark: MapStyle = .dark, heatmap: HeatmapStyle = .standard,
        basemap: String? = "basemap-1"
    ) -> String {
        let maps = [Theme.light: light, .dark: dark]
        let spec = PictureSpec(
            kind: kind, theme: theme, width: 512, height: 512, scale: 1, style: ThemeStyle.shipped[theme]!.route,
            heatmap: heatmap, map: maps[theme], basemap: basemap)
        return PictureSpec.cacheKey(kind: kind, encodedSpec: spec.encoded(), routeHash: routeHash, heartRateHash: heartRateHash)
    }

    /// Two owners with the same file have pictures of their own: a key is one owner's, so a zone
    /// one of them adds withdraws only their URLs.
    @Test(arguments: JobKind.allCases)
    func twoOwnersOfTheSameFileHaveTwoKeys(kind: JobKind) {
        let hasher = PictureSpec.specHasher(
            encodedSpec: PictureSpec(
                kind: kind, theme: .light, width: 512, height: 512, scale: 1, style: .light, heatmap: .standard
            ).encoded())
        let alice = PictureSpec.cacheKey(kind: kind, specHasher: hasher, routeHash: Self.routeHash, heartRateHash: Self.heartRateHash, owner: "alice")
        let bob = PictureSpec.cacheKey(kind: kind, specHasher: hasher, routeHash: Self.routeHash, heartRateHash: Self.heartRateHash, owner: "bob")
        #expect(alice != bob)
        #expect(
            alice
                == PictureSpec.cacheKey(kind: kind, specHasher: hasher, routeHash: Self.routeHash, heartRateHash: Self.heartRateHash, owner: "alice"))
    }

    /// Names on the map are part of the map style: changing the dark names stales only dark map
    /// pictures.
    @Test(arguments: JobKind.allCases)
    func changingTheDarkNamesStalesOnlyDarkPictures(kind: JobKind) {
        var dark = MapStyle.dark
        dark.labels[.minorRoad].size = 13
        #expect(Self.key(kind, .dark, dark: dark) != Self.key(kind, .dark))
        #expect(Self.key(kind, .light, dark: dark) == Self.key(kind, .light))
    }

    @Test(arguments: JobKind.allCases)
    func changingTheDarkMapStalesOnlyDarkPictures(kind: JobKind) {
        var dark = MapStyle.dark
        dark[MapArea.water] = RGBA(hex: "#102030")!
        #expect(Self.key(kind, .light, dark: dark) == Self.key(kind, .light))
        #expect(Self.key(kind, .dark, dark: dark) != Self.key(kind, .dark))
    }

    @Test(arguments: Theme.shipped)
    func retuningHeatmapZonesLeavesRoutePicturesCurrent(theme: Theme) {
        var heatmap = HeatmapStyle.standard
        heatmap.zoneColors[2] = RGBA(hex: "#ff00ff")!
        #expect(Self.key(.route, theme, heatmap: heatmap) == Self.key(.route, theme))
        #expect(Self.key(.heatmap, theme, heatmap: heatmap) != Self.key(.heatmap, theme))
    }

    @Test func anotherBasemapStalesEveryMapPicture() {
        for kind in JobKind.allCases {
            for theme in Theme.shipped {
                #expect(Self.key(kind, theme, basemap: "basemap-2") != Self.key(kind, theme))
                #expect(Self.key(kind, theme, basemap: nil) != Self.key(kind, theme))
            }
        }
    }

    @Test func routeSpecsCarryNoHeatmapStyle() {
        let spec = PictureSpec(kind: .route, theme: .light, width: 512, height: 512, scale: 1, style: .light, heatmap: .standard)
        #expect(spec.heatmap == nil)
        #expect(!String(decoding: spec.encoded(), as: UTF8.self).contains("zoneColors"))
    }

    @Test func zoomWidthsInterpolateExponentially() {
        let width = ZoomWidth(base: 1.6, stops: [12, 1.6, 15, 3, 18, 13])
        #expect(width.width(atZoom: 10) == 1.6)
        #expect(width.width(atZoom: 15) == 3)
        #expect(width.width(atZoom: 20) == 13)
        let middle = width.width(atZoom: 16.5)
        // Exponential interpolation lies below the straight line between the stops.
        #expect(middle > 3 && middle < 8)
        #expect(!ZoomWidth(stops: [15, 1, 12, 2]).isValid)
        #expect(ZoomWidth(stops: [15, 1, 12, 2]).width(atZoom: 13) == 0)
    }
}

/// The cache key's bytes, pinned: a key that changes makes every stored picture stale (a bulk
/// regeneration), so a change must be on purpose (raise `BuildInfo.rendererVersion`, or change a
/// style) and then `workctl enqueue --all --stale` redraws. Re-pinned at renderer 6 (issue 35: a
/// picture without a map carries its start's place and a scale bar; pictures with a map kept their
/// bytes). Pinned at renderer 5 before (issue 39: the
/// PNGs are compressed by the renderer's own PixelDeflate, so every picture's bytes changed, its
/// pixels not). Pinned at renderer 4 before (issue 36's
/// heatmap zone colours and legend title: every key has the renderer version, the heatmap keys
/// the zone colours too); renderer 3's were pinned from release 0.4.0. The heatmap keys were
/// re-pinned again for the colour-blind-safe zones: the route keys stayed as they were.
@Suite struct CacheKeyPinTests {
    static func key(_ kind: PictureKind, _ theme: Theme, scale: Int, owner: String = "", privacy: String = "") -> String {
        let shipped = ThemeStyle.shipped[theme]!
        let spec = PictureSpec(
            kind: kind, theme: theme, width: 512, height: 512, scale: scale, style: shipped.route, heatmap: .standard, map: shipped.map,
            basemap: "basemap-1")
        return PictureSpec.cacheKey(
            kind: kind, specHasher: PictureSpec.specHasher(encodedSpec: spec.encoded()), routeHash: CacheKeyScopeTests.routeHash,
            heartRateHash: CacheKeyScopeTests.heartRateHash,
            privacy: privacy, owner: owner)
    }

    @Test func theShippedThemesKeysAreTheSame() {
        let keys = [
            Self.key(.route, .light, scale: 1), Self.key(.route, .dark, scale: 2), Self.key(.heatmap, .light, scale: 2),
            Self.key(.heatmap, .dark, scale: 1, owner: "alice", privacy: "p1"),
        ]
        #expect(
            keys == [
                "9145cc02aee649833b986f4221e181bb109ff829507037dcfe1e3444aab52887",
                "62ec9863dda9f1a7c3d4470011d47125272cedfbf6e8c91d525698c5eb0b8a4b",
                "4f88eaee82afe38b45c789e96670b5a2e91cc5e20ae62f492c6014962664d510",
                "a024778a3113ca04f94706e1f70277759d7de8737d3e53274628082fafbb65f2",
            ])
    }
}

@Suite struct ColourTests {
    @Test func coloursParseAndPrint() {
        #expect(RGBA(hex: "#1f6feb") == RGBA(red: 0x1F, green: 0x6F, blue: 0xEB, alpha: 0xFF))
        #expect(RGBA(hex: "#1f6feb80")?.alpha == 0x80)
        #expect(RGBA(hex: "1f6feb") != nil)
        #expect(RGBA(hex: "#12345") == nil)
        #expect(RGBA(hex: "#gggggg") == nil)
        #expect(RGBA(hex: "#0a0b0c")?.description == "#0a0b0cff")
    }
}
