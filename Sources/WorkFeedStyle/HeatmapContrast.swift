/// The rule a heatmap's zone colours are held to against a theme, and the figures it measures
/// (docs/rendering.md, "Heatmap colours"; the style tests check the shipped zones against every
/// shipped theme, from the themes' own values).
///
/// One zone scale serves every theme (a zone reads the same on either map), so it cannot reach
/// WCAG's 3:1 against both a light map and a dark one: no colour is 3:1 from both light forest
/// and dark forest. The rule asks 3:1 where the line meets what borders it, and against the map
/// asks for a difference of colour (CIEDE2000, which sees hue: the green zone on the green forest
/// was 1.9:1 and only 19 apart) with a smaller floor of lightness.
public enum HeatmapContrast {
    /// WCAG 2's ratio for graphics (success criterion 1.4.11) between a zone and the theme's
    /// outline, which borders the heatmap's line on both sides in every picture.
    public static let minimumOutlineRatio = 3.0
    /// CIEDE2000 between a zone and every map fill it is checked against.
    public static let minimumMapDifference = 22.0
    /// WCAG contrast ratio between a zone and every map fill it is checked against.
    public static let minimumMapRatio = 1.8
    /// CIEDE2000 between a zone and the route picture's line and the start and end marks, so a
    /// heatmap is never taken for a route picture and a mark never sinks into the line.
    public static let minimumMarkDifference = 15.0
    /// CIEDE2000 between one zone and the next.
    public static let minimumStepDifference = 30.0
    /// CIEDE2000 between any two zones as a reader with a colour-vision deficiency sees them
    /// (``ColourVision``): 20 for the red-green dichromats, 15 for the rare tritanope, so that no
    /// reader takes one zone for another.
    public static func minimumPairDifference(seenWith vision: ColourVision) -> Double {
        vision == .tritanopia ? 15 : 20
    }
    /// The map fills a heatmap's line crosses most and is checked against, besides the land.
    public static let mapAreas: [MapArea] = [.wood, .park, .grass, .water]

    /// The least of each figure for one zone colour against one theme.
    public struct Figures: Sendable, Hashable {
        public var outlineRatio: Double
        public var mapDifference: Double
        public var mapRatio: Double
        /// The map fill (an area's raw value, or `land`) behind ``mapDifference``.
        public var closestMapFill: String
        public var markDifference: Double
        /// `line`, `startMark` or `endMark`: the one behind ``markDifference``.
        public var closestMark: String

        /// Whether the figures keep the rule's minimums.
        public var keepsTheRule: Bool {
            outlineRatio >= HeatmapContrast.minimumOutlineRatio && mapDifference >= HeatmapContrast.minimumMapDifference
                && mapRatio >= HeatmapContrast.minimumMapRatio && markDifference >= HeatmapContrast.minimumMarkDifference
        }
    }

    /// The figures of `zone` (flattened over the land, as the renderer lays it) against `theme`.
    public static func figures(zone: RGBA, theme: ThemeStyle) -> Figures {
        let colour = zone.flattened(over: theme.map.land)
        let fills = [("land", theme.map.land)] + mapAreas.map { ($0.rawValue, theme.map[$0].flattened(over: theme.map.land)) }
        let closestFill = fills.min { colour.deltaE2000(to: $0.1) < colour.deltaE2000(to: $1.1) }!
        let route = theme.route
        let marks = [("line", route.line), ("startMark", route.startMark), ("endMark", route.endMark)].map {
            ($0.0, $0.1.flattened(over: theme.map.land))
        }
        let closestMark = marks.min { colour.deltaE2000(to: $0.1) < colour.deltaE2000(to: $1.1) }!
        return Figures(
            outlineRatio: colour.contrastRatio(to: route.outline.flattened(over: theme.map.land)),
            mapDifference: colour.deltaE2000(to: closestFill.1), mapRatio: fills.map { colour.contrastRatio(to: $0.1) }.min()!,
            closestMapFill: closestFill.0, markDifference: colour.deltaE2000(to: closestMark.1), closestMark: closestMark.0)
    }
}

extension HeatmapContrast {
    /// The two zones closest together as a reader with `vision` sees them, and how far apart.
    public static func closestPair(of zones: [RGBA], seenWith vision: ColourVision) -> (first: Int, second: Int, difference: Double)? {
        var closest: (first: Int, second: Int, difference: Double)?
        for first in zones.indices {
            for second in zones.indices where second > first {
                let difference = zones[first].deltaE2000(to: zones[second], seenWith: vision)
                if difference < closest?.difference ?? .infinity { closest = (first, second, difference) }
            }
        }
        return closest
    }
}

extension RGBA {
    /// This colour laid over `background` at its opacity: an opaque colour.
    public func flattened(over background: RGBA) -> RGBA {
        let a = Double(alpha) / 255
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 { UInt8((Double(top) * a + Double(bottom) * (1 - a)).rounded()) }
        return RGBA(red: mix(red, background.red), green: mix(green, background.green), blue: mix(blue, background.blue))
    }
}
