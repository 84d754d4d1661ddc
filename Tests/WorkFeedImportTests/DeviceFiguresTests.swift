import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

/// Issue 12, finding 4 (and 7): the feed shows the device's own summary figures where the file has
/// them. Expected values were read apart from these readers: FIT `session` fields with a separate
/// Python FIT walker, TCX lap totals with Python's `xml.etree`, Apple Health attributes by hand.
@Suite struct DeviceFiguresTests {
    private func one(_ path: String) throws -> ImportedWorkout {
        let batch = WorkoutFileReader.readAll(contentsOf: try Fixture.url(path))
        #expect(batch.errors.isEmpty, "\(batch.errors)")
        return try #require(batch.workouts.first)
    }

    /// Finding 4: the FIT copy of the 2020 ride drops a 246 m jump made during a timer pause; the
    /// device's session says 668.19 m.
    @Test func theFITSessionGivesTheDevicesDistance() throws {
        let workout = try one("fit/garmin-edge_ride_2020_short.fit")
        let device = try #require(workout.device)
        #expect(device.source == "FIT session")
        #expect(device.distance == 668.19)
        #expect(device.duration == 93.7)
        #expect(device.calories == 12)
        #expect(device.heartRateAverage == 150 && device.heartRateMax == 156)
        let summary = WorkoutSummary(
            route: workout.route, heartRate: workout.heartRate, start: workout.start, end: workout.end, device: workout.device)
        #expect(summary.distance == 668.19)
        // The track alone gives the shorter distance the feed used to show.
        let track = WorkoutSummary(route: workout.route, heartRate: workout.heartRate)
        #expect((652...654).contains(track.distance.rounded()))
    }

    @Test(
        arguments: [
            ("fit/coros-pace2_ride_misaligned-fields.fit", 32145.76, 11287.0, 1636.0, nil, 168.0),
            ("fit/garmin-edge820_ride_hr.fit", 457.12, 64.524, 8, 116, 121),
            ("fit/garmin-fenix2_run_hr_4laps.fit", 9008.22, 2832, 516, nil, nil),
            ("fit/garmin-fenix5_run_hr.fit", 157.56, 56.887, 5, 90, 112),
            ("fit/garmin_indoor-trainer_no-gps_hr.fit", 0, 2261.85, 379, 148, 176),
            ("fit/slither_garmin_run_hr.fit", 7864.22, 3087.19, 710, 158, 175),
            ("fit/wahoo-elemnt_ride_hr_long.fit", 78940.55, 13471, 1724, 124, 170),
        ] as [(String, Double, Double, Double?, Double?, Double?)])
    func everyFITSessionIsRead(path: String, distance: Double, duration: Double, calories: Double?, average: Double?, maximum: Double?) throws {
        let device = try #require(try one(path).device)
        #expect(device.distance == distance)
        #expect(device.duration == duration)
        #expect(device.calories == calories)
        #expect(device.heartRateAverage == average)
        #expect(device.heartRateMax == maximum)
    }

    @Test func tcxLapsAddUp() throws {
        let run = try #require(try one("tcx/garmin-forerunner410_run_2012_hr_3laps.tcx").device)
        #expect(run.source == "TCX laps")
        #expect(abs((run.distance ?? 0) - 4689.243) < 0.001)
        #expect(abs((run.duration ?? 0) - 1992.78) < 0.001)
        #expect(run.calories == 379)
        #expect(run.heartRateMax == 189)
        // The laps' averages weighted by their time.
        #expect(abs((run.heartRateAverage ?? 0) - 160.244) < 0.001)
        // The TCX copy of the 2020 ride agrees with the FIT session.
        #expect(abs((try one("tcx/garmin-connect_ride_2020_short.tcx").device?.distance ?? 0) - 668.19) < 1e-9)
        // A pool swim has no positions, but the watch counted its 1500 m.
        #expect(try one("tcx/garmin-vivoactive-hr_pool-swim_no-positions.tcx").device?.distance == 1500)
    }

    /// Finding 7, second half: heart rate only in a workout's `WorkoutStatistics` is shown; the
    /// workout's totals are the device's figures.
    @Test func appleHealthTotalsAndStatistics() throws {
        let dogsheep = try #require(try one("apple-health/dogsheep_export_inline-route-locations.xml").device)
        #expect(dogsheep.source == "Apple Health workout")
        #expect(abs((dogsheep.distance ?? 0) - 0.4971749504535062 * 1609.344) < 1e-9)
        #expect(abs((dogsheep.duration ?? 0) - 5.19412346680959 * 60) < 1e-9)
        #expect(abs((dogsheep.calories ?? 0) - 48.74499999999999) < 1e-9)

        // The hand-made export's run has WorkoutStatistics average 140, maximum 150.
        let batch = WorkoutFileReader.readAll(contentsOf: try Fixture.url("apple-health/handmade_export_hr-assignment.xml"))
        let run = try #require(batch.workouts.first { $0.origin.hasSuffix(":30") })
        #expect(run.device?.heartRateAverage == 140)
        #expect(run.device?.heartRateMax == 150)
        #expect(run.device?.duration == 1800)
        let summary = WorkoutSummary(route: run.route, heartRate: [], start: run.start, end: run.end, device: run.device)
        #expect(summary.heartRateAverage == 140 && summary.heartRateMax == 150)
    }

    /// The real recordings of tracks-in-map: FIT sessions and OpenTracks' GPX
    /// `TrackStatsExtension` give the devices' distances, read from the files' own text here.
    @Test func gpxTrackStatsGiveTheRecordersDistance() throws {
        for name in TracksInMap.gpxFiles {
            let url = TracksInMap.url(name)
            let text = try String(contentsOf: url, encoding: .utf8)
            let written = try #require(text.firstMatch(of: /<gpxtrkx:Distance>([0-9.]+)<\/gpxtrkx:Distance>/)).1
            let workout = try #require(WorkoutFileReader.readAll(contentsOf: url).workouts.first)
            #expect(workout.device?.source == "GPX TrackStatsExtension")
            #expect(workout.device?.distance == Double(written), "\(name)")
        }
    }
}

/// The real recordings in `Tests/Data/tracks-in-map` (see its SOURCES.md), read from the repository.
enum TracksInMap {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/tracks-in-map")

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    static let gpxFiles = [
        "zeeland/Zeeland__Activities__Radfahrt__Term_Link_D8_2015__2025-08-31_09_57_05.835_Zwin_und_Nieuwvliet.gpx",
        "zeeland/Zeeland__Activities__Spaziergang__Brooks_Caldera_5__2025-08-30_20_29_18.085_BC_Cadzand-Bad.gpx",
        "zeeland/Zeeland__Activities__Spaziergang__New_Balance_Fresh_Foam_860v11__2025-09-03_11_32_33.996_Cadzand-Bad.gpx",
        "zeeland/Zeeland__Activities__Wanderung__Brooks_Caldera_5__2025-08-29_20_12_17.410_Cadzand-Bad.gpx",
    ]
}
