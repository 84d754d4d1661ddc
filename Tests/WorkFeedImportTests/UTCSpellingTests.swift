import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

/// Issue 36: a UTC designator in any spelling is UTC, and the zone is looked up from the position,
/// as for `Z`. MapMyRide writes `+00:00`: its ride in North Carolina showed 15:58 (+00:00) for
/// what was 10:58 EST; the TCX course in San Francisco showed 18:28 for 11:28 PDT.
@Suite struct UTCSpellingTests {
    static let spellings = ["Z", "+00:00", "-00:00", "+0000", "-0000", "+00", "z"]

    /// The real file, its every time rewritten in `spelling`.
    private func read(_ path: String, writing spelling: String) throws -> ImportedWorkout {
        let text = String(decoding: try Fixture.bytes(path), as: UTF8.self).replacingOccurrences(of: "+00:00<", with: spelling + "<")
            .replacingOccurrences(of: "+00:00\"", with: spelling + "\"")
        #expect(spelling == "+00:00" || !text.contains("+00:00"))
        let batch = WorkoutFileReader.readAll(bytes: Array(text.utf8), file: path)
        #expect(batch.errors.isEmpty, "\(batch.errors)")
        return try #require(batch.workouts.first)
    }

    @Test(arguments: spellings)
    func theMapMyRideRideIsInNewYorkTime(spelling: String) throws {
        let ride = try read("tcx/mapmyride_ride_2022_microsecond-times_no-hr.tcx", writing: spelling)
        #expect(ride.timeZone == "America/New_York")
        #expect(ride.timeZoneSource == .position)
        #expect(ride.timeZoneOffset == -5 * 3600)
        let start = try #require(ride.start)
        #expect(FeedItem.localTime(start, offset: ride.timeZoneOffset ?? 0).hasPrefix("2022-11-12T10:58:25"))
    }

    @Test(arguments: spellings)
    func theSanFranciscoCourseIsInPacificTime(spelling: String) throws {
        let course = try read("tcx/course_no-activity.tcx", writing: spelling)
        #expect(course.timeZone == "America/Los_Angeles" && course.timeZoneSource == .position)
        #expect(course.timeZoneOffset == -7 * 3600)
        let start = try #require(course.start)
        #expect(FeedItem.localTime(start, offset: course.timeZoneOffset ?? 0).hasPrefix("2021-08-02T11:28:31"))
    }

    /// A real offset is still the file's word: the same ride written at -05:00 keeps it.
    @Test func aRealOffsetIsKept() throws {
        let text = String(decoding: try Fixture.bytes("tcx/mapmyride_ride_2022_microsecond-times_no-hr.tcx"), as: UTF8.self)
        let local = text.replacingOccurrences(of: "T15:", with: "T10:").replacingOccurrences(of: "T16:", with: "T11:")
            .replacingOccurrences(of: "+00:00", with: "-05:00")
        let ride = try #require(WorkoutFileReader.readAll(bytes: Array(local.utf8), file: "ride.tcx").workouts.first)
        #expect(ride.timeZoneSource == .file && ride.timeZoneOffset == -5 * 3600 && ride.timeZone == "America/New_York")
    }
}
