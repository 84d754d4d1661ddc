import WorkFeedTiles

/// Maps the layers and classes of the two vector tile schemas WorkFeed styles onto
/// ``MapFeatureKind``:
///
/// - OpenMapTiles (what Debian's tilemaker, Planetiler and MapTiler produce): layers
///   `landcover`, `landuse`, `park`, `water`, `waterway`, `building`, `transportation`, with the
///   feature's `class` (and `subclass`, `brunnel`);
/// - the Protomaps basemap (the Protomaps planet builds): layers `landcover`, `landuse`, `water`,
///   `buildings`, `roads`, `transit`, with `kind` and `kind_detail` (and `is_tunnel`).
///
/// Labels, places, points of interest and boundaries are not drawn. Features in tunnels are
/// left out: a subway line or a road under a hill drawn on the surface would mislead.
enum TileSchema {
    /// Per layer, what each of its features is: decided once per value of the layer's value table,
    /// so that classifying a feature is a lookup, not a string comparison.
    struct LayerClassifier {
        private let classKey: UInt32?
        private let detailKey: UInt32?
        private let tunnelKeys: [UInt32]
        private let byClass: [MapFeatureKind?]
        private let byDetail: [MapFeatureKind?]
        /// For layers whose features are all one kind whatever their tags (water, buildings).
        private let fixed: MapFeatureKind?
        private let tunnelValues: [Bool]
        private let lineFallback: MapFeatureKind?

        /// `nil` for layers that are not drawn.
        init?(layer: VectorTileLayer) {
            func key(_ name: String) -> UInt32? {
                layer.keys.firstIndex(of: name).map { UInt32(truncatingIfNeeded: $0) }
            }
            func table(_ classify: (String) -> MapFeatureKind?) -> [MapFeatureKind?] {
                layer.values.map { value in
                    if case .string(let text) = value { return classify(text) }
                    return nil
                }
            }
            tunnelValues = layer.values.map(TileSchema.isTunnel)
            var lineFallback: MapFeatureKind? = nil
            switch layer.name {
            // OpenMapTiles
            case "landcover":
                classKey = key("class") ?? key("kind")
                detailKey = key("subclass")
                tunnelKeys = []
                byClass = table(TileSchema.landcover)
                byDetail = table(TileSchema.landcoverDetail)
                fixed = nil
            case "landuse":
                classKey = key("class") ?? key("kind")
                detailKey = nil
                tunnelKeys = []
                byClass = table(TileSchema.landuse)
                byDetail = []
                fixed = nil
            case "park":
                classKey = nil
                detailKey = nil
                tunnelKeys = []
                byClass = []
                byDetail = []
                fixed = .park
            case "water":
                // Protomaps keeps rivers and streams as lines in its water layer.
                classKey = key("kind") ?? key("class")
                detailKey = nil
                tunnelKeys = [key("brunnel"), key("is_tunnel")].compactMap { $0 }
                byClass = table(TileSchema.waterway)
                byDetail = []
                fixed = .water
                lineFallback = .stream
            case "waterway":
                classKey = key("class")
                detailKey = nil
                tunnelKeys = [key("brunnel")].compactMap { $0 }
                byClass = table(TileSchema.waterway)
                byDetail = []
                fixed = nil
                lineFallback = .stream
            case "building", "buildings":
                classKey = nil
                detailKey = nil
                tunnelKeys = []
                byClass = []
                byDetail = []
                fixed = .building
            case "transportation":
                classKey = key("class")
                detailKey = key("subclass")
                tunnelKeys = [key("brunnel")].compactMap { $0 }
                byClass = table(TileSchema.transportationClass)
                byDetail = table(TileSchema.transportationSubclass)
                fixed = nil
            // Protomaps
            case "roads":
                classKey = key("kind")
                detailKey = key("kind_detail")
                tunnelKeys = [key("is_tunnel")].compactMap { $0 }
                byClass = table(TileSchema.protomapsRoadKind)
                byDetail = table(TileSchema.protomapsRoadDetail)
                fixed = nil
            case "transit":
                classKey = key("kind")
                detailKey = nil
                tunnelKeys = [key("is_tunnel")].compactMap { $0 }
                byClass = table { $0 == "rail" ? .rail : nil }
                byDetail = []
                fixed = nil
            default:
                return nil
            }
            self.lineFallback = lineFallback
        }

