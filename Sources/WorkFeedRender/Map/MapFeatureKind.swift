import WorkFeedModel

/// The internal set of map features every tile schema maps onto, in drawing order: areas first
/// (broad cover, land use, water, buildings), then waterways, then roads by class, then rail.
///
/// Raw values index the per-kind geometry arrays of a ``MapTile`` and a ``MapScene``.
enum MapFeatureKind: Int, CaseIterable {
    // Areas, filled.
    case farmland, grass, wood, park, residential, industrial, hospital, school, cemetery, sand, pedestrian, pier
    case water, building
    // Lines.
    case river, stream
    case path, track, service, minor, tertiary, secondary, primary, trunk, motorway
    case rail

    static let count = allCases.count

    init(area: MapArea) {
        switch area {
        case .farmland: self = .farmland
        case .grass: self = .grass
        case .wood: self = .wood
        case .park: self = .park
        case .residential: self = .residential
        case .industrial: self = .industrial
        case .hospital: self = .hospital
        case .school: self = .school
        case .cemetery: self = .cemetery
        case .sand: self = .sand
        case .pedestrian: self = .pedestrian
        case .pier: self = .pier
        case .water: self = .water
        case .building: self = .building
        }
    }

    init(road: RoadClass) {
        switch road {
        case .path: self = .path
        case .track: self = .track
        case .service: self = .service
        case .minor: self = .minor
        case .tertiary: self = .tertiary
        case .secondary: self = .secondary
        case .primary: self = .primary
        case .trunk: self = .trunk
        case .motorway: self = .motorway
        }
    }

    /// Whether features of this kind are polygons to fill (the rest are lines to stroke).
    var isArea: Bool { rawValue <= MapFeatureKind.building.rawValue }

    var area: MapArea? { isArea ? MapArea.allCases[rawValue] : nil }

    var road: RoadClass? {
        guard rawValue >= MapFeatureKind.path.rawValue, rawValue <= MapFeatureKind.motorway.rawValue else { return nil }
        return RoadClass.allCases[rawValue - MapFeatureKind.path.rawValue]
    }
}
