import Foundation
import Testing
import WorkFeedModel

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
        #expect(metric.pace == FeedItem.Rate(value: 290, unit: .secondsPerKilometre) && metric.speed == nil)
        let imperial = FeedItem(record: Self.record(.running, moving: 2900), pictures: [], units: .imperial, pictureSize: nil)
        #expect(imperial.pace == FeedItem.Rate(value: 466.7, unit: .secondsPerMile))
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
            FeedItem(record: ride, pictures: [], units: .metric, pictureSize: nil).speed == FeedItem.Rate(value: 30, unit: .kilometresPerHour))
        #expect(FeedItem(record: ride, pictures: [], units: .imperial, pictureSize: nil).speed == FeedItem.Rate(value: 18.64, unit: .milesPerHour))
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
        #expect(item.elevationGain == 21.6 && item.distance == 9008.22 && item.calories == 516)
        let text = String(decoding: try JSONEncoder().encode(item), as: UTF8.self)
        #expect(text.contains(#""elevationGain":21.6"#) && text.contains(#""distance":9008.22"#), "\(text)")
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
        #expect(item.pictureKinds == [.route], "no heart-rate samples: no heatmap")
        record.heartRateSamples = 12
        #expect(FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil).pictureKinds == [.route, .heatmap])
        record.pointCount = 0
        #expect(FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil).pictureKinds == [], "no route: no picture")
        #expect(item.pictures.map(\.url) == ["/v1/pictures/\(String(repeating: "ab", count: 32)).png", nil, nil])
        #expect(item.pictures.map(\.reason) == [nil, "no route", nil])
        for page in [FeedPage(items: [item, item], next: "1.5|x"), FeedPage(items: [], next: nil)] {
            let written = page.json()
            #expect(try JSONDecoder().decode(FeedPage.self, from: Data(written)) == page)
            let byEncoder = try JSONSerialization.jsonObject(with: JSONEncoder().encode(page)) as? NSDictionary
            let byHand = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
            #expect(byHand != nil && byHand == byEncoder)
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
}
