import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

/// The same two-minute ride (Garmin Edge 1000, 2020-06-01) exported as GPX and TCX by Garmin
/// Connect and recorded as FIT by the device must read as the same route.
@Suite struct CrossFormatTests {
    @Test func readsTheSameRideInEveryFormat() throws {
        let gpx = try #require(try WorkoutFileReader.read(contentsOf: Fixture.url("gpx-hr/garmin-connect_ride_2020_short_ns3-hr.gpx")).first)
        let tcx = try #require(try WorkoutFileReader.read(contentsOf: Fixture.url("tcx/garmin-connect_ride_2020_short.tcx")).first)
        let fit = try #require(try WorkoutFileReader.read(contentsOf: Fixture.url("fit/garmin-edge_ride_2020_short.fit")).first)
        #expect([gpx.source, tcx.source, fit.source] == [.gpx, .tcx, .fit])
        #expect([gpx, tcx, fit].allSatisfy { $0.activity == .cycling })

        // GPX and FIT hold each recorded point once; the TCX repeats the last point of each of
        // its five laps at the start of the next, so it has four more.
        let gpxPoints = Array(gpx.route.points)
        let fitPoints = Array(fit.route.points)
        let tcxPoints = Array(tcx.route.points)
        #expect(gpxPoints.count == 96)
        #expect(fitPoints.count == 96)
        #expect(tcxPoints.count == 100)
        #expect(tcx.route.segments.count == 5)
        let tcxWithoutRepeats = tcx.route.segments.enumerated().flatMap { index, segment in index == 0 ? segment : Array(segment.dropFirst()) }
        #expect(tcxWithoutRepeats.count == 96)

        for (name, points) in [("TCX", tcxWithoutRepeats), ("FIT", fitPoints)] {
            for (expected, actual) in zip(gpxPoints, points) {
                #expect(abs(expected.latitude - actual.latitude) < 1e-5, "\(name) latitude")
                #expect(abs(expected.longitude - actual.longitude) < 1e-5, "\(name) longitude")
                #expect(expected.time == actual.time, "\(name) time")
            }
        }
        for points in [tcxPoints, fitPoints] {
            #expect(abs(points[0].latitude - gpxPoints[0].latitude) < 1e-5)
            #expect(abs(points[points.count - 1].longitude - gpxPoints[95].longitude) < 1e-5)
        }
        #expect(gpx.heartRate.map(\.bpm) == fit.heartRate.map(\.bpm))
    }
}
