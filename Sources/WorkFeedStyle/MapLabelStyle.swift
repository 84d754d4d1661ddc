/// The kinds of names a map shows, from the tileset's own label layers (OpenMapTiles `place`,
/// `transportation_name`, `water_name`, `waterway`, `park`, `poi`, `mountain_peak`; Protomaps
/// `places`, `roads`, `water`, `pois`), in the order they claim room: a city's name is placed
/// before a street's, and a street's before a park's.
public enum MapLabelKind: String, Sendable, Hashable, Codable, CaseIterable {
    case city, town, village, suburb, neighbourhood, hamlet
    /// Named motorways, trunk, primary, secondary and tertiary roads, along the road.
    case majorRoad = "major_road"
    case peak
    /// Rivers, canals and streams, along the water.
    case river
    /// Lakes, bays and other named water, at the water's label point.
    case water
    /// Residential and service streets, along the street.
    case minorRoad = "minor_road"
    /// Parks, forests and nature reserves.
    case park
    /// Named paths and tracks (trails), along the path.
    case path
}

/// How one kind of name is drawn.
public struct MapLabelKindStyle: Sendable, Hashable, Codable {
    public var kind: MapLabelKind
    /// Whether names of this kind are drawn at all.
    public var show: Bool
    /// The text's size in points (CSS pixels at @1x): drawn at `size * scale` device pixels.
    public var size: Double
    public var color: RGBA
    /// The map zooms (MapLibre's, 512-point tiles) at which names of this kind are drawn.
    public var minZoom: Double
    public var maxZoom: Double

    public init(kind: MapLabelKind, show: Bool = true, size: Double, color: RGBA, minZoom: Double, maxZoom: Double) {
        self.kind = kind
        self.show = show
        self.size = size
        self.color = color
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }
}

/// The names on one theme's map: a table of styles keyed by ``MapLabelKind`` and a halo in the
/// map's own land colour, so that every name reads over roads, parks and water alike.
///
/// Part of the map style, and so of the picture's spec and cache key: changing a size, a colour
/// or which kinds show makes exactly that theme's map pictures stale. Its JSON keeps the kinds as
/// a list in `allCases` order (`kinds`), as it always has.
public struct MapLabelStyle: Sendable, Hashable {
    public var halo: RGBA
    /// The halo's width in points around each letter (at most 2).
    public var haloWidth: Double
    /// One style per ``MapLabelKind``.
    public var kinds: CaseTable<MapLabelKind, MapLabelKindStyle>

    /// - Parameter text: each kind's colour; kinds it lacks take `fallback`.
    public init(halo: RGBA, haloWidth: Double = 1.5, colors text: [MapLabelKind: RGBA], fallback: RGBA) {
        self.halo = halo
        self.haloWidth = haloWidth
        kinds = CaseTable { kind in
            let (size, zooms) = Self.defaults(kind)
            return MapLabelKindStyle(kind: kind, size: size, color: text[kind] ?? fallback, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        }
    }

    /// The style of `kind`.
    public subscript(kind: MapLabelKind) -> MapLabelKindStyle {
        get { kinds[kind] }
        set {
            var value = newValue
            value.kind = kind
            kinds[kind] = value
        }
    }

    /// Sizes and zooms after the OpenMapTiles styles (OSM Bright, Positron): a city is named
    /// until the picture is inside it, a street only once its name fits along it.
    static func defaults(_ kind: MapLabelKind) -> (size: Double, zooms: ClosedRange<Double>) {
        switch kind {
        case .city: (15, 0...14.5)
        case .town: (14, 8...15.5)
        case .village: (12.5, 10...16.5)
        case .suburb: (12, 11.5...16.5)
        case .neighbourhood: (11, 13.5...18)
        case .hamlet: (11, 13...18)
        case .majorRoad: (11, 12.5...22)
        case .peak: (11, 12...22)
        case .river: (11.5, 12...22)
        case .water: (12, 11...22)
        case .minorRoad: (11, 14.5...22)
        case .park: (11, 13.5...22)
        case .path: (10.5, 15.5...22)
        }
    }

    /// Dark text on the light map, its halo the light map's land.
    public static let light = MapLabelStyle(
        halo: RGBA(hex: "#f4f2ee")!,
        colors: [
            .city: RGBA(hex: "#262626")!, .town: RGBA(hex: "#2e2e2e")!, .village: RGBA(hex: "#3a3a3a")!,
            .suburb: RGBA(hex: "#5a5650")!, .neighbourhood: RGBA(hex: "#6a655e")!, .hamlet: RGBA(hex: "#5a5650")!,
            .peak: RGBA(hex: "#6b5a3e")!, .river: RGBA(hex: "#1f6f8b")!, .water: RGBA(hex: "#1f6f8b")!,
            .park: RGBA(hex: "#2f6b45")!,
        ],
        fallback: RGBA(hex: "#555555")!)

    /// Light text on the dark map, its halo the dark map's land.
    public static let dark = MapLabelStyle(
        halo: RGBA(hex: "#1d1e21")!,
        colors: [
            .city: RGBA(hex: "#f0f0f0")!, .town: RGBA(hex: "#e6e6e6")!, .village: RGBA(hex: "#d8d8d8")!,
            .suburb: RGBA(hex: "#b4b0a8")!, .neighbourhood: RGBA(hex: "#a29e96")!, .hamlet: RGBA(hex: "#b4b0a8")!,
            .peak: RGBA(hex: "#d2bc8e")!, .river: RGBA(hex: "#7fb6e0")!, .water: RGBA(hex: "#7fb6e0")!,
            .park: RGBA(hex: "#86c79c")!,
        ],
        fallback: RGBA(hex: "#b9bbc0")!)
}

extension MapLabelStyle: Codable {
    private enum CodingKeys: String, CodingKey { case halo, haloWidth, kinds }

    /// A kind the list lacks (a spec from a version with fewer kinds) is not drawn.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        halo = try c.decode(RGBA.self, forKey: .halo)
        haloWidth = try c.decode(Double.self, forKey: .haloWidth)
        let list = try c.decode([MapLabelKindStyle].self, forKey: .kinds)
        let halo = halo
        kinds = CaseTable { kind in
            list.first { $0.kind == kind } ?? MapLabelKindStyle(kind: kind, show: false, size: 0, color: halo, minZoom: 0, maxZoom: 0)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(halo, forKey: .halo)
        try c.encode(haloWidth, forKey: .haloWidth)
        try c.encode(kinds.entries.map(\.value), forKey: .kinds)
    }
}
