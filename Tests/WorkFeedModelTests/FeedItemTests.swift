import Foundation
import Testing
import WorkFeedModel
import WorkFeedTesting

/// The one shape of a workout in a feed (``FeedItem``): its figures, and its hand-written JSON.
@Suite struct FeedItemTests {
    static let id = WorkoutID("0b1c4d5e-0000-8000-8000-000000000001")!

    /// A workout of `distance` metres from 2022-11-12T15:58:25Z lasting `elapsed` seconds.
    static func record(
        _ activity: ActivityType, distance: Double = 10_000, elapsed: Double = 3000, moving: Double? = nil, offset: Int? = 3600
    ) -> WorkoutRecord {
        var workout = WorkoutRecord(
            id: id, owner: "alice", source: .fit, sourceID: "x", activity: activity, name: "Morning",
            summary: WorkoutSummary(route: Route(), heartRate: []), timeZoneOffset: offset, routeVersion: 1, routeHash: "r",
            heartRateHash: "h", anchor: 3)
        workout.start = Date(timeIntervalSince1970: 1_668_268_705)
        workout.end = workout.start!.addingTimeInterval(elapsed)
        workout.distance = distance
        workout.duration = moving ?? elapsed
        if moving != nil {
            workout.deviceSource = "FIT session"
            workout.deviceFigures = ["distance", DeviceSummary.durationFigure]
        }
        return workout
    }

    @Test func aRunGivesItsPacePerKilometreOrMileFromItsMovingTime() {
        // 10 km in 50:00 elapsed, 48:20 moving: 4:50 a km, 7:46.7 a mile.
        let metric = FeedItem(record: Self.record(.running, moving: 2900), pictures: [], units: .metric, pictureSize: nil)
        #expect(metric.elapsedTime == 3000 && metric.movingTime == 2900)
        #expect(metric.pace == Quantity(value: 290, unit: .secondsPerKilometre) && metric.speed == nil)
        let imperial = FeedItem(record: Self.record(.running, moving: 2900), pictures: [], units: .imperial, pictureSize: nil)
        #expect(imperial.pace == Quantity(value: 466.7, unit: .secondsPerMile))
        // A walk (hikes are walks) too.
        #expect(FeedItem(record: Self.record(.walking), pictures: [], units: .metric, pictureSize: nil).pace?.value == 300)
    }

    @Test func movingTimeOnlyWhereTheDeviceRecordedIt() {
        // The track's duration is start to end: no moving time is made up, the pace uses elapsed time.
        let item = FeedItem(record: Self.record(.running), pictures: [], units: .metric, pictureSize: nil)
        #expect(item.movingTime == nil && item.elapsedTime == 3000 && item.pace?.value == 300)
    }

