import Foundation
import Testing
import WorkFeedModel

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test func millionAs() {
        #expect(
            SHA256.hex(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Pieces of any size, across block and padding boundaries (55, 56, 63, 64 bytes), give the
    /// digest of the whole.
    @Test func piecesHashLikeTheWhole() {
        let seed: UInt64 = 0x5EED_0041_0001
        print("piecesHashLikeTheWhole seed: \(String(seed, radix: 16))")
        var generator = SplitMix64(seed: seed)
        for total in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let bytes = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var hasher = SHA256()
            var offset = 0
            while offset < total {
                let size = Int.random(in: 1...70, using: &generator)
                hasher.update(bytes[offset..<min(total, offset + size)])
                offset += size
            }
            #expect(hasher.finalize().hexString == SHA256.hex(bytes), "\(total) bytes")
            #expect(SHA256.hex(bytes) == SHA256.hex(AnySequence(bytes)), "\(total) bytes, not contiguous")
        }
    }
}

@Suite struct SeriesCodecTests {
    let route = Route(segments: [
        [
            RoutePoint(latitude: 52.5200066, longitude: 13.404954, elevation: 34.5, time: Date(timeIntervalSince1970: 1_600_000_000.123)),
            RoutePoint(latitude: -33.8688197, longitude: -151.2092955, elevation: nil, time: nil),
        ],
        [RoutePoint(latitude: 0.0000001, longitude: 179.9999999, elevation: -12.25, time: Date(timeIntervalSince1970: 1_600_000_100))],
    ])

    @Test func routeRoundTripKeepsSegmentsAndPrecision() throws {
        let bytes = SeriesCodec.encode(route)
        #expect(bytes.count == 4 + 4 + 2 * 4 + 3 * 20)
        let decoded = try SeriesCodec.decodeRoute(bytes)
        #expect(decoded.segments.count == 2)
        #expect(decoded.segments[0].count == 2)
        let first = decoded.segments[0][0]
        #expect(abs(first.latitude - 52.5200066) < 1e-7)
        #expect(first.elevation == 34.5)
        #expect(first.time == Date(timeIntervalSince1970: 1_600_000_000.123))
        #expect(decoded.segments[0][1].elevation == nil)
        #expect(decoded.segments[0][1].time == nil)
        // Encoding what was decoded gives the same bytes: the stored form is its own fixed point.
        #expect(SeriesCodec.encode(decoded) == bytes)
    }

    @Test func heartRateRoundTrip() throws {
        let samples = [
            HeartRateSample(time: Date(timeIntervalSince1970: 1_000), bpm: 142.5), HeartRateSample(time: Date(timeIntervalSince1970: 1_001), bpm: 60),
        ]
        let decoded = try SeriesCodec.decodeHeartRate(SeriesCodec.encode(samples))
        #expect(decoded == samples)
    }