        /// What `feature` is, or `nil` when it is not drawn.
        func kind(of feature: VectorTileFeature) -> MapFeatureKind? {
            var classValue: MapFeatureKind?? = nil
            var detailValue: MapFeatureKind?? = nil
            let tags = feature.tags
            var index = 0
            while index + 1 < tags.count {
                let key = tags[index]
                let value = Int(tags[index + 1])
                index += 2
                if key == classKey, value < byClass.count {
                    classValue = .some(byClass[value])
                } else if key == detailKey, value < byDetail.count {
                    detailValue = .some(byDetail[value])
                } else if tunnelKeys.contains(key), value < tunnelValues.count, tunnelValues[value] {
                    return nil
                }
            }
            let isArea = feature.type == .polygon
            let isLine = feature.type == .lineString
            // A subclass (OpenMapTiles) or kind_detail (Protomaps) is more precise than the class.
            let decided = (detailValue ?? nil) ?? (classValue ?? nil)
            if let decided, decided.isArea == isArea, isArea || isLine { return decided }
            if isArea {
                // Pedestrian areas come as polygons in the road layers; riverbanks as polygons of
                // class river in the water layer.
                if let decided, decided == .path || decided == .minor || decided == .service { return .pedestrian }
                if let fixed, fixed.isArea { return fixed }
                return nil
            }
            if isLine, decided?.isArea ?? true { return lineFallback }
            return nil
        }
    }

    /// Whether a `brunnel` (OpenMapTiles) or `is_tunnel` (Protomaps) value says "in a tunnel".
    static func isTunnel(_ value: VectorTileValue) -> Bool {
        switch value {
        case .string(let text): text == "tunnel" || text == "true" || text == "yes"
        case .bool(let flag): flag
        case .int(let n), .sint(let n): n != 0
        case .uint(let n): n != 0
        default: false
        }
    }

    // MARK: OpenMapTiles

    static func landcover(_ value: String) -> MapFeatureKind? {
        switch value {
        case "wood", "forest": .wood
        case "grass", "grassland", "scrub", "wetland", "meadow": .grass
        case "farmland": .farmland
        case "sand", "beach", "barren": .sand
        default: nil
        }
    }

    static func landcoverDetail(_ value: String) -> MapFeatureKind? {
        switch value {
        case "park", "garden", "golf_course", "recreation_ground", "village_green", "dog_park": .park
        case "forest", "wood": .wood
        case "allotments", "orchard", "vineyard", "farmland", "farmyard", "plant_nursery": .farmland
        case "beach", "sand": .sand
        default: nil
        }
    }

    static func landuse(_ value: String) -> MapFeatureKind? {
        switch value {
        case "residential", "suburb", "quarter", "neighbourhood": .residential
        case "industrial", "commercial", "retail", "railway", "garages", "quarry", "military", "naval_base", "brownfield",
            "landfill", "construction", "bus_station", "aerodrome", "airfield":
            .industrial
        case "cemetery", "grave_yard": .cemetery
        case "hospital", "clinic": .hospital
        case "school", "university", "kindergarten", "college", "library": .school
        case "park", "stadium", "pitch", "playground", "theme_park", "zoo", "garden", "golf_course", "nature_reserve",
            "national_park", "protected_area", "dog_park", "recreation_ground":
            .park
        case "forest", "wood": .wood
        case "grass", "grassland", "meadow", "scrub", "village_green", "allotments": .grass
        case "farmland", "farmyard", "orchard", "vineyard": .farmland
        case "beach", "sand": .sand
        case "pedestrian", "platform": .pedestrian
        case "pier": .pier
        default: nil
        }
    }

    static func waterway(_ value: String) -> MapFeatureKind? {
        switch value {
        case "river", "canal": .river
        case "stream", "drain", "ditch": .stream
        default: .water
        }
    }

    static func transportationClass(_ value: String) -> MapFeatureKind? {
        switch value {
        case "motorway": .motorway
        case "trunk": .trunk
        case "primary": .primary
        case "secondary": .secondary
        case "tertiary": .tertiary
        case "minor", "raceway", "busway": .minor
        case "service": .service
        case "track": .track
        case "path", "pedestrian": .path
        case "rail", "transit": .rail
        case "pier": .pier
        default: nil
        }
    }

    /// OpenMapTiles subclasses that say more than the class: only the rail ones do.
    static func transportationSubclass(_ value: String) -> MapFeatureKind? {
        switch value {
        case "rail", "light_rail", "narrow_gauge", "tram", "monorail", "funicular", "preserved": .rail
        case "subway": nil
        default: nil
        }
    }

    // MARK: Protomaps

    static func protomapsRoadKind(_ value: String) -> MapFeatureKind? {
        switch value {
        case "highway": .motorway
        case "major_road": .primary
        case "medium_road": .tertiary
        case "minor_road": .minor
        case "path": .path
        case "other": .service
        case "rail": .rail
        default: nil
        }
    }

    static func protomapsRoadDetail(_ value: String) -> MapFeatureKind? {
        switch value {
        case "motorway", "motorway_link": .motorway
        case "trunk", "trunk_link": .trunk
        case "primary", "primary_link": .primary
        case "secondary", "secondary_link": .secondary
        case "tertiary", "tertiary_link": .tertiary
        case "residential", "unclassified", "living_street", "road": .minor
        case "service": .service
        case "track": .track
        case "footway", "path", "cycleway", "steps", "pedestrian", "bridleway", "corridor": .path
        default: nil
        }
    }
}
