import Testing
import WorkFeedModel
import WorkFeedStyle

/// The heatmap's zone colours against every shipped theme, measured from the themes' own values
/// (docs/rendering.md, "Heatmap colours"): a palette change that sinks a zone into a map fill or
/// into the route line or a mark fails here.
@Suite struct HeatmapContrastTests {
    static let zones = HeatmapStyle.standard.zoneColors

    /// Against each theme's outline, forest, park, grass, water and land, line and marks.
    @Test(arguments: Theme.shipped)
    func everyZoneStandsOutFromTheMapLineAndMarks(theme: Theme) throws {
        let style = try #require(ThemeStyle.shipped[theme])
        for (zone, colour) in Self.zones.enumerated() {
            let figures = HeatmapContrast.figures(zone: colour, theme: style)
            let said = "\(theme) zone \(zone) \(colour): \(figures)"
            #expect(figures.outlineRatio >= HeatmapContrast.minimumOutlineRatio, "\(said)")
            #expect(figures.mapDifference >= HeatmapContrast.minimumMapDifference, "\(said)")
            #expect(figures.mapRatio >= HeatmapContrast.minimumMapRatio, "\(said)")
            #expect(figures.markDifference >= HeatmapContrast.minimumMarkDifference, "\(said)")
            #expect(figures.keepsTheRule, "\(said)")
        }
    }

    /// Next zones are far apart, and the hues turn one way round the wheel (violet, teal, ochre,
    /// crimson: the spectrum's order, cool to hot) less than once: an ordered scale.
    @Test func theZonesReadAsAnOrderedScale() {
        var turned = 0.0
        for (cooler, hotter) in zip(Self.zones, Self.zones.dropFirst()) {
            #expect(cooler.deltaE2000(to: hotter) >= HeatmapContrast.minimumStepDifference, "\(cooler) to \(hotter)")
            var step = hotter.labHue - cooler.labHue
            if step > 180 { step -= 360 } else if step <= -180 { step += 360 }
            #expect(step < 0, "\(cooler) to \(hotter) turns the other way")
            turned += -step
        }
        #expect(turned < 360)
    }

    /// No two zones look alike to a reader without red, green or blue cones (Machado et al.'s
    /// simulation at full severity).
    @Test(arguments: ColourVision.allCases)
    func everyPairOfZonesStaysApartToEveryReader(vision: ColourVision) throws {
        let closest = try #require(HeatmapContrast.closestPair(of: Self.zones, seenWith: vision))
        #expect(
            closest.difference >= HeatmapContrast.minimumPairDifference(seenWith: vision),
            "\(vision): zones \(closest.first) and \(closest.second) are \(closest.difference) apart")
    }

    /// The zones of renderer version 4 failed it: a deuteranope saw teal and magenta-red as one
    /// grey-blue. The simulation keeps greys grey and folds red onto green for such a reader.
    @Test func theReaderRuleRejectsTheVersion4Zones() throws {
        let version4 = ["#8756d8", "#0f8a80", "#d9730d", "#bf1d7e"].map { RGBA(hex: $0)! }
        let closest = try #require(HeatmapContrast.closestPair(of: version4, seenWith: .deuteranopia))
        #expect(closest.first == 1 && closest.second == 3 && closest.difference < 5, "\(closest)")
        for grey in [0, 119, 200, 255].map({ RGBA(red: UInt8($0), green: UInt8($0), blue: UInt8($0)) }) {
            for vision in ColourVision.allCases {
                let (l, a, b) = grey.lab(seenWith: vision)
                #expect(abs(l - grey.lab.l) < 0.01 && abs(a) < 0.01 && abs(b) < 0.01, "\(vision) \(grey)")
            }
        }
        let red = RGBA(red: 200, green: 60, blue: 40)
        let green = RGBA(red: 110, green: 120, blue: 40)
        #expect(red.deltaE2000(to: green) > 30)
        #expect(red.deltaE2000(to: green, seenWith: .deuteranopia) < red.deltaE2000(to: green) / 3)
    }

    /// The rule rejects the colours issue 36 found hiding: the green zone on the light forest and
    /// in the start mark's green, the lowest zone in the route line's blue.
    @Test func theRuleRejectsTheOldZones() throws {
        let light = try #require(ThemeStyle.shipped[.light])
        let oldGreen = HeatmapContrast.figures(zone: RGBA(hex: "#2da44e")!, theme: light)
        #expect(oldGreen.mapDifference < HeatmapContrast.minimumMapDifference && oldGreen.closestMapFill == "wood")
        #expect(oldGreen.markDifference < 1 && oldGreen.closestMark == "startMark")
        let oldBlue = HeatmapContrast.figures(zone: RGBA(hex: "#2f6fde")!, theme: light)
        #expect(oldBlue.markDifference < 2 && oldBlue.closestMark == "line")
        // The old orange was too light for the light map and for the white outline.
        let oldOrange = HeatmapContrast.figures(zone: RGBA(hex: "#f0883e")!, theme: light)
        #expect(oldOrange.mapRatio < HeatmapContrast.minimumMapRatio && oldOrange.outlineRatio < HeatmapContrast.minimumOutlineRatio)
        #expect(!oldGreen.keepsTheRule && !oldBlue.keepsTheRule && !oldOrange.keepsTheRule)
    }

    /// The measures against published values: WCAG's black on white, sRGB red's L*a*b*, and
    /// pairs from Sharma, Wu and Dalal's CIEDE2000 test data (pairs 1, 7, 17, 25 and 34).
    @Test func theMeasuresAreTheStandardOnes() {
        let sharma: [((Double, Double, Double), (Double, Double, Double), Double)] = [
            ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
            ((50, 0, 0), (50, -1, 2), 2.3669),
            ((50, 2.5, 0), (73, 25, -18), 27.1492),
            ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
            ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
        ]
        for (first, second, expected) in sharma {
            #expect(abs(RGBA.deltaE2000(first, second) - expected) < 0.0001, "\(first) \(second)")
            #expect(abs(RGBA.deltaE2000(second, first) - expected) < 0.0001, "symmetric")
        }
        let black = RGBA(red: 0, green: 0, blue: 0)
        let white = RGBA(red: 255, green: 255, blue: 255)
        #expect(abs(black.contrastRatio(to: white) - 21) < 1e-9)
        #expect(abs(white.contrastRatio(to: white) - 1) < 1e-9)
        #expect(abs(white.lab.l - 100) < 0.01 && abs(white.lab.a) < 0.01 && abs(white.lab.b) < 0.01)
        #expect(white.deltaE2000(to: white) == 0)
        // Black to white is 100 apart in lightness alone.
        #expect(abs(black.deltaE2000(to: white) - 100) < 0.01)
        // #777777 is about half lightness (L* 50) and 4.48:1 on white.
        let grey = RGBA(hex: "#777777")!
        #expect(abs(grey.lab.l - 50.03) < 0.05)
        #expect(abs(grey.contrastRatio(to: white) - 4.48) < 0.01)
        // Pure sRGB red: L* 53.24, a* 80.09, b* 67.20, hue 40°.
        let red = RGBA(red: 255, green: 0, blue: 0)
        #expect(abs(red.lab.l - 53.24) < 0.05 && abs(red.lab.a - 80.09) < 0.1 && abs(red.lab.b - 67.20) < 0.1)
        #expect(abs(red.labHue - 40) < 0.1)
    }
}
