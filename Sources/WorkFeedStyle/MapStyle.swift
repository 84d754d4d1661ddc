import Foundation

/// A width that grows with the map's zoom: MapLibre's `["interpolate", ["exponential", base],
/// ["zoom"], z0, w0, z1, w1, ...]`, in points (CSS pixels at @1x).
///
/// Below the first stop the first width holds, above the last the last; between two stops the
/// width follows `base^(z - z0)`, so it grows faster at higher zooms, as roads on a web map do.
public struct ZoomWidth: Sendable, Hashable, Codable {
    public var base: Double
    /// Zoom and width pairs, zooms increasing: `[z0, w0, z1, w1, ...]`, as configuration writes them.
    public var stops: [Double]

    public init(base: Double = 1.6, stops: [Double]) {
        self.base = base
        self.stops = stops
    }

    /// Whether the stops are zoom-width pairs with increasing zooms and widths from 0 to 256.
    public var isValid: Bool {
        guard !stops.isEmpty, stops.count % 2 == 0, base.isFinite, base > 0 else { return false }
        var previous = -Double.infinity
        for index in stride(from: 0, to: stops.count, by: 2) {
            let zoom = stops[index]
            let width = stops[index + 1]
            guard zoom.isFinite, zoom > previous, width.isFinite, (0...256).contains(width) else { return false }
            previous = zoom
        }
        return true
    }

    /// The width at `zoom`; 0 for invalid stops.
    public func width(atZoom zoom: Double) -> Double {
        guard isValid else { return 0 }
        if zoom <= stops[0] { return stops[1] }
        var index = 0
        while index + 2 < stops.count {
            let z0 = stops[index]
            let w0 = stops[index + 1]
            let z1 = stops[index + 2]
            let w1 = stops[index + 3]
            if zoom <= z1 {
                let t: Double
                if abs(base - 1) < 1e-9 {
                    t = (zoom - z0) / (z1 - z0)
                } else {
                    t = (pow(base, zoom - z0) - 1) / (pow(base, z1 - z0) - 1)
                }
                return w0 + (w1 - w0) * t
            }
            index += 2
        }
        return stops[stops.count - 1]
    }
}

/// One road class: a fill over a casing. The casing is `casingWidth` wider on each side of the
/// fill and is drawn, for every class, before any fill, so that crossing roads join cleanly.
public struct RoadStyle: Sendable, Hashable, Codable {
    public var fill: RGBA
    public var casing: RGBA
    public var width: ZoomWidth
    public var casingWidth: ZoomWidth

    public init(fill: RGBA, casing: RGBA, width: ZoomWidth, casingWidth: ZoomWidth) {
        self.fill = fill
        self.casing = casing
        self.width = width
        self.casingWidth = casingWidth
    }
}

/// A line without casing (rail, waterways). Its colour's alpha is its opacity.
public struct MapLineStyle: Sendable, Hashable, Codable {
    public var color: RGBA
    public var width: ZoomWidth

    public init(color: RGBA, width: ZoomWidth) {
        self.color = color
        self.width = width
    }
}

/// The road classes the map draws, from the least to the most important: fills are drawn in
/// this order, so a motorway lies over the street that passes under it.
public enum RoadClass: String, Sendable, Hashable, Codable, CaseIterable {
    case path, track, service, minor, tertiary, secondary, primary, trunk, motorway
}

/// The areas the map fills, in drawing order: broad land cover first, then land use, then water
/// and buildings over them.
public enum MapArea: String, Sendable, Hashable, Codable, CaseIterable {
    case farmland, grass, wood, park, residential, industrial, hospital, school, cemetery, sand, pedestrian, pier
    case water, building
}

/// The lines the map strokes without casing: waterways, then (over the roads) rail.
public enum MapLine: String, Sendable, Hashable, Codable, CaseIterable {
    case river, stream, rail
}

/// How one theme draws the basemap under a route: a palette of its own, not an inverted one.
///
/// A style is tables keyed by what the map draws: a colour per ``MapArea``, a ``RoadStyle`` per
/// ``RoadClass``, a ``MapLineStyle`` per ``MapLine``, and a ``MapLabelKindStyle`` per
/// ``MapLabelKind`` (``labels``). Each table has a value for every case (``CaseTable``), so a new
/// area is one case and one entry in each theme's table, never a new stored property.
///
/// The shipped themes' values are the Protomaps basemap's light and dark flavours (CC0,
/// protomaps/basemaps `styles/src/flavors.ts`); widths are in points at the map's zoom (512-point
/// tiles, as MapLibre counts zoom). Colours with alpha below `ff` are drawn at that opacity.
///
/// Its JSON (part of every picture's spec, and so of its cache key) is flat, one key per area,
/// line and road class by its raw value, as it was before the tables: the same style gives the
/// same bytes and the same cache keys.
public struct MapStyle: Sendable, Hashable {
    /// Land wherever a tileset covers the picture; where none does, the route style's plain
    /// background shows instead.
    public var land: RGBA
    public var areas: CaseTable<MapArea, RGBA>
    public var lines: CaseTable<MapLine, MapLineStyle>
    public var roads: CaseTable<RoadClass, RoadStyle>
    /// The attribution's text and the box behind it (its alpha lets the map show through).
    public var attributionText: RGBA
    public var attributionBackground: RGBA
    /// The attribution's font size in points.
    public var attributionSize: Double
    /// The names on the map: places, streets, water, parks and peaks.
    public var labels: MapLabelStyle

