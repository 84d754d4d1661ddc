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

/// How one theme draws the basemap under a route: a palette of its own, not an inverted one.
///
/// The defaults are the Protomaps basemap's light and dark flavours (CC0, protomaps/basemaps
/// `styles/src/flavors.ts`); widths are in points at the map's zoom (512-point tiles, as MapLibre
/// counts zoom). Colours with alpha below `ff` are drawn at that opacity.
public struct MapStyle: Sendable, Hashable, Codable {
    /// Land wherever a tileset covers the picture; where none does, the route style's plain
    /// background shows instead.
    public var land: RGBA
    public var farmland: RGBA
    public var grass: RGBA
    public var wood: RGBA
    public var park: RGBA
    public var residential: RGBA
    public var industrial: RGBA
    public var hospital: RGBA
    public var school: RGBA
    public var cemetery: RGBA
    public var sand: RGBA
    public var pedestrian: RGBA
    public var pier: RGBA
    public var water: RGBA
    public var building: RGBA
    public var river: MapLineStyle
    public var stream: MapLineStyle
    public var path: RoadStyle
    public var track: RoadStyle
    public var service: RoadStyle
    public var minor: RoadStyle
    public var tertiary: RoadStyle
    public var secondary: RoadStyle
    public var primary: RoadStyle
    public var trunk: RoadStyle
    public var motorway: RoadStyle
    public var rail: MapLineStyle
    /// The attribution's text and the box behind it (its alpha lets the map show through).
    public var attributionText: RGBA
    public var attributionBackground: RGBA
    /// The attribution's font size in points.
    public var attributionSize: Double
    /// The names on the map: places, streets, water, parks and peaks.
    public var labels: MapLabelStyle

    public init(
        land: RGBA, farmland: RGBA, grass: RGBA, wood: RGBA, park: RGBA, residential: RGBA, industrial: RGBA,
        hospital: RGBA, school: RGBA, cemetery: RGBA, sand: RGBA, pedestrian: RGBA, pier: RGBA, water: RGBA,
        building: RGBA, river: MapLineStyle, stream: MapLineStyle, path: RoadStyle, track: RoadStyle,
        service: RoadStyle, minor: RoadStyle, tertiary: RoadStyle, secondary: RoadStyle, primary: RoadStyle,
        trunk: RoadStyle, motorway: RoadStyle, rail: MapLineStyle, attributionText: RGBA,
        attributionBackground: RGBA, attributionSize: Double, labels: MapLabelStyle
    ) {
        self.land = land
        self.farmland = farmland
        self.grass = grass
        self.wood = wood
        self.park = park
        self.residential = residential
        self.industrial = industrial
        self.hospital = hospital
        self.school = school
        self.cemetery = cemetery
        self.sand = sand
        self.pedestrian = pedestrian
        self.pier = pier
        self.water = water
        self.building = building
        self.river = river
        self.stream = stream
        self.path = path
        self.track = track
        self.service = service
        self.minor = minor
        self.tertiary = tertiary
        self.secondary = secondary
        self.primary = primary
        self.trunk = trunk
        self.motorway = motorway
        self.rail = rail
        self.attributionText = attributionText
        self.attributionBackground = attributionBackground
        self.attributionSize = attributionSize
        self.labels = labels
    }

    public subscript(area: MapArea) -> RGBA {
        get {
            switch area {
            case .farmland: farmland
            case .grass: grass
            case .wood: wood
            case .park: park
            case .residential: residential
            case .industrial: industrial
            case .hospital: hospital
            case .school: school
            case .cemetery: cemetery
            case .sand: sand
            case .pedestrian: pedestrian
            case .pier: pier
            case .water: water
            case .building: building
            }
        }
        set {
            switch area {
            case .farmland: farmland = newValue
            case .grass: grass = newValue
            case .wood: wood = newValue
            case .park: park = newValue
            case .residential: residential = newValue
            case .industrial: industrial = newValue
            case .hospital: hospital = newValue
            case .school: school = newValue
            case .cemetery: cemetery = newValue
            case .sand: sand = newValue
            case .pedestrian: pedestrian = newValue
            case .pier: pier = newValue
            case .water: water = newValue
            case .building: building = newValue
            }
        }
    }

