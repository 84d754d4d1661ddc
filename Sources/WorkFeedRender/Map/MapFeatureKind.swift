import WorkFeedModel
import WorkFeedStyle

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

    init(line: MapLine) {
        switch line {
        case .river: self = .river
        case .stream: self = .stream
        case .rail: self = .rail
        }
    }

    /// What a feature of this kind is in a ``MapStyle``'s tables: an area (filled), a line or a
    /// road (stroked). Said case by case, so that it never depends on the order of the cases here
    /// or in ``MapArea``, ``MapLine`` and ``RoadClass``.
    enum StyleEntry: Equatable {
        case area(MapArea)
        case line(MapLine)
        case road(RoadClass)
    }

    var entry: StyleEntry {
        switch self {
        case .farmland: .area(.farmland)
        case .grass: .area(.grass)
        case .wood: .area(.wood)
        case .park: .area(.park)
        case .residential: .area(.residential)
        case .industrial: .area(.industrial)
        case .hospital: .area(.hospital)
        case .school: .area(.school)
        case .cemetery: .area(.cemetery)
        case .sand: .area(.sand)
        case .pedestrian: .area(.pedestrian)
        case .pier: .area(.pier)
        case .water: .area(.water)
        case .building: .area(.building)
        case .river: .line(.river)
        case .stream: .line(.stream)
        case .rail: .line(.rail)
        case .path: .road(.path)
        case .track: .road(.track)
        case .service: .road(.service)
        case .minor: .road(.minor)
        case .tertiary: .road(.tertiary)
        case .secondary: .road(.secondary)
        case .primary: .road(.primary)
        case .trunk: .road(.trunk)
        case .motorway: .road(.motorway)
        }
    }

    /// Whether features of this kind are polygons to fill (the rest are lines to stroke).
    var isArea: Bool { area != nil }

    var area: MapArea? {
        guard case .area(let area) = entry else { return nil }
        return area
    }

    var road: RoadClass? {
        guard case .road(let road) = entry else { return nil }
        return road
    }
}
