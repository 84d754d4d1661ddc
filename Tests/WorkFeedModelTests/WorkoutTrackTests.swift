import Foundation
import Testing
@testable import WorkFeedModel

/// The track's parts without a coordinator: Google's polyline example, the point bound, and a
/// route made to split badly staying fast (docs/gateway.md, "A workout's track").
@Suite struct WorkoutTrackTests {
    @Test func thePolylineOfGooglesExample() {
        // developers.google.com/maps/documentation/utilities/polylinealgorithm
        let points = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)].map { RoutePoint(latitude: $0.0, longitude: $0.1) }
        #expect(Polyline.encode(points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test func theBoundHoldsAndEveryPieceKeepsItsEnds() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        func point(_ piece: Int, _ index: Int) -> RoutePoint {
            let step = Double(index)
            let latitude: Double = 49.4 + Double(piece) * 0.05 + step * 0.0001
            let longitude: Double = 8.69 + sin(step / 20) * 0.001
            let seconds = Double(piece * 3000 + index)
            return RoutePoint(latitude: latitude, longitude: longitude, elevation: 100 + Double(index % 50), time: start.addingTimeInterval(seconds))
        }
        let pieces: [[RoutePoint]] = (0..<3).map { piece in (0..<2000).map { point(piece, $0) } }
        let track = WorkoutTrack(id: WorkoutID(UUID()), visible: Route(segments: pieces), heartRate: [], hidden: false)
        #expect(track.sourcePoints == 6000 && track.points <= WorkoutTrack.maximumPoints && track.points > 900)
        #expect(track.polylines.count == 3 && track.geometry.coordinates.count == 3)
        for (piece, line) in zip(pieces, track.geometry.coordinates) {
            #expect(line.first == [piece[0].longitude, piece[0].latitude].map { ($0 * 1e6).rounded() / 1e6 })
            #expect(line.last == [piece[1999].longitude, piece[1999].latitude].map { ($0 * 1e6).rounded() / 1e6 })
        }
        #expect(track.elevation.samples.count <= WorkoutTrack.maximumSeriesSamples && track.heartRate.samples.isEmpty)
    }

    @Test func aSpiralOfManyPointsIsSimplifiedQuickly() {
        // Each split of a tightening spiral falls next to an end: Douglas-Peucker's worst case.
        let points = (0..<200_000).map { index in
            let angle = Double(index) / 50
            let radius = 0.05 * Double(200_000 - index) / 200_000
            return RoutePoint(latitude: 35 + radius * sin(angle), longitude: 139 + radius * cos(angle))
        }
        let started = ContinuousClock.now
        let track = WorkoutTrack(id: WorkoutID(UUID()), visible: Route(segments: [points]), heartRate: [], hidden: false)
        #expect(track.points <= WorkoutTrack.maximumPoints && track.sourcePoints == 200_000)
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
