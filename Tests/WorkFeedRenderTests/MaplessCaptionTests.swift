import Foundation
import Testing
import WorkFeedModel
import WorkFeedPlaces
@testable import WorkFeedRender
import WorkFeedStyle

/// A picture drawn where no tileset covers the route says where it is (issue 35, part 3;
/// docs/rendering.md, "Pictures without a map"): the start's place and a scale bar in the
/// bottom-left corner, and nothing of it on a picture with a map.
@Suite struct MaplessCaptionTests {
    static func ink(_ theme: Theme) -> RGBA {
        Renderer.isDark(ThemeStyle.shipped[theme]!.route.background)
            ? RGBA(red: 0xE8, green: 0xE8, blue: 0xE8) : RGBA(red: 0x30, green: 0x30, blue: 0x30)
    }

    /// The Cadzand-Bad walk, drawn without tilesets: the place's text is where a bare picture has
    /// none, at @1x and @2x, in both themes.
    @Test(arguments: Theme.shipped, [1, 2])
    func aPictureWithoutAMapCarriesThePlaceName(theme: Theme, scale: Int) throws {
        let walk = try MapFixtures.workout(MapFixtures.zeeland)
        let spec = MapFixtures.spec(.route, theme, basemap: nil, scale: scale)
        let places = try PlaceMap.shipped.get()
        #expect(StartPlace.label(of: walk.route, map: .success(places)) == "Sluis, Zeeland")
        let (named, _, _) = try MapFixtures.draw(spec, walk, renderer: Renderer(places: places))
        let (unnamed, _, _) = try MapFixtures.draw(spec, walk, renderer: Renderer(places: nil))
        let size = 512 * scale
        let textColumns = 0..<(100 * scale)
        let textRows = (size - 36 * scale)..<(size - 16 * scale)
        let text = named.count(Self.ink(theme), tolerance: 60, x: textColumns, y: textRows)
        #expect(text > 40 * scale * scale, "\(theme) @\(scale)x: \(text) pixels of the place's name")
        #expect(unnamed.count(Self.ink(theme), tolerance: 60, x: textColumns, y: textRows) < text / 10)
        // The scale bar, in both: a row of ink along the bottom.
        let barRows = (size - 16 * scale)..<size
        for image in [named, unnamed] {
            #expect(image.count(Self.ink(theme), tolerance: 60, x: 0..<(200 * scale), y: barRows) > 40 * scale)
        }
        // Same inputs, same bytes.
        let again = try Renderer(places: places).render(spec: spec, route: walk.route, heartRate: [], cacheKey: "test-key")
        #expect(try PNGCodec.decode(again) == named)
    }

    /// A picture with a map has its names and attribution, not the caption: the same bytes whether
    /// the renderer has the places or not.
    @Test func aPictureWithAMapIsAsItWas() throws {
        let basemap = try MapFixtures.basemap()
        let run = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.route, .light, basemap: basemap)
        let (_, statistics, withPlaces) = try MapFixtures.draw(spec, run, renderer: Renderer(basemap: basemap))
        #expect(statistics.mapCoverage == .full)
        let (_, _, without) = try MapFixtures.draw(spec, run, renderer: Renderer(basemap: basemap, places: nil))
        #expect(withPlaces == without)
    }

    @Test(arguments: [
        (3_000.0, UnitSystem.metric, 2_000.0, "2 km"), (160, .metric, 100, "100 m"), (0.4, .metric, 1, "1 m"),
        (12_000, .metric, 10_000, "10 km"), (2_500, .metric, 2_000, "2 km"), (700, .metric, 500, "500 m"),
        (4_000, .imperial, 2 * 1_609.344, "2 mi"), (1_000, .imperial, 2_000 * 0.3048, "2,000 ft"), (100, .imperial, 200 * 0.3048, "200 ft"),
    ])
    func theScaleBarIsARoundDistance(maximum: Double, units: UnitSystem, metres: Double, words: String) {
        let bar = Renderer.scaleBarLength(maximumMetres: maximum, units: units)
        #expect(abs(bar.metres - metres) < 1e-6)
        #expect(bar.words == words)
    }
}