    @Test func truncatedOrForeignBytesAreErrorsNotCrashes() {
        let bytes = SeriesCodec.encode(route)
        for length in [0, 3, 7, 12, bytes.count - 1] {
            #expect(throws: SeriesFormatError.self) { try SeriesCodec.decodeRoute(bytes.prefix(length)) }
        }
        #expect(throws: SeriesFormatError.self) { try SeriesCodec.decodeRoute(Array("WFH1\0\0\0\0".utf8)) }
        #expect(throws: SeriesFormatError.self) { try SeriesCodec.decodeRoute(bytes + [0]) }
        // A segment count far beyond the data must not allocate or loop.
        #expect(throws: SeriesFormatError.self) {
            try SeriesCodec.decodeRoute(Array("WFR1".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        }
    }

    /// A route point with these times in milliseconds, as a sender can write them.
    static func route(times: [Int64]) -> [UInt8] {
        var bytes = Array("WFR1".utf8) + [1, 0, 0, 0] + withUnsafeBytes(of: UInt32(times.count).littleEndian, Array.init)
        for time in times {
            bytes += withUnsafeBytes(of: Int32(52_0000000).littleEndian, Array.init) + withUnsafeBytes(of: Int32(4_0000000).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: Int32(100).littleEndian, Array.init) + withUnsafeBytes(of: time.littleEndian, Array.init)
        }
        return bytes
    }

    /// Issue 13, finding 1: a time of Int64.max ms trapped when the decoded route was encoded
    /// again (the index does that on import). Every time a field holds must survive both ways.
    @Test(arguments: [Int64.max, Int64.max - 1, Int64.min + 1, 1 << 62, -(1 << 62), 9_007_199_254_740_993, 0, -1])
    func extremeTimesNeverTrapAndEncodeToThemselvesOrTheirLimit(time: Int64) throws {
        let decoded = try SeriesCodec.decodeRoute(Self.route(times: [time]))
        let again = try SeriesCodec.decodeRoute(SeriesCodec.encode(decoded))
        #expect(again.pointCount == 1)
        let samples = try SeriesCodec.decodeHeartRate(
            Array("WFH1".utf8) + [1, 0, 0, 0] + withUnsafeBytes(of: time.littleEndian, Array.init) + [0x10, 0x05])
        #expect(try SeriesCodec.decodeHeartRate(SeriesCodec.encode(samples)).count == 1)
        // Summaries (durations between such times) are computed on import too.
        _ = WorkoutSummary(route: decoded, heartRate: samples)
    }

    @Test func timesThatAreNotNumbersAreWrittenAsTheEarliestNotATrap() throws {
        let route = Route(segments: [[RoutePoint(latitude: 1, longitude: 1, time: Date(timeIntervalSince1970: .nan))]])
        let bytes = SeriesCodec.encode(route)
        #expect(bytes.suffix(8) == withUnsafeBytes(of: (Int64.min + 1).littleEndian, Array.init)[...])
        _ = SeriesCodec.encode([HeartRateSample(time: Date(timeIntervalSince1970: .infinity), bpm: 100)])
    }
}

@Suite struct ValueLimitsTests {
    @Test(arguments: [Int64.max, 1 << 62, -(1 << 62), Int64.min + 1, 7_258_118_400_000, -2_208_988_800_001])
    func timesOutsideTheWindowAreRefusedNamingTheField(time: Int64) throws {
        let route = try SeriesCodec.decodeRoute(SeriesCodecTests.route(times: [1_600_000_000_000, time]))
        let workout = ImportedWorkout(source: .gpx, route: route, origin: "t")
        do {
            try workout.checkRanges()
            Issue.record("accepted time \(time)")
        } catch {
            #expect(error.field == "route segment 0 point 1 time")
            #expect(error.description.contains("outside 1900-01-01T00:00:00Z ..< 2200-01-01T00:00:00Z"), "\(error)")
        }
    }

    @Test func theWindowsEdgesAreAccepted() throws {
        let route = try SeriesCodec.decodeRoute(SeriesCodecTests.route(times: [-2_208_988_800_000, 7_258_118_399_999]))
        #expect(throws: Never.self) { try ImportedWorkout(source: .gpx, route: route, origin: "t").checkRanges() }
    }

    @Test func everyFieldIsChecked() {
        let ok = Date(timeIntervalSince1970: 1_600_000_000)
        let far = Date(timeIntervalSince1970: 1e13)
        var workout = ImportedWorkout(source: .gpx, route: Route(segments: [[RoutePoint(latitude: 1, longitude: 1, time: ok)]]), origin: "t")
        #expect(throws: Never.self) { try workout.checkRanges() }
        let cases: [(String, (inout ImportedWorkout) -> Void)] = [
            ("start", { $0.start = far }), ("end", { $0.end = Date(timeIntervalSince1970: -3e9) }),
            ("timeZoneOffset", { $0.timeZoneOffset = 86_400 }), ("timeZone", { $0.timeZone = "../../etc/passwd x" }),
            ("name", { $0.name = String(repeating: "x", count: 2_000) }),
            ("sourceID", { $0.sourceID = String(repeating: "x", count: 2_000) }), ("origin", { $0.origin = String(repeating: "x", count: 5_000) }),
            ("heart-rate sample 1 time", { $0.heartRate = [HeartRateSample(time: ok, bpm: 100), HeartRateSample(time: far, bpm: 100)] }),
            ("heart-rate sample 0 bpm", { $0.heartRate = [HeartRateSample(time: ok, bpm: .nan)] }),
        ]
        for (field, change) in cases {
            var broken = workout
            change(&broken)
            do {
                try broken.checkRanges()
                Issue.record("accepted a bad \(field)")
            } catch {
                #expect(error.field == field)
            }
        }
        workout.timeZoneOffset = -64_800
        #expect(throws: Never.self) { try workout.checkRanges() }
    }
}

@Suite struct LayoutAndFigureTests {
    @Test func cacheLayoutFollowsTheDesign() {
        let id = WorkoutID("3F2A0000-0000-4000-8000-000000000001")!
        #expect(
            CacheLayout.relativePath(for: PictureID(workoutID: id, kind: .route, theme: .dark))
                == "route/3f/3f2a0000-0000-4000-8000-000000000001_dark.png")
        #expect(
            CacheLayout.relativePath(for: PictureID(workoutID: id, kind: .heatmap, theme: .light, scale: 2))
                == "heatmap/3f/3f2a0000-0000-4000-8000-000000000001_heartrate_light@2x.png")
    }

    @Test func summaryMeasuresDistanceAcrossSegmentsButNotGaps() {
        // Two segments, each 0.01° of latitude (about 1112 m); the gap between them is not counted.
        let route = Route(segments: [
            [
                RoutePoint(latitude: 0, longitude: 0, time: Date(timeIntervalSince1970: 0)),
                RoutePoint(latitude: 0.01, longitude: 0, time: Date(timeIntervalSince1970: 100)),
            ],
            [
                RoutePoint(latitude: 1, longitude: 0, time: Date(timeIntervalSince1970: 200)),
                RoutePoint(latitude: 1.01, longitude: 0, time: Date(timeIntervalSince1970: 300)),
            ],
        ])
        let summary = WorkoutSummary(route: route, heartRate: [])
        #expect(abs(summary.distance - 2 * 1111.95) < 1)
        #expect(summary.duration == 300)
        #expect(summary.heartRateAverage == nil)
    }

    @Test(
        arguments: [("Running", .running), ("Biking", .cycling), ("HKWorkoutActivityTypeWalking", .walking), ("swim", .other), (nil, .other)]
            as [(String?, ActivityType)])
    func activityNamesFold(name: String?, expected: ActivityType) {
        #expect(ActivityType(sourceName: name) == expected)
    }
}

