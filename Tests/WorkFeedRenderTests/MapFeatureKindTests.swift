import Testing
import WorkFeedModel

@testable import WorkFeedRender
import WorkFeedStyle

/// The map's internal feature kinds and the style's tables agree entry by entry, whatever the
/// order of the cases on either side.
@Suite struct MapFeatureKindTests {
    @Test func everyAreaLineAndRoadHasItsFeatureKindAndBack() {
        for area in MapArea.allCases {
            let kind = MapFeatureKind(area: area)
            #expect(kind.area == area && kind.isArea && kind.road == nil, "\(area)")
        }
        for road in RoadClass.allCases {
            let kind = MapFeatureKind(road: road)
            #expect(kind.road == road && !kind.isArea && kind.area == nil, "\(road)")
        }
        for line in MapLine.allCases {
            let kind = MapFeatureKind(line: line)
            #expect(kind.entry == .line(line) && !kind.isArea, "\(line)")
        }
        // Each feature kind is exactly one style entry, and each entry one feature kind.
        #expect(MapFeatureKind.allCases.count == MapArea.allCases.count + RoadClass.allCases.count + MapLine.allCases.count)
        for kind in MapFeatureKind.allCases {
            switch kind.entry {
            case .area(let area): #expect(MapFeatureKind(area: area) == kind)
            case .line(let line): #expect(MapFeatureKind(line: line) == kind)
            case .road(let road): #expect(MapFeatureKind(road: road) == kind)
            }
        }
    }
}