    public init(
        land: RGBA, areas: CaseTable<MapArea, RGBA>, lines: CaseTable<MapLine, MapLineStyle>, roads: CaseTable<RoadClass, RoadStyle>,
        attributionText: RGBA, attributionBackground: RGBA, attributionSize: Double, labels: MapLabelStyle
    ) {
        self.land = land
        self.areas = areas
        self.lines = lines
        self.roads = roads
        self.attributionText = attributionText
        self.attributionBackground = attributionBackground
        self.attributionSize = attributionSize
        self.labels = labels
    }

    public subscript(area: MapArea) -> RGBA {
        get { areas[area] }
        set { areas[area] = newValue }
    }

    public subscript(road: RoadClass) -> RoadStyle {
        get { roads[road] }
        set { roads[road] = newValue }
    }

    public subscript(line: MapLine) -> MapLineStyle {
        get { lines[line] }
        set { lines[line] = newValue }
    }
}

extension MapStyle: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let attributionKeys = (text: Key("attributionText"), background: Key("attributionBackground"), size: Key("attributionSize"))

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        land = try c.decode(RGBA.self, forKey: Key("land"))
        areas = try CaseTable { try c.decode(RGBA.self, forKey: Key($0.rawValue)) }
        lines = try CaseTable { try c.decode(MapLineStyle.self, forKey: Key($0.rawValue)) }
        roads = try CaseTable { try c.decode(RoadStyle.self, forKey: Key($0.rawValue)) }
        attributionText = try c.decode(RGBA.self, forKey: Self.attributionKeys.text)
        attributionBackground = try c.decode(RGBA.self, forKey: Self.attributionKeys.background)
        attributionSize = try c.decode(Double.self, forKey: Self.attributionKeys.size)
        labels = try c.decode(MapLabelStyle.self, forKey: Key("labels"))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(land, forKey: Key("land"))
        for (area, colour) in areas.entries { try c.encode(colour, forKey: Key(area.rawValue)) }
        for (line, style) in lines.entries { try c.encode(style, forKey: Key(line.rawValue)) }
        for (road, style) in roads.entries { try c.encode(style, forKey: Key(road.rawValue)) }
        try c.encode(attributionText, forKey: Self.attributionKeys.text)
        try c.encode(attributionBackground, forKey: Self.attributionKeys.background)
        try c.encode(attributionSize, forKey: Self.attributionKeys.size)
        try c.encode(labels, forKey: Key("labels"))
    }
}

extension MapStyle {
    // Protomaps' road widths (base 1.6): highway z6 1.1, z12 1.6, z15 5, z18 15; major z12 1.6,
    // z15 3, z18 13; minor z12.5 0.5, z15 2, z18 11; service z13 0, z18 8; paths z14 0.5, z20 12.
    static let highwayWidth = ZoomWidth(stops: [6, 1.1, 12, 1.6, 15, 5, 18, 15])
    static let majorWidth = ZoomWidth(stops: [12, 1.6, 15, 3, 18, 13])
    static let mediumWidth = ZoomWidth(stops: [12, 1.2, 15, 2.6, 18, 12])
    static let minorWidth = ZoomWidth(stops: [12.5, 0.5, 15, 2, 18, 11])
    static let serviceWidth = ZoomWidth(stops: [13, 0, 18, 8])
    static let pathWidth = ZoomWidth(stops: [14, 0.5, 20, 12])
    static let trackWidth = ZoomWidth(stops: [13, 0, 18, 6])
    // Casings: a hairline at mid zooms that widens as roads do.
    static let majorCasing = ZoomWidth(stops: [10, 0, 12, 0.4, 15, 0.8, 18, 2])
    static let minorCasing = ZoomWidth(stops: [13, 0, 14, 0.4, 18, 1.5])
    static let lineWidths = CaseTable<MapLine, ZoomWidth> { line in
        switch line {
        case .river: ZoomWidth(stops: [9.5, 1, 18, 12])
        case .stream: ZoomWidth(stops: [12, 0.5, 18, 4])
        case .rail: ZoomWidth(stops: [6, 0.15, 18, 9])
        }
    }
    /// Each road class's fill width and casing width, the same in both shipped themes.
    static let roadWidths = CaseTable<RoadClass, (ZoomWidthPair)> { road in
        switch road {
        case .path: ZoomWidthPair(pathWidth, minorCasing)
        case .track: ZoomWidthPair(trackWidth, minorCasing)
        case .service: ZoomWidthPair(serviceWidth, minorCasing)
        case .minor: ZoomWidthPair(minorWidth, minorCasing)
        case .tertiary: ZoomWidthPair(mediumWidth, majorCasing)
        case .secondary, .primary: ZoomWidthPair(majorWidth, majorCasing)
        case .trunk, .motorway: ZoomWidthPair(highwayWidth, majorCasing)
        }
    }