    public subscript(road: RoadClass) -> RoadStyle {
        get {
            switch road {
            case .path: path
            case .track: track
            case .service: service
            case .minor: minor
            case .tertiary: tertiary
            case .secondary: secondary
            case .primary: primary
            case .trunk: trunk
            case .motorway: motorway
            }
        }
        set {
            switch road {
            case .path: path = newValue
            case .track: track = newValue
            case .service: service = newValue
            case .minor: minor = newValue
            case .tertiary: tertiary = newValue
            case .secondary: secondary = newValue
            case .primary: primary = newValue
            case .trunk: trunk = newValue
            case .motorway: motorway = newValue
            }
        }
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
    static let railWidth = ZoomWidth(stops: [6, 0.15, 18, 9])
    static let riverWidth = ZoomWidth(stops: [9.5, 1, 18, 12])
    static let streamWidth = ZoomWidth(stops: [12, 0.5, 18, 4])

    /// Protomaps' light flavour.
    public static let light: MapStyle = {
        let white = RGBA(hex: "#ffffff")!
        let paths = RGBA(hex: "#ebebeb")!
        let casing = RGBA(hex: "#e0e0e0")!
        func road(_ fill: RGBA, _ width: ZoomWidth, _ casingWidth: ZoomWidth) -> RoadStyle {
            RoadStyle(fill: fill, casing: casing, width: width, casingWidth: casingWidth)
        }
        return MapStyle(
            land: RGBA(hex: "#e2dfda")!, farmland: RGBA(hex: "#dfe2d3")!, grass: RGBA(hex: "#99d2bb")!,
            wood: RGBA(hex: "#a0d9a0")!, park: RGBA(hex: "#9cd3b4")!, residential: RGBA(hex: "#dcd9d3")!,
            industrial: RGBA(hex: "#d1dde1")!, hospital: RGBA(hex: "#e4dad9")!, school: RGBA(hex: "#e4ded7")!,
            cemetery: RGBA(hex: "#9cd3b4")!, sand: RGBA(hex: "#e2e0d7")!, pedestrian: RGBA(hex: "#e3e0d4")!,
            pier: RGBA(hex: "#e0e0e0")!, water: RGBA(hex: "#80deea")!, building: RGBA(hex: "#cccccc80")!,
            river: MapLineStyle(color: RGBA(hex: "#80deea")!, width: riverWidth),
            stream: MapLineStyle(color: RGBA(hex: "#80deea")!, width: streamWidth),
            path: road(paths, pathWidth, minorCasing), track: road(paths, trackWidth, minorCasing),
            service: road(paths, serviceWidth, minorCasing), minor: road(white, minorWidth, minorCasing),
            tertiary: road(white, mediumWidth, majorCasing), secondary: road(white, majorWidth, majorCasing),
            primary: road(white, majorWidth, majorCasing), trunk: road(white, highwayWidth, majorCasing),
            motorway: road(white, highwayWidth, majorCasing),
            rail: MapLineStyle(color: RGBA(hex: "#a7b1b380")!, width: railWidth),
            attributionText: RGBA(hex: "#3a3a3a")!, attributionBackground: RGBA(hex: "#ffffffb3")!, attributionSize: 10,
            labels: .light)
    }()

    /// A dark map after the Protomaps and Apple Maps dark flavours, with more contrast than
    /// Protomaps' own: land stays close to the plain dark background, and what a runner places
    /// themselves by stands out from it: green parks and forests, blue water, buildings, and roads
    /// lighter by class (every road fill at least 1.5:1 against the land, WCAG's contrast ratio).
    public static let dark: MapStyle = {
        let casing = RGBA(hex: "#141518")!
        func road(_ fill: String, _ width: ZoomWidth, _ casingWidth: ZoomWidth) -> RoadStyle {
            RoadStyle(fill: RGBA(hex: fill)!, casing: casing, width: width, casingWidth: casingWidth)
        }
        return MapStyle(
            land: RGBA(hex: "#1f2023")!, farmland: RGBA(hex: "#23271f")!, grass: RGBA(hex: "#1f3128")!,
            wood: RGBA(hex: "#1b3826")!, park: RGBA(hex: "#1d3d2b")!, residential: RGBA(hex: "#26272b")!,
            industrial: RGBA(hex: "#2a2b31")!, hospital: RGBA(hex: "#30282a")!, school: RGBA(hex: "#2d2a31")!,
            cemetery: RGBA(hex: "#1f3529")!, sand: RGBA(hex: "#36332a")!, pedestrian: RGBA(hex: "#2c2d31")!,
            pier: RGBA(hex: "#393a3f")!, water: RGBA(hex: "#1a3550")!, building: RGBA(hex: "#34363c")!,
            river: MapLineStyle(color: RGBA(hex: "#23476a")!, width: riverWidth),
            stream: MapLineStyle(color: RGBA(hex: "#23476a")!, width: streamWidth),
            path: road("#46484d", pathWidth, minorCasing), track: road("#46484d", trackWidth, minorCasing),
            service: road("#4b4d52", serviceWidth, minorCasing), minor: road("#55575c", minorWidth, minorCasing),
            tertiary: road("#5f6166", mediumWidth, majorCasing), secondary: road("#686a70", majorWidth, majorCasing),
            primary: road("#74767c", majorWidth, majorCasing), trunk: road("#8a7650", highwayWidth, majorCasing),
            motorway: road("#8a7650", highwayWidth, majorCasing),
            rail: MapLineStyle(color: RGBA(hex: "#5a5c62")!, width: railWidth),
            attributionText: RGBA(hex: "#c8c8c8")!, attributionBackground: RGBA(hex: "#000000a6")!, attributionSize: 10,
            labels: .dark)
    }()
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
