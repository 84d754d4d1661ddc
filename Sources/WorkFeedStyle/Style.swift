public import WorkFeedModel
/// An 8-bit sRGB colour with alpha, written `#rrggbb` or `#rrggbbaa` in configuration.
public struct RGBA: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses `#rrggbb` or `#rrggbbaa`; `nil` for anything else.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 6 ? (value << 8) | 0xFF : value
        self.init(
            red: UInt8(truncatingIfNeeded: full >> 24),
            green: UInt8(truncatingIfNeeded: full >> 16),
            blue: UInt8(truncatingIfNeeded: full >> 8),
            alpha: UInt8(truncatingIfNeeded: full)
        )
    }

    public var description: String {
        let hex = [red, green, blue, alpha].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "#" + hex.joined()
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let colour = RGBA(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a colour (#rrggbb or #rrggbbaa): \(text)"))
        }
        self = colour
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// How one theme draws a route. Widths and radii are in points (pixels at @1x); a width or radius
/// of zero turns that element off.
public struct RouteStyle: Sendable, Hashable, Codable {
    public var background: RGBA
    public var line: RGBA
    public var lineWidth: Double
    /// Drawn under the line, `outlineWidth` wider on each side, so that the line reads on any background.
    public var outline: RGBA
    public var outlineWidth: Double
    public var startMark: RGBA
    public var endMark: RGBA
    public var markRadius: Double
    /// Space kept free around the route, in points.
    public var padding: Double
    /// The least ground the picture shows across its smaller side, in metres: a short run is
    /// shown with a few hundred metres of streets around it instead of filling the frame.
    public var minimumSpan: Double

    public init(
        background: RGBA, line: RGBA, lineWidth: Double, outline: RGBA, outlineWidth: Double,
        startMark: RGBA, endMark: RGBA, markRadius: Double, padding: Double, minimumSpan: Double = 600
    ) {
        self.background = background
        self.line = line
        self.lineWidth = lineWidth
        self.outline = outline
        self.outlineWidth = outlineWidth
        self.startMark = startMark
        self.endMark = endMark
        self.markRadius = markRadius
        self.padding = padding
        self.minimumSpan = minimumSpan
    }

    /// Whether the background lets what is under the picture show (an alpha under 255): such a
    /// picture is drawn without a map and written with its alpha (docs/rendering.md, "Transparent").
    public var isSeeThrough: Bool { background.alpha < 255 }

    public static let light = RouteStyle(
        background: RGBA(hex: "#f2f0eb")!, line: RGBA(hex: "#1f6feb")!, lineWidth: 4,
        outline: RGBA(hex: "#ffffff")!, outlineWidth: 1.5,
        startMark: RGBA(hex: "#2da44e")!, endMark: RGBA(hex: "#cf222e")!, markRadius: 5, padding: 24
    )

    public static let dark = RouteStyle(
        background: RGBA(hex: "#1c1e21")!, line: RGBA(hex: "#4aa3ff")!, lineWidth: 4,
        outline: RGBA(hex: "#000000")!, outlineWidth: 1.5,
        startMark: RGBA(hex: "#3fb950")!, endMark: RGBA(hex: "#f85149")!, markRadius: 5, padding: 24
    )

    /// On nothing: the background is see-through (alpha 0), so the picture has no map and lays
    /// over a photo; a white line with a soft dark outline reads on most photos, and the words on
    /// it are light, as on a dark background.
    public static let transparent = RouteStyle(
        background: RGBA(hex: "#00000000")!, line: RGBA(hex: "#ffffff")!, lineWidth: 4,
        outline: RGBA(hex: "#00000066")!, outlineWidth: 1.5,
        startMark: RGBA(hex: "#3fb950")!, endMark: RGBA(hex: "#f85149")!, markRadius: 5, padding: 24
    )
}

/// How heatmaps colour heart-rate zones.
public struct HeatmapStyle: Sendable, Hashable, Codable {
    /// How many segments the route is cut into.
    public var segments: Int
    public var lineWidth: Double
    /// Lower bounds (bpm) of the zones above the first: below `thresholds[0]` is zone 0.
    public var thresholds: [Double]
    /// One colour per zone: `thresholds.count + 1` of them.
    public var zoneColors: [RGBA]

    public init(segments: Int, lineWidth: Double, thresholds: [Double], zoneColors: [RGBA]) {
        self.segments = segments
        self.lineWidth = lineWidth
        self.thresholds = thresholds
        self.zoneColors = zoneColors
    }

    /// Four zones, cool to hot in the order of the spectrum, skipping the route line's blue and
    /// the start mark's green: violet, teal, ochre, crimson. Chosen against the shipped
    /// themes' maps, lines and marks, and to stay apart to a colour-blind reader, by
    /// ``HeatmapContrast``'s rule (docs/rendering.md).
    public static let standard = HeatmapStyle(
        segments: 50, lineWidth: 8, thresholds: [100, 140, 180],
        zoneColors: [RGBA(hex: "#763acc")!, RGBA(hex: "#1c8a88")!, RGBA(hex: "#b47708")!, RGBA(hex: "#b51a58")!]
    )
}

/// How a pace or elevation picture colours its route (``PictureKind/usesUnits``): cut into
/// ``segments`` pieces of equal length, each in the colour of its value along ``colours``, from
/// the workout's low end (slowest, lowest) to its high end (fastest, highest); its legend gives
/// both ends' figures in ``units``.
public struct RampStyle: Sendable, Hashable, Codable {
    /// What the ramp measures (pace, speed or altitude): the workout's activity decides between
    /// pace and speed.
    public var measure: RouteMeasure
    /// The units of the legend's figures: the owner's `units` setting.
    public var units: UnitSystem
    /// How many pieces of equal length the route is cut into.
    public var segments: Int
    public var lineWidth: Double
    /// At least two colours, from the low end to the high end, evenly spaced along the ramp.
    public var colours: [RGBA]

    public init(measure: RouteMeasure, units: UnitSystem, segments: Int, lineWidth: Double, colours: [RGBA]) {
        self.measure = measure
        self.units = units
        self.segments = segments
        self.lineWidth = lineWidth
        self.colours = colours
    }

    /// The shipped ramp of a `kind` picture of a workout of `activity`, its legend in `units`; `nil`
    /// for a kind not coloured along a ramp (``PictureKind/rampMeasure(for:)``).
    public static func standard(for kind: PictureKind, activity: ActivityType, units: UnitSystem) -> RampStyle? {
        kind.rampMeasure(for: activity).map { standard($0, units: units) }
    }

    /// The shipped ramp for `measure`, as the heatmap's zones are drawn (its pieces and width):
    /// pace and speed from violet-blue (slow) to ochre (fast), cool to hot; altitude from sea
    /// blue (low) to orange (high). Found by a search over sRGB for the two ends farthest apart to
    /// every reader (protanopia, deuteranopia, tritanopia) whose every mix keeps the heatmap's rule
    /// against the shipped themes' maps, outline, line and marks (docs/rendering.md, "Ramps").
    public static func standard(_ measure: RouteMeasure, units: UnitSystem) -> RampStyle {
        let colours: [String] =
            switch measure {
            case .pace, .speed: ["#5a3cff", "#c3780f"]
            case .elevation: ["#0f87a5", "#f0690f"]
            }
        return RampStyle(
            measure: measure, units: units, segments: HeatmapStyle.standard.segments, lineWidth: HeatmapStyle.standard.lineWidth,
            colours: colours.map { RGBA(hex: $0)! })
    }
}

/// Everything a worker needs to know about how to draw, besides the workout's series.
///
/// It holds exactly what the picture depends on, because its JSON is hashed into the cache key:
/// a route spec has no heatmap style (re-tuning zones leaves route pictures current), and each
/// theme's spec has only that theme's styles (changing the dark map leaves light pictures current).
public struct PictureSpec: Sendable, Hashable, Codable {
    /// The scales pictures are drawn at (1x, 2x and 3x screens): the one range the configuration,
    /// the control protocol, workctl, the gateway and the renderer all check against.
    public static let scaleRange: ClosedRange<Int> = 1...3
    /// The scales in words, for messages: "1, 2 or 3".
    public static var scaleNames: String {
        let names = scaleRange.map(String.init)
        return names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
    }
    /// The most pixels a side of a drawn picture (points times scale) may have.
    public static let maximumPixelSide = 2048
    /// The most bytes a picture this system draws can have, derived from the largest one: a square
    /// of ``maximumPixelSide`` pixels at 4 bytes a pixel (RGBA, the most either PNG encoder writes;
    /// pictures are RGB but for a see-through theme's), each row behind its filter byte; deflate's worst case over those bytes
    /// (stored blocks, which add 5 bytes per block of at least 5,000 and the zlib framing: 1/64th
    /// bounds both, the bound libpng's writer is given too); and 64 KiB for the signature, the
    /// chunks' framing and the text chunks (the cache key's is 95 bytes). 17,106,976 bytes
    /// (16.3 MiB). Readers refuse a larger object under a picture's name without buffering it
    /// (docs/gateway.md, "Pictures from the store"); `PNGEncoderBoundTests` checks the encoders
    /// against it with incompressible pictures of that size.
    public static let maximumEncodedBytes: Int = {
        let filtered = maximumPixelSide * (maximumPixelSide * 4 + 1)
        return filtered + filtered / 64 + (64 << 10)
    }()
    /// The sizes in points a picture may have at scale 1.
    public static let pointSizeRange: ClosedRange<Int> = 16...maximumPixelSide

    public var kind: PictureKind
    public var theme: Theme
    /// Size in points; the PNG is `width * scale` by `height * scale` pixels.
    public var width: Int
    public var height: Int
    public var scale: Int
    public var style: RouteStyle
    /// Heatmaps only; `nil` in a route spec.
    public var heatmap: HeatmapStyle?
    /// Pace and elevation pictures only (``PictureKindDeclaration/ramp``); `nil` in the others' specs.
    public var ramp: RampStyle?
    /// A share card's words (``PictureKind/isCard``), in the owner's units; `nil` in the others' specs.
    public var card: ShareCardText?
    /// The basemap's style for this theme; `nil` when no tileset is configured (plain background).
    public var map: MapStyle?
    /// The identity of the basemap the picture is drawn on (``BasemapIdentity``: the tilesets'
    /// content and the attribution font); workers with another basemap are refused.
    public var basemap: String?

    /// - Parameters:
    ///   - heatmap: kept for heatmap specs only.
    ///   - ramp: kept for the kinds coloured along a ramp only (``PictureKindDeclaration/ramp``).
    ///   - card: kept for share cards only (``PictureKind/isCard``).
    ///   - map: kept when a basemap is named and the style's background is opaque.
    public init(
        kind: PictureKind, theme: Theme, width: Int, height: Int, scale: Int, style: RouteStyle, heatmap: HeatmapStyle,
        ramp: RampStyle? = nil, card: ShareCardText? = nil, map: MapStyle? = nil, basemap: String? = nil
    ) {
        self.kind = kind
        self.theme = theme
        self.width = width
        self.height = height
        self.scale = scale
        self.style = style
        self.heatmap = kind.usesHeartRate ? heatmap : nil
        self.ramp = kind.declaration.ramp != nil ? ramp : nil
        self.card = kind.isCard ? card : nil
        // A map's land is opaque: a see-through background's picture is its route and words alone.
        self.map = basemap == nil || style.isSeeThrough ? nil : map
        self.basemap = self.map == nil ? nil : basemap
    }

    public var pixelWidth: Int { width * scale }
    public var pixelHeight: Int { height * scale }
}
