import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

@Suite struct TCXReaderTests {
    private func read(_ text: String) throws(ImportError) -> [ImportedWorkout] {
        try TCXReader.read(Array(text.utf8), file: "test.tcx")
    }

    private func tcx(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
        \(body)
        </TrainingCenterDatabase>
        """
    }

    @Test(arguments: TCXExpectations.all)
    func readsFixture(_ expected: Expected) throws {
        let workouts = try TCXReader.read(Fixture.bytes(expected.file), file: expected.file)
        #expect(workouts.count == 1)
        let workout = try #require(workouts.first)
        #expect(workout.source == .tcx)
        #expect(workout.sourceID == expected.sourceID)
        #expect(workout.name == expected.name)
        expected.check(workout)
    }

    @Test func reportsUnreadablePositions() throws {
        let path = "tcx/fitbit-versa_bad-positions_dup-lap-start.tcx"
        let bytes = try Fixture.bytes(path)
        let failure = #expect(throws: ImportError.self) { try TCXReader.read(bytes, file: path) }
        #expect(failure?.description == "\(path):50: LatitudeDegrees: not a number: 'no'")
    }

    @Test func readsEveryActivityAndCourse() throws {
        let workouts = try read(
            tcx(
                """
                <Activities>
                  <Activity Sport="Running"><Id>2020-01-01T10:00:00Z</Id><Lap><Track>
                    <Trackpoint><Time>2020-01-01T10:00:00Z</Time><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>
                    <Trackpoint><Time>2020-01-01T10:00:05Z</Time><HeartRateBpm><Value>125</Value></HeartRateBpm></Trackpoint>
                  </Track></Lap></Activity>
                  <MultiSportSession><FirstSport><Activity Sport="Biking"><Id>2020-01-02T10:00:00Z</Id></Activity></FirstSport></MultiSportSession>
                </Activities>
                <Courses><Course><Name>Loop</Name><Track><Trackpoint><Position><LatitudeDegrees>3</LatitudeDegrees><LongitudeDegrees>4</LongitudeDegrees></Position></Trackpoint></Track></Course></Courses>
                """))
        #expect(workouts.map(\.activity) == [.running, .cycling, .other])
        #expect(workouts.map(\.sourceID) == ["2020-01-01T10:00:00Z", "2020-01-02T10:00:00Z", nil])
        #expect(workouts[0].route.pointCount == 1)
        #expect(workouts[0].heartRate.map(\.bpm) == [120, 125])
        #expect(workouts[0].end == Date(timeIntervalSince1970: 1_577_872_805))
        #expect(workouts[1].route.isEmpty)
        #expect(workouts[1].start == Date(timeIntervalSince1970: 1_577_959_200))
        #expect(workouts[2].name == "Loop")
        #expect(workouts[2].route.pointCount == 1)
    }

    @Test func readsAFileWithoutActivitiesAsNoWorkouts() throws {
        #expect(try read(tcx("<Folders/>")).isEmpty)
    }

    @Test(arguments: [
        ("<Position><LatitudeDegrees>1</LatitudeDegrees></Position>", "LongitudeDegrees", "missing"),
        ("<Position><LatitudeDegrees>95</LatitudeDegrees><LongitudeDegrees>1</LongitudeDegrees></Position>", "LatitudeDegrees", "outside"),
        ("<Time>soon</Time>", "Time", "not an ISO 8601 time"),
        ("<HeartRateBpm><Value>fast</Value></HeartRateBpm>", "HeartRateBpm", "not a number"),
    ])
    func reportsBadValues(trackpoint: String, field: String, message: String) {
        let text = tcx(
            "<Activities><Activity Sport=\"Running\"><Lap><Track><Trackpoint>\(trackpoint)</Trackpoint></Track></Lap></Activity></Activities>")
        let failure = #expect(throws: ImportError.self) { try read(text) }
        #expect(failure?.line == 3)
        #expect(failure?.field == field)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    @Test func refusesOtherXML() {
        let failure = #expect(throws: ImportError.self) { try read("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"/>") }
        #expect(failure?.message == "not a TCX file (root element is gpx)")
        let empty = #expect(throws: ImportError.self) { try read("<?xml version=\"1.0\"?>") }
        #expect(empty?.message == "no root element: the file is empty or not XML")
    }
}
