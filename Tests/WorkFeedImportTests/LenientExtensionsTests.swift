import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

/// Issue 12, findings 5 and 6: Strava's numeric activity types, and content inside `<extensions>`
/// that WorkFeed does not read no longer rejects a whole workout.
@Suite struct LenientExtensionsTests {
    /// Finding 6 (on a small file made for the test, after a real Strava export): an undeclared
    /// prefix on a cadence element inside `<extensions>` is skipped with a warning naming the file
    /// and the line of its first occurrence; the run and its heart rate are kept.
    @Test func anUndeclaredPrefixInsideExtensionsIsSkippedWithAWarning() throws {
        let path = "handmade/handmade_strava_undeclared-prefix-in-extensions.gpx"
        let workout = try #require(try GPXReader.read(Fixture.bytes(path), file: path).first)
        #expect(workout.route.pointCount == 4)
        #expect(workout.heartRate.map(\.bpm) == [118, 124, 131, 136])
        #expect(workout.warnings.count == 1)
        let warning = try #require(workout.warnings.first)
        #expect(warning.file == path && warning.line == 16)
        #expect(warning.message.contains("undeclared namespace prefix 'cadence'"))
        #expect(warning.message.contains("4 times"))
    }

    /// The real jpx file with a tag left open inside `<extensions>` (SOURCES.md calls it BROKEN):
    /// its two track points are read; the warning names line 39.
    @Test func aTagLeftOpenInsideExtensionsIsClosedWithAWarning() throws {
        let path = "gpx-edge/mismatched-tag_invalid-extensions.gpx"
        let workout = try #require(try GPXReader.read(Fixture.bytes(path), file: path).first)
        #expect(workout.route.pointCount == 2)
        #expect(workout.warnings.map(\.line) == [39])
        #expect(workout.warnings.first?.message.contains("mismatched tag: </extensions> closes <sa> opened at line 38") == true)
    }

    /// Broken structure outside `<extensions>` is still refused with file and line.
    @Test(arguments: [
        ("<trk><trkseg><cadence:cad>1</cadence:cad></trkseg></trk>", 3, "undeclared namespace prefix 'cadence'"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><sa></trkpt></trkseg></trk>", 3, "mismatched tag"),
        ("<trk><extensions><a></extensions></trk><wpt lat=\"1\" lon=\"2\"><b></wpt>", 3, "mismatched tag: </wpt>"),
    ])
    func brokenStructureOutsideExtensionsIsStillRefused(body: String, line: Int, message: String) {
        let text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n\(body)\n</gpx>\n"
        let failure = #expect(throws: ImportError.self) { try GPXReader.read(Array(text.utf8), file: "x.gpx") }
        #expect(failure?.line == line)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    /// A heart rate that is not a number inside `<extensions>` is skipped, not fatal; TCX
    /// `<Extensions>` are lenient too.
    @Test func malformedValuesInsideExtensionsAreSkipped() throws {
        let gpx = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:g="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
            <trk><trkseg>
            <trkpt lat="1" lon="2"><time>2020-01-01T00:00:00Z</time><extensions><g:TrackPointExtension><g:hr>fast</g:hr></g:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1.001" lon="2"><time>2020-01-01T00:00:10Z</time><extensions><g:TrackPointExtension><g:hr>120</g:hr></g:TrackPointExtension></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let workout = try #require(try GPXReader.read(Array(gpx.utf8), file: "hr.gpx").first)
        #expect(workout.heartRate.map(\.bpm) == [120])
        #expect(workout.warnings.first?.line == 3 && workout.warnings.first?.field == "hr")

        let tcx = """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>
            <Activity Sport="Running"><Id>2020-01-01T00:00:00Z</Id><Lap StartTime="2020-01-01T00:00:00Z"><Track>
            <Trackpoint><Time>2020-01-01T00:00:00Z</Time><Extensions><ns3:TPX><ns3:Speed>1</ns3:Speed></ns3:TPX></Extensions></Trackpoint>
            </Track><Extensions><LX><x></LX></Extensions></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let activity = try #require(try TCXReader.read(Array(tcx.utf8), file: "run.tcx").first)
        #expect(activity.sourceID == "2020-01-01T00:00:00Z")
        #expect(activity.warnings.map(\.line) == [3, 4])
    }

    /// Finding 5: Strava's GPX export writes the activity as a number; 9 is a run (a small file
    /// made for the test, and the rest of Strava's list).
    @Test func stravasNumericTypeNineIsARun() throws {
        let path = "handmade/handmade_strava_numeric-type-9.gpx"
        let workout = try #require(try GPXReader.read(Fixture.bytes(path), file: path).first)
        #expect(workout.activity == .running)
        #expect(workout.name == "Morning Run")
    }

    @Test(arguments: [
        ("1", ActivityType.cycling), ("4", .walking), ("9", .running), ("10", .walking), ("16", .other), ("17", .cycling),
        ("18", .cycling), ("23", .other), ("51", .other), ("53", .running), ("999", .other), (" 9 ", .running),
    ])
    func stravasNumericTypes(code: String, activity: ActivityType) throws {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><type>\(code)</type><trkseg>
            <trkpt lat="1" lon="2"/></trkseg></trk></gpx>
            """
        #expect(try GPXReader.read(Array(text.utf8), file: "strava.gpx").first?.activity == activity)
    }
}
