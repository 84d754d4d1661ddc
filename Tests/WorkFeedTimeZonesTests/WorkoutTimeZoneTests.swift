import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel
import WorkFeedTimeZones

/// A workout's zone and offset through the real import path (``WorkoutFileReader``) on real files.
@Suite struct WorkoutTimeZoneTests {
    static func localStart(_ workout: ImportedWorkout) -> String? {
        guard let start = workout.start, let offset = workout.timeZoneOffset, let zone = TimeZone(secondsFromGMT: offset) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
        formatter.timeZone = zone
        return formatter.string(from: start)
    }

    /// Issue 24: the TomTom Runner 3 writes UTC into local_timestamp; the ride started at 16:51
    /// CEST in Heidelberg, not 14:51.
    @Test func theHeidelbergRideStartsAt1651CEST() throws {
        let workout = try #require(try WorkoutFileReader.read(contentsOf: TestData.heidelbergRide).first)
        #expect(workout.timeZone == "Europe/Berlin")
        #expect(workout.timeZoneOffset == 7200)
        #expect(workout.timeZoneSource == .position)
        let local = try #require(Self.localStart(workout))
        #expect(local.hasSuffix(" 16:51:11 +02:00"), "\(local)")
        #expect(workout.warnings.isEmpty, "\(workout.warnings)")
    }

    /// The Coros ride's local_timestamp equals its timestamp too: Bogotá, -05:00 (no daylight saving).
    @Test func aFITFileWhoseLocalTimeIsUTCTakesTheZoneOfItsStart() throws {
        let workout = try #require(try WorkoutFileReader.read(contentsOf: TestData.corosRide).first)
        #expect(workout.timeZone == "America/Bogota")
        #expect(workout.timeZoneOffset == -18_000)
        #expect(workout.timeZoneSource == .position)
    }

    /// A GPX whose times carry +02:00 keeps it; the zone of its start (on the Dutch-Belgian border)
    /// goes with it because its offset then is +02:00 too.
    @Test func aGPXWithAnOffsetKeepsIt() throws {
        let workout = try #require(try WorkoutFileReader.read(contentsOf: TestData.zeelandRide).first)
        #expect(workout.timeZoneOffset == 7200)
        #expect(workout.timeZoneSource == .file)
        #expect(["Europe/Amsterdam", "Europe/Brussels"].contains(workout.timeZone))
    }

    /// An offset no zone of the place has (+01:15 in Cameroon, +01:00) is kept, without a zone.
    @Test func anOffsetTheZoneDoesNotGiveIsKeptWithoutAZone() throws {
        let workout = try #require(try WorkoutFileReader.read(contentsOf: TestData.oddOffsetGPX).first)
        #expect(workout.timeZoneOffset == 4500)
        #expect(workout.timeZoneSource == .file)
        #expect(workout.timeZone == nil)
    }

    /// Daylight saving from the rules at the start: the same place in winter is +01:00.
    @Test func theOffsetFollowsTheRulesAtTheStart() throws {
        let map = try TestData.map()
        let winter = Date(timeIntervalSince1970: 1_610_000_000)  // 2021-01-07
        let summer = Date(timeIntervalSince1970: 1_625_000_000)  // 2021-06-29
        func workout(_ start: Date, offset: Int? = nil) -> ImportedWorkout {
            ImportedWorkout(
                source: .gpx,
                route: Route(segments: [[RoutePoint(latitude: .nan, longitude: 3), RoutePoint(latitude: 49.41, longitude: 8.69, time: start)]]),
                timeZoneOffset: offset, origin: "made up")
        }
        #expect(WorkoutTimeZone.resolved(workout(winter), map: .success(map)).timeZoneOffset == 3600)
        #expect(WorkoutTimeZone.resolved(workout(summer), map: .success(map)).timeZoneOffset == 7200)
        // Without a boundary file: as the file had it, with a warning that says why.
        let failed = WorkoutTimeZone.resolved(workout(summer), map: .failure(TimeZoneMapError(.unreadable, offset: nil, "no timezones.wftz")))
        #expect(failed.timeZone == nil && failed.timeZoneOffset == nil)
        #expect(failed.warnings.map(\.description) == ["made up: time zone: cannot look up the zone of the start: no timezones.wftz"])
        // Apple Health's zone is kept as it is.
        var health = workout(summer)
        health.timeZone = "America/New_York"
        health.timeZoneSource = .appleHealth
        health.timeZoneOffset = -14_400
        #expect(WorkoutTimeZone.resolved(health, map: .success(map)) == health)
    }
}
