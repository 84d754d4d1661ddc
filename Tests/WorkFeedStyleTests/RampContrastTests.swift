import Testing
import WorkFeedModel
import WorkFeedStyle

/// The pace and elevation ramps against every shipped theme, by the heatmap's rule (docs/rendering.md,
/// "Ramps"): each colour along the ramp (its stops, and eight mixes between each two) stands out
/// from the outline, the map's fills, the route line and the marks, as a heatmap zone must.
@Suite struct RampContrastTests {
    static let measures: [RouteMeasure] = [.pace, .elevation]

    /// The ramp's stops and eight colours between each two, mixed as the renderer mixes them.
    static func samples(_ colours: [RGBA]) -> [RGBA] {
        var samples: [RGBA] = []
        for (low, high) in zip(colours, colours.dropFirst()) {
            for step in 0..<8 {
                let t = Double(step) / 8
                func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) + (Double(y) - Double(x)) * t).rounded()) }
                samples.append(RGBA(red: mix(low.red, high.red), green: mix(low.green, high.green), blue: mix(low.blue, high.blue)))
            }
        }
        return samples + [colours[colours.count - 1]]
    }

    @Test(arguments: Theme.shipped)
    func everyColourOfTheRampsStandsOutFromTheMapLineAndMarks(theme: Theme) throws {
        let style = try #require(ThemeStyle.shipped[theme])
        for measure in Self.measures {
            for colour in Self.samples(RampStyle.standard(measure, units: .metric).colours) {
                let figures = HeatmapContrast.figures(zone: colour, theme: style)
                #expect(figures.keepsTheRule, "\(measure) \(theme) \(colour): \(figures)")
            }
        }
    }

    /// The two ends of each ramp are far apart, for every reader (43 and more with the shipped ramps).
    @Test func theEndsOfEachRampAreFarApart() {
        for measure in Self.measures {
            let colours = RampStyle.standard(measure, units: .metric).colours
            for vision in ColourVision.allCases {
                let difference = colours[0].deltaE2000(to: colours[colours.count - 1], seenWith: vision)
                #expect(difference >= 35, "\(measure) \(vision)")
            }
        }
    }
}
