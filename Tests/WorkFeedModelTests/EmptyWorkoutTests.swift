import Foundation
import Testing
import WorkFeedModel

/// The rule of docs/import.md, "Nothing to show": a track or a figure, else refused with a code.
@Suite struct EmptyWorkoutTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func point(_ latitude: Double, _ seconds: Double = 0) -> RoutePoint {
        RoutePoint(latitude: latitude, longitude: 8.69, elevation: nil, time: start.addingTimeInterval(seconds))
    }

    @Test func aTrackOrAFigureIsSomethingToShow() {
        let two = ImportedWorkout(source: .gpx, route: Route(segments: [[point(49.41), point(49.42, 10)]]), origin: "two.gpx")
        #expect(two.emptiness == nil)
        let heartRate = ImportedWorkout(source: .gpx, heartRate: [HeartRateSample(time: start, bpm: 120)], origin: "hr.gpx")
        #expect(heartRate.emptiness == nil)
        let totals = ImportedWorkout(source: .tcx, origin: "swim.tcx", device: DeviceSummary(source: "TCX laps", distance: 1500, duration: 1530))
        #expect(totals.emptiness == nil)
        let health = ImportedWorkout(source: .appleHealth, start: start, end: start.addingTimeInterval(1200), origin: "export.xml")
        #expect(health.emptiness == nil)
    }

    @Test func noTrackAndNoFigureIsRefusedWithItsCode() throws {
        // Waypoints' times are not figures: a GPX's start and end alone show nothing.
        let waypoints = ImportedWorkout(source: .gpx, start: start, end: start.addingTimeInterval(600), origin: "wpt.gpx")
        #expect(waypoints.emptiness == EmptyWorkout(.noPoints, origin: "wpt.gpx"))
        let one = ImportedWorkout(source: .gpx, route: Route(segments: [[point(49.41)]]), origin: "one.gpx")
        #expect(one.emptiness?.code == .onePoint)
        // A second point without a valid position is no line either; zeros are no totals.
        let invalid = ImportedWorkout(
            source: .tcx, route: Route(segments: [[point(49.41), point(.nan, 5)]]),
            origin: "zero.tcx", device: DeviceSummary(source: "TCX laps", distance: 0, duration: 0, calories: 0))
        #expect(invalid.emptiness?.code == .onePoint)
        #expect(throws: EmptyWorkout(.onePoint, origin: "one.gpx")) { try one.checkHasContent() }
        #expect(one.emptiness?.description.hasPrefix("one.gpx: no track and no figures: the track has one point") == true)
    }
}