@Suite struct WorkoutIDTests {
    @Test func parsesAndPrintsLikeFoundationButInLowerCase() {
        for _ in 0..<200 {
            let uuid = UUID()
            let id = WorkoutID(uuid.uuidString)
            #expect(id?.uuid == uuid)
            #expect(id?.description == uuid.uuidString.lowercased())
            #expect(WorkoutID(uuid.uuidString.lowercased()) == id)
        }
    }

    @Test(arguments: [
        "", "3f2a", "3f2a0000-0000-4000-8000-00000000000", "3f2a0000-0000-4000-8000-0000000000001", "3f2a0000x0000-4000-8000-000000000001",
        "3g2a0000-0000-4000-8000-000000000001", "3f2a00000000-4000-8000-0000000000001",
    ])
    func refusesWhatIsNotAUUID(text: String) {
        #expect(WorkoutID(text) == nil)
    }
}

@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("plain name", "plain name"), ("two\nlines", "two\\nlines"), ("tab\tand\rreturn", "tab\\tand\\rreturn"),
        ("\u{1B}[31mred", "\\u{1B}[31mred"), ("c1 \u{9B}31m", "c1 \\u{9B}31m"), ("bidi \u{202E}cba", "bidi \\u{202E}cba"),
        ("zero width\u{200B}", "zero width\\u{200B}"), ("é ü 日本 🏃", "é ü 日本 🏃"), ("del\u{7F}", "del\\u{7F}"),
    ])
    func controlAndFormatCharactersAreEscaped(text: String, shown: String) {
        #expect(text.escapedForDisplay == shown)
    }

    @Test func jsonStaysTheSameJSON() throws {
        let value = ["name": "a\u{9B}b\u{202E}c\u{1F3C3}\u{E0041}"]
        let encoded = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        let safe = encoded.jsonEscapedForDisplay
        #expect(!safe.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E || $0.value == 0xE0041 })
        #expect(try JSONDecoder().decode([String: String].self, from: Data(safe.utf8)) == value)
    }
}

/// The hand-written JSON writer (the feed's pages), read back by Foundation.
@Suite struct JSONTests {
    @Test func writerOutputIsReadByFoundation() throws {
        var json = JSONWriter()
        json.beginObject()
        json.member("text", "quote \" backslash \\ newline \n tab \t control \u{1} é 😀")
        json.member("absent", nil as String?)
        json.member("whole", 3.0)
        json.member("fraction", 0.1)
        json.member("tiny", 1e-7)
        json.member("nan", Double.nan)
        json.key("list")
        json.beginArray()
        json.integer(-4)
        json.bool(true)
        json.beginObject()
        json.endObject()
        json.beginArray()
        json.endArray()
        json.endArray()
        json.endObject()
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        #expect(foundation["text"] as? String == "quote \" backslash \\ newline \n tab \t control \u{1} é 😀")
        #expect(foundation["absent"] == nil && foundation["nan"] == nil)
        #expect(foundation["whole"] as? Int == 3 && foundation["fraction"] as? Double == 0.1 && foundation["tiny"] as? Double == 1e-7)
        let list = try #require(foundation["list"] as? [Any])
        #expect(list.count == 4 && list[0] as? Int == -4 && list[1] as? Bool == true)
        #expect((list[2] as? [String: Any])?.isEmpty == true && (list[3] as? [Any])?.isEmpty == true)
    }
}
