import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

@Suite struct GPXReaderTests {
    private func read(_ text: String) throws(ImportError) -> ImportedWorkout {
        let workouts = try GPXReader.read(Array(text.utf8), file: "test.gpx")
        #expect(workouts.count == 1)
        return workouts[0]
    }

    private func gpx(_ body: String, namespaces: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" \(namespaces)>
        \(body)
        </gpx>
        """
    }

    @Test(arguments: GPXExpectations.all)
    func readsFixture(_ expected: Expected) throws {
        let workouts = try GPXReader.read(Fixture.bytes(expected.file), file: expected.file)
        #expect(workouts.count == 1)
        let workout = try #require(workouts.first)
        #expect(workout.source == .gpx)
        #expect(workout.sourceID == nil)
        #expect(workout.origin == expected.file)
        #expect(workout.name == expected.name)
        expected.check(workout)
    }

    @Test(
        arguments: [
            ("gpx-edge/bad-values_lat-undefined.gpx", 5, "lat", "not a number: 'undefined'"),
            ("gpx-edge/out-of-range-coords_open-gpx-tracker.gpx", 3, "lat", "91.38389 is outside -90...90"),
            ("gpx-edge/truncated_garmin-basecamp.gpx", 58, nil, "unexpected end of file"),
            ("gpx-edge/no-closing-tag_garmin-basecamp.gpx", 204, nil, "<gpx> opened at line 2 is not closed"),
        ] as [(String, Int, String?, String)])
    func reportsBrokenFixture(path: String, line: Int, field: String?, message: String) throws {
        let bytes = try Fixture.bytes(path)
        let failure = #expect(throws: ImportError.self) { try GPXReader.read(bytes, file: path) }
        #expect(failure?.file == path)
        #expect(failure?.line == line)
        #expect(failure?.field == field)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    @Test(arguments: [
        ("<trk><trkseg><trkpt lat=\"12.4\" lon=\"180.877\"/></trkseg></trk>", "lon", "180.877 is outside -180...180"),
        ("<trk><trkseg><trkpt lat=\"-90.5\" lon=\"0\"/></trkseg></trk>", "lat", "outside"),
        ("<trk><trkseg><trkpt lon=\"1\"/></trkseg></trk>", "lat", "missing"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"\"/></trkseg></trk>", "lon", "empty"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"NaN\"/></trkseg></trk>", "lon", "not a number"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt></trkseg></trk>", "time", "not an ISO 8601 time"),
        ("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>bad data</ele></trkpt></trkseg></trk>", "ele", "not a number"),
        ("<wpt lat=\"91\" lon=\"2\"/>", "lat", "outside"),
    ])
    func reportsBadValues(body: String, field: String, message: String) {
        let failure = #expect(throws: ImportError.self) { try read(gpx(body)) }
        #expect(failure?.line == 3)
        #expect(failure?.field == field)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
        #expect(failure?.description.hasPrefix("test.gpx:3: \(field): ") == true)
    }

    @Test func refusesOtherXML() {
        let failure = #expect(throws: ImportError.self) {
            try read("<?xml version=\"1.0\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document/></kml>")
        }
        #expect(failure?.message == "not a GPX file (root element is kml)")
        #expect(failure?.line == 2)
        // No root element at all: the XML reader says so before the format's reader could.
        let empty = #expect(throws: ImportError.self) { try read("<?xml version=\"1.0\"?>\n<!-- nothing -->\n") }
        #expect(empty?.message == "no root element: the file is empty or not XML", "\(String(describing: empty))")
        let foreign = #expect(throws: ImportError.self) { try read("<gpx xmlns=\"urn:something-else\"/>") }
        #expect(foreign?.message.contains("not a GPX file") == true)
    }

    @Test func refusesAHandMadeTruncatedFile() {
        let text = gpx("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk>")
        let cut = String(text.prefix(text.count - 40))
        let failure = #expect(throws: ImportError.self) { try read(cut) }
        #expect(failure?.message.contains("unexpected end of file") == true)
    }

    /// A broken file gives an error, never a partial result: cut anywhere before the root's end,
    /// a real file must fail.
    @Test func failsWhereverAFileIsCut() throws {
        let bytes = try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        let rootEnd = bytes.count - "</gpx>\n".utf8.count
        for length in stride(from: 0, to: rootEnd, by: 61) {
            #expect(throws: ImportError.self, "cut at \(length)") { try GPXReader.read(Array(bytes[..<length]), file: "cut.gpx") }
        }
    }

    @Test func survivesGarbage() {
        let seed: UInt64 = 0x6A75_6E6B_2D67_7078
        print("GPXReaderTests.survivesGarbage seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 1...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(throws: ImportError.self) { try GPXReader.read(Array("<gpx>".utf8) + bytes, file: "garbage.gpx") }
        }
    }

    @Test func readsEveryHeartRateEncoding() throws {
        let workout = try read(
            gpx(
                """
                <trk><trkseg>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:01Z</time><extensions><a:TrackPointExtension><a:hr>101</a:hr></a:TrackPointExtension></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:02Z</time><extensions><b:TrackPointExtension><b:hr>102</b:hr></b:TrackPointExtension></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:03Z</time><extensions><c:hr>103</c:hr></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:04Z</time><extensions><heartrate>104</heartrate></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:05Z</time><extensions><bpm>105</bpm></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:06Z</time><extensions><x:power>1</x:power></extensions><extensions><a:TrackPointExtension><a:cad>80</a:cad><a:hr>106</a:hr></a:TrackPointExtension></extensions></trkpt>
                <trkpt lat="1" lon="1"><extensions><heartrate>107</heartrate></extensions></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:08Z</time><extensions><heartrate>0</heartrate><x:hr>108</x:hr></extensions></trkpt>
                </trkseg></trk>
                """,
                namespaces: """
                    xmlns:a="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" \
                    xmlns:b="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" \
                    xmlns:c="http://www.cluetrust.com/XML/GPXDATA/1/0" xmlns:x="urn:not-heart-rate"
                    """))
        #expect(workout.heartRate.map(\.bpm) == [101, 102, 103, 104, 105, 106])
        #expect(workout.heartRate.map { $0.time.timeIntervalSince1970 } == (1...6).map { 1_577_836_800 + Double($0) })
        #expect(workout.route.pointCount == 8)
    }

    @Test func usesRoutesWhenTracksHaveNoPoints() throws {
        let workout = try read(
            gpx(
                """
                <trk><name>empty</name><trkseg/></trk>
                <rte><name>planned</name><type>Hiking</type><rtept lat="1" lon="2"/><rtept lat="3" lon="4"/></rte>
                <rte><rtept lat="5" lon="6"/></rte>
                """))
        #expect(workout.route.segments.map(\.count) == [2, 1])
        #expect(workout.name == "empty")
        #expect(workout.activity == .walking)
    }

    @Test func keepsTheFirstExplicitOffsetAndSkipsZ() throws {
        let workout = try read(
            gpx(
                """
                <trk><trkseg>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:01Z</time></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:02-03:30</time></trkpt>
                <trkpt lat="1" lon="1"><time>2020-01-01T00:00:03+01:00</time></trkpt>
                </trkseg></trk>
                """))
        #expect(workout.timeZoneOffset == -12_600)
    }

    @Test func transcodesAnISO88591Name() throws {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx xmlns=\"http://www.topografix.com/GPX/1/0\"><trk><name>Caf".utf8)
            + [0xE9] + Array(" Kr".utf8) + [0xE4] + Array("mer</name><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>".utf8)
        let workout = try GPXReader.read(bytes, file: "latin1.gpx")[0]
        #expect(workout.name == "Café Krämer")
    }
}