    @Test func aRideGivesItsSpeedAndOtherActivitiesNeither() {
        // 40 km in 1:20:00: 30 km/h, 18.64 mph.
        let ride = Self.record(.cycling, distance: 40_000, elapsed: 4800)
        #expect(
            FeedItem(record: ride, pictures: [], units: .metric, pictureSize: nil).speed == Quantity(value: 30, unit: .kilometresPerHour))
        #expect(FeedItem(record: ride, pictures: [], units: .imperial, pictureSize: nil).speed == Quantity(value: 18.64, unit: .milesPerHour))
        let other = FeedItem(record: Self.record(.other), pictures: [], units: .metric, pictureSize: nil)
        #expect(other.pace == nil && other.speed == nil)
        // No distance, or no time: no pace rather than an infinite one.
        #expect(FeedItem(record: Self.record(.running, distance: 0), pictures: [], units: .metric, pictureSize: nil).pace == nil)
        #expect(FeedItem(record: Self.record(.running, elapsed: 0), pictures: [], units: .metric, pictureSize: nil).pace == nil)
    }

    @Test func theLocalStartCarriesTheZonesOffset() {
        let item = FeedItem(record: Self.record(.running, offset: -5 * 3600 - 1800), pictures: [], units: .metric, pictureSize: nil)
        #expect(item.start == "2022-11-12T15:58:25Z")
        #expect(item.localStart == "2022-11-12T10:28:25-05:30" && item.timeZoneOffset == -19800)
        #expect(item.timeZone == nil)
        var zoned = Self.record(.running, offset: -5 * 3600 - 1800)
        zoned.timeZone = "Asia/Kolkata"
        #expect(FeedItem(record: zoned, pictures: [], units: .metric, pictureSize: nil).timeZone == "Asia/Kolkata")
    }

    /// Float noise from summing steps is rounded to the unit the summaries keep (issue 36).
    @Test func figuresCarryNoFloatNoise() throws {
        var record = Self.record(.running)
        record.elevationGain = 21.599999999999966
        record.distance = 9008.220000000001
        record.calories = 516.0000000001
        let item = FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil)
        #expect(item.elevationGain == Quantity(value: 21.6, unit: .metres) && item.distance == Quantity(value: 9.00822, unit: .kilometres))
        #expect(item.calories == 516)
        let text = String(decoding: Data(item.json()), as: UTF8.self)
        #expect(
            text.contains(#""elevationGain":{"unit":"m","value":21.6}"#) && text.contains(#""distance":{"unit":"km","value":9.00822}"#), "\(text)")
    }

    /// Every length in the owner's units with its unit named, as pace and speed are (issue 36):
    /// with imperial units a workout's distance is in miles and its climb in feet, not bare metres.
    @Test func lengthsCarryTheirUnitInTheOwnersUnits() throws {
        var record = Self.record(.running, distance: 10_012.5)
        record.elevationGain = 152.4
        let metric = FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil)
        #expect(metric.distance == Quantity(value: 10.0125, unit: .kilometres))
        #expect(metric.elevationGain == Quantity(value: 152.4, unit: .metres))
        let imperial = FeedItem(record: record, pictures: [], units: .imperial, pictureSize: nil)
        // 10,012.5 m / 1,609.344 = 6.2214791… mi, to a millionth; 152.4 m is 500 ft exactly.
        #expect(imperial.distance == Quantity(value: 6.221479, unit: .miles))
        #expect(imperial.elevationGain == Quantity(value: 500, unit: .feet))
        #expect(imperial.pace?.unit == .secondsPerMile)
        #expect(abs((imperial.distance.metres ?? 0) - 10_012.5) < 0.002)
        // No distance: 0 in the owner's unit, not a missing member.
        #expect(FeedItem(record: Self.record(.other, distance: 0), pictures: [], units: .imperial, pictureSize: nil).distance.unit == .miles)
        // An item an older coordinator wrote, in bare metres, reads as kilometres and metres.
        var old = try #require(try JSONSerialization.jsonObject(with: Data(metric.json())) as? [String: Any])
        old["distance"] = 10_012.5
        old["elevationGain"] = 152.4
        let decoded = try JSONDecoder().decode(FeedItem.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(decoded.distance == metric.distance && decoded.elevationGain == metric.elevationGain)
    }

    /// Heart rate as a device measures it: whole beats a minute, halves up (docs/gateway.md, "Figures").
    @Test(arguments: [(146.49, 146.0), (146.5, 147.0), (146.51, 147.0), (60.0, 60.0), (0.4, 0.0)])
    func heartRateIsInWholeBeats(measured: Double, shown: Double) {
        var record = Self.record(.running)
        record.heartRateAverage = measured
        record.heartRateMax = measured + 20.5
        let item = FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil)
        #expect(item.heartRateAverage == (shown > 0 ? shown : nil))
        #expect(item.heartRateMax == (measured + 20.5).rounded())
    }

    @Test func noHeartRateIsNoFigure() {
        #expect(FeedItem.beatsPerMinute(nil) == nil && FeedItem.beatsPerMinute(.nan) == nil && FeedItem.beatsPerMinute(0) == nil)
        #expect(FeedItem.beatsPerMinute(-3) == nil && FeedItem.beatsPerMinute(.infinity) == nil)
    }

    @Test func theHandWrittenJSONIsTheCodableDocument() throws {
        var record = Self.record(.cycling, moving: 3500)
        record.name = "Tour \"du\" lac\n\u{1}é"
        record.heartRateMax = 181
        record.elevationGain = .nan
        record.pointCount = 42
        let pictures = [
            PictureRecord(
                picture: PictureID(workoutID: record.id, kind: .route, theme: .dark, scale: 2), status: .generated, reason: nil,
                cacheKey: String(repeating: "ab", count: 32), attempts: 0, updatedAt: Date()),
            PictureRecord(
                picture: PictureID(workoutID: record.id, kind: .heatmap, theme: .light), status: .failedNoRetry, reason: "no route",
                cacheKey: nil, attempts: 1, updatedAt: Date()),
            // A key that is not one never becomes a URL.
            PictureRecord(
                picture: PictureID(workoutID: record.id, kind: .route, theme: .light), status: .generated, reason: nil,
                cacheKey: "../../etc/passwd", attempts: 0, updatedAt: Date()),
        ]
        var item = FeedItem(record: record, pictures: pictures, units: .imperial, pictureSize: (512, 384))
        #expect(item.elevationGain == nil, "not finite: left out")
        #expect(item.pictureKinds == [.route, .pace, .share, .story], "no heart-rate samples: no heatmap; a climb that is not finite: no elevation")
        record.heartRateSamples = 12
        record.elevationGain = 30
        #expect(FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil).pictureKinds == PictureKind.allCases)
        record.pointCount = 0
        #expect(FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil).pictureKinds == [], "no route: no picture")
        #expect(item.pictures.map(\.url) == ["/v1/pictures/\(String(repeating: "ab", count: 32)).png", nil, nil])
        #expect(item.pictures.map(\.reason) == [nil, "no route", nil])
        item.heartRateAverage = 148
        item.calories = 512.25
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for page in [FeedPage(items: [item, item], next: "1.5|x"), FeedPage(items: [], next: nil)] {
            let written = page.json()
            #expect(try JSONDecoder().decode(FeedPage.self, from: Data(written)) == page)
            let byEncoder = try JSONSerialization.jsonObject(with: JSONEncoder().encode(page)) as? NSDictionary
            let byHand = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
            #expect(byHand != nil && byHand == byEncoder)
            // Byte for byte the document JSONEncoder writes with sorted keys: the same members in
            // the same (sorted) order, the numbers written alike.
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: try sorted.encode(page), as: UTF8.self))
        }
        // timeZone is written, null while unknown.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(item.json())) as? [String: Any])
        #expect(object["timeZone"] is NSNull && object["pace"] == nil)
        // Without a slash: JSONEncoder writes "/" as "\/", the hand-written writer as it is (both JSON).
        item.timeZone = "UTC"
        #expect(try JSONDecoder().decode(FeedItem.self, from: Data(item.json())) == item)
        item.timeZone = "America/Argentina/Buenos_Aires"
        #expect(try JSONDecoder().decode(FeedItem.self, from: Data(item.json())) == item)
        #expect((object["speed"] as? [String: Any])?["unit"] as? String == "mph")
    }

    /// The order of an item's keys, fixed (sorted, at every level: docs/gateway.md, "Figures"):
    /// this fails when a member is added out of order or the writer's order changes.
    @Test func keysAreWrittenInSortedOrder() throws {
        var record = Self.record(.running, moving: 2900)
        record.elevationGain = 12
        record.heartRateAverage = 140
        record.heartRateMax = 170
        record.calories = 300
        record.timeZone = "Europe/Paris"
        let picture = PictureRecord(
            picture: PictureID(workoutID: record.id, kind: .route, theme: .dark, scale: 2), status: .generated, reason: nil,
            cacheKey: String(repeating: "cd", count: 32), attempts: 0, updatedAt: Date())
        let item = FeedItem(record: record, pictures: [picture], units: .metric, pictureSize: (512, 384))
        let keys = JSONKeys.inOrder(item.json())
        #expect(
            keys == [
                "activity", "calories", "distance", "unit", "value", "elapsedTime", "elevationGain", "unit", "value", "end",
                "heartRateAverage", "heartRateMax", "id", "localStart", "movingTime", "name", "pace", "unit", "value", "pictureKinds",
                "pictures", "height", "kind", "scale", "status", "theme", "url", "width", "pointCount", "start", "timeZone",
                "timeZoneOffset", "title",
            ])
        #expect(JSONKeys.sortedAtEveryLevel(FeedPage(items: [item], next: "x").json()))
        // The check can fail: out of order at the top, or inside a nested object.
        #expect(!JSONKeys.sortedAtEveryLevel(Array(#"{"b":1,"a":2}"#.utf8)))
        #expect(!JSONKeys.sortedAtEveryLevel(Array(#"{"a":[{"x":1},{"z":{"q":1,"p":2}}],"b":"{\"c\""}"#.utf8)))
        #expect(JSONKeys.sortedAtEveryLevel(Array(#"{"a":[{"x":1},{"z":{"p":1,"q":2}}],"b":"{\"c\""}"#.utf8)))
    }

    /// Issue 37, item 9: an offset with seconds is written with them, so that the text names the
    /// instant it was given (cut to minutes, Monrovia's 1960 noon read 30 s off); whole minutes as before.
    @Test(arguments: [
        (-299_160_000, -2670, "1960-07-09T11:15:30-00:44:30"),  // Africa/Monrovia until 1972
        (-3_000_000_000, 19_270, "1874-12-08T00:01:10+05:21:10"),  // Asia/Kolkata's Madras time
        (0, 3600, "1970-01-01T01:00:00+01:00"), (0, -16_200, "1969-12-31T19:30:00-04:30"), (0, 0, "1970-01-01T00:00:00+00:00"),
        (0, 86_399, "1970-01-01T18:00:00+18:00"),  // beyond ±18 h: ±18 h
    ])
    func anOffsetWithSecondsKeepsThem(seconds: Int, offset: Int, text: String) {
        #expect(FeedItem.localTime(Date(timeIntervalSince1970: Double(seconds)), offset: offset) == text)
    }
}