    struct ZoomWidthPair: Sendable, Hashable {
        var width: ZoomWidth
        var casing: ZoomWidth
        init(_ width: ZoomWidth, _ casing: ZoomWidth) {
            self.width = width
            self.casing = casing
        }
    }

    /// A shipped theme's style from its colours, written as `#rrggbb[aa]` (checked by the model's tests).
    static func shipped(
        land: String, areas: [MapArea: String], lines: [MapLine: String], roads: [RoadClass: String], casing: String,
        attribution: (text: String, background: String), labels: MapLabelStyle
    ) -> MapStyle {
        func colour(_ hex: String?) -> RGBA { hex.flatMap { RGBA(hex: $0) } ?? RGBA(red: 255, green: 0, blue: 255) }
        return MapStyle(
            land: colour(land), areas: CaseTable { colour(areas[$0]) },
            lines: CaseTable { MapLineStyle(color: colour(lines[$0]), width: lineWidths[$0]) },
            roads: CaseTable {
                RoadStyle(fill: colour(roads[$0]), casing: colour(casing), width: roadWidths[$0].width, casingWidth: roadWidths[$0].casing)
            },
            attributionText: colour(attribution.text), attributionBackground: colour(attribution.background), attributionSize: 10,
            labels: labels)
    }

    /// Protomaps' light flavour.
    public static let light = shipped(
        land: "#e2dfda",
        areas: [
            .farmland: "#dfe2d3", .grass: "#99d2bb", .wood: "#a0d9a0", .park: "#9cd3b4", .residential: "#dcd9d3",
            .industrial: "#d1dde1", .hospital: "#e4dad9", .school: "#e4ded7", .cemetery: "#9cd3b4", .sand: "#e2e0d7",
            .pedestrian: "#e3e0d4", .pier: "#e0e0e0", .water: "#80deea", .building: "#cccccc80",
        ],
        lines: [.river: "#80deea", .stream: "#80deea", .rail: "#a7b1b380"],
        roads: [
            .path: "#ebebeb", .track: "#ebebeb", .service: "#ebebeb", .minor: "#ffffff", .tertiary: "#ffffff",
            .secondary: "#ffffff", .primary: "#ffffff", .trunk: "#ffffff", .motorway: "#ffffff",
        ],
        casing: "#e0e0e0", attribution: (text: "#3a3a3a", background: "#ffffffb3"), labels: .light)

    /// A dark map after the Protomaps and Apple Maps dark flavours, with more contrast than
    /// Protomaps' own: land stays close to the plain dark background, and what a runner places
    /// themselves by stands out from it: green parks and forests, blue water, buildings, and roads
    /// lighter by class (every road fill at least 1.5:1 against the land, WCAG's contrast ratio).
    public static let dark = shipped(
        land: "#1f2023",
        areas: [
            .farmland: "#23271f", .grass: "#1f3128", .wood: "#1b3826", .park: "#1d3d2b", .residential: "#26272b",
            .industrial: "#2a2b31", .hospital: "#30282a", .school: "#2d2a31", .cemetery: "#1f3529", .sand: "#36332a",
            .pedestrian: "#2c2d31", .pier: "#393a3f", .water: "#1a3550", .building: "#34363c",
        ],
        lines: [.river: "#23476a", .stream: "#23476a", .rail: "#5a5c62"],
        roads: [
            .path: "#46484d", .track: "#46484d", .service: "#4b4d52", .minor: "#55575c", .tertiary: "#5f6166",
            .secondary: "#686a70", .primary: "#74767c", .trunk: "#8a7650", .motorway: "#8a7650",
        ],
        casing: "#141518", attribution: (text: "#c8c8c8", background: "#000000a6"), labels: .dark)
}

/// Defaults shared by the coordinator's and the workers' basemap settings and the renderer.
public enum BasemapDefaults {
    /// The map's font, for names and the attribution: Noto Sans from Debian's fonts-noto-core
    /// (Latin, Greek and Cyrillic).
    public static let fontPath = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    /// Fonts tried, in order, for a name the main font cannot draw whole: the scripts of
    /// fonts-noto-core that place names are most often written in. A name none of them covers
    /// (Chinese, Japanese, Korean: fonts-noto-cjk is not installed) is drawn from its Latin form,
    /// or not at all, never as empty boxes.
    public static let fallbackFontPaths = [
        "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "Georgian", "Armenian", "Ethiopic", "Khmer",
        "Sinhala", "Gujarati", "Gurmukhi", "Kannada", "Malayalam", "Telugu", "Lao", "Myanmar",
    ].map { "/usr/share/fonts/truetype/noto/NotoSans\($0)-Regular.ttf" }
}
