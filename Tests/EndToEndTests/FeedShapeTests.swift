import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// `workctl feed --json` (the real executable, a real coordinator) gives each workout in the shape
/// the gateway's feed gives it (``FeedItem``), its figures the device's (issue 24, part 4).
@Suite(.serialized) struct FeedShapeTests {
    func workctl(_ system: RunningSystem, _ arguments: [String]) throws -> WorkCtlProcess.Result {
        try WorkCtlProcess.run(arguments + ["--coordinator", system.endpoints.control])
    }

    func items(_ system: RunningSystem, _ arguments: [String] = []) throws -> [FeedItem] {
        let result = try workctl(system, ["feed", "--json"] + arguments)
        #expect(result.status == 0, "\(result.errors)")
        return try decodeJSON(FeedPage.self, result.output).items
    }

    /// The FIT sessions' timer times (DeviceFiguresTests reads them: 2,832 s for the Fenix 2 run of
    /// 9,008.22 m, 11,287 s for the Coros ride of 32,145.76 m) are the moving times; pace and
    /// speed follow from them in the owner's units. A GPX track without the device's timer has
    /// no moving time.
    @Test func movingTimePaceAndSpeedAreTheDevicesInTheOwnersUnits() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let files = [
            "fit/garmin-fenix2_run_hr_4laps.fit", "fit/coros-pace2_ride_misaligned-fields.fit", "gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx",
        ]
        #expect(try workctl(system, ["import", "--owner", "runner"] + files.map(RealFiles.path)).status == 0)

        let metric = try items(system, ["--owner", "runner"])
        #expect(metric.count == 3)
        let run = try #require(metric.first { $0.distance == Quantity(value: 9.00822, unit: .kilometres) })
        #expect(run.activity == .running && run.movingTime == 2832 && run.elapsedTime == 2833)
        #expect(run.pace == Quantity(value: 314.4, unit: .secondsPerKilometre) && run.speed == nil)
        #expect(run.start == "2015-08-15T14:45:08Z" && run.localStart == "2015-08-15T16:45:08+02:00" && run.timeZoneOffset == 7200)
        let ride = try #require(metric.first { $0.activity == .cycling })
        #expect(ride.movingTime == 11287 && (ride.elapsedTime ?? 0) >= 11287)
        #expect(ride.speed == Quantity(value: 10.25, unit: .kilometresPerHour) && ride.pace == nil)
        // Strava's GPX names no activity and no timer time; its file's name says run (issue 36:
        // docs/import.md, "Activity"), so it gets a pace from its elapsed time: 41 s over 125.45 m.
        let strava = try #require(metric.first { $0.id != run.id && $0.id != ride.id })
        #expect(strava.activity == .running && strava.speed == nil)
        #expect(strava.pace.map { abs($0.value - 326.8) <= 0.2 && $0.unit == .secondsPerKilometre } == true, "\(String(describing: strava.pace))")
        #expect(strava.movingTime == nil && strava.elapsedTime == 41)

        #expect(try workctl(system, ["settings", "set", "--owner", "runner", "--units", "imperial"]).status == 0)
        let imperial = try items(system, ["--owner", "runner"])
        #expect(imperial.first { $0.id == run.id }?.pace == Quantity(value: 505.9, unit: .secondsPerMile))
        // Its distance in miles too (9,008.22 m), with the unit named (issue 36).
        #expect(imperial.first { $0.id == run.id }?.distance == Quantity(value: 5.597448, unit: .miles))
        #expect(imperial.first { $0.id == ride.id }?.speed == Quantity(value: 6.37, unit: .milesPerHour))
        // Another owner's units are their own.
        #expect(try workctl(system, ["import", "--owner", "other", RealFiles.path(files[0])]).status == 0)
        #expect(try items(system, ["--owner", "other"]).first?.pace?.unit == .secondsPerKilometre)
        // Without --owner, each workout in its owner's units.
        let everyone = try items(system)
        #expect(Set(everyone.compactMap { $0.pace?.unit }) == [.secondsPerKilometre, .secondsPerMile])
    }
}
