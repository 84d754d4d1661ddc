import Foundation
import Testing
import WorkFeedCoordinator
import WorkFeedImport
import WorkFeedModel
import WorkFeedWire

/// Issue 24, part 2, through a running coordinator and the real `workctl`: a workout's local start
/// comes from the zone where it started, is stored with it, shown by `workctl show`, and filled in
/// by `workctl reimport` for a workout stored without it.
@Suite(.serialized) struct TimeZoneSystemTests {
    static let heidelbergRide = RealFiles.data.appendingPathComponent("tracks-in-map/heidelberg/fitfiler_tomtom-runner3_ride_2021.fit").path

    func workctl(_ system: RunningSystem, _ arguments: [String]) throws -> WorkCtlProcess.Result {
        try WorkCtlProcess.run(arguments + ["--coordinator", system.endpoints.control])
    }

    func feed(_ system: RunningSystem) throws -> [WorkoutRecord] {
        var client = try system.client()
        let reply: FeedReply = try client.request(.feed, FeedRequest(limit: 1000))
        return reply.items.map(\.workout)
    }

    @Test func theHeidelbergRideShowsItsLocalStartAndReimportFillsTheZoneIn() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        #expect(try workctl(system, ["import", Self.heidelbergRide]).status == 0)
        let ride = try #require(try feed(system).first)
        #expect(ride.timeZone == "Europe/Berlin" && ride.timeZoneOffset == 7200 && ride.timeZoneSource == .position)
        let prefix = String(ride.id.description.prefix(8))
        let shown = try workctl(system, ["show", prefix])
        #expect(shown.output.contains(" 16:51:11 +02:00 (Europe/Berlin) (time zone looked up from where it started)"), "\(shown.output)")
        let listed = try workctl(system, ["feed"])
        #expect(listed.output.contains("\(ride.id)  2021-07-11 16:51 +02:00 (Europe/Berlin)  cycling"), "\(listed.output)")

        // The row as a coordinator before index schema v11 stored it: no zone, no offset.
        let workout = try #require(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: Self.heidelbergRide)).first)
        var older = workout
        older.timeZone = nil
        older.timeZoneOffset = nil
        older.timeZoneSource = nil
        older.original = nil
        var client = try system.client()
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(older), attachments: [SeriesCodec.encode(older.route), SeriesCodec.encode(older.heartRate)])
        #expect(reply.result == .refreshed)
        let before = try workctl(system, ["show", prefix])
        #expect(before.output.contains(" 14:51:11 +00:00 (in UTC: no time zone known; workctl reimport looks it up)"), "\(before.output)")

        let reimport = try decodeJSON(ImportSummaryJSON.self, try workctl(system, ["reimport", "--all", "--json"]).output)
        #expect(reimport.refreshed == 1 && reimport.updated == 0)
        let after = try #require(try feed(system).first)
        #expect(after.timeZone == "Europe/Berlin" && after.timeZoneOffset == 7200 && after.routeVersion == ride.routeVersion)
        #expect(try workctl(system, ["show", prefix]).output.contains(" 16:51:11 +02:00 (Europe/Berlin)"))
    }

    static let cadzandWalk = RealFiles.data.appendingPathComponent(
        "tracks-in-map/zeeland/Zeeland__Activities__Spaziergang__Brooks_Caldera_5__2025-08-30_20_29_18.085_BC_Cadzand-Bad.gpx"
    ).path

    static let heidelbergRun = RealFiles.data.appendingPathComponent("tracks-in-map/heidelberg/runpandas_garmin-fr645m_run_2019_hr.fit").path

    /// Issue 35, part 3: `workctl show` names the place each workout started in (docs/places.md):
    /// the walk on Cadzand-Bad's boulevard, in the municipality of Sluis, and the run from
    /// Heidelberg's Weststadt (49.4060, 8.6942).
    @Test func workctlShowNamesWhereEachWorkoutStarted() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        #expect(try workctl(system, ["import", Self.heidelbergRun, Self.cadzandWalk]).status == 0)
        let workouts = try feed(system)
        #expect(Set(workouts.map(\.place)) == ["Heidelberg, Baden-Württemberg", "Sluis, Zeeland"])
        for workout in workouts {
            let shown = try workctl(system, ["show", String(workout.id.description.prefix(8))])
            #expect(shown.output.contains("  place:     \(workout.place ?? "-") (place names: GeoNames, CC BY 4.0)"), "\(shown.output)")
        }
    }
}
