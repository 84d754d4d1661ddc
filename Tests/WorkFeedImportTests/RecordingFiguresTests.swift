import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

/// Issue 36: the figures a card shows agree with each other and with the devices, on every
/// recording in the project's test data and the demo (``Recordings``).
@Suite struct RecordingFiguresTests {
    @Test func everyRecordingIsThere() {
        // 45 and more: every accepted fixture, tracks-in-map, the demo's samples.
        #expect(Recordings.all.count >= 45, "\(Recordings.all.count) recordings")
    }

    /// Elapsed ≥ moving on every recording, in the feed's item and in what it adds to summaries.
    @Test func elapsedIsNeverLessThanMoving() {
        for recording in Recordings.all {
            let item = FeedItem(record: recording.record, pictures: [], units: .metric, pictureSize: nil)
            if let moving = item.movingTime {
                #expect((item.elapsedTime ?? -1) >= moving, "\(recording): elapsed \(item.elapsedTime ?? -1) < moving \(moving)")
            }
            let counted = SummaryContribution(record: recording.record, heartRate: [], zoneBounds: [])
            #expect(counted.elapsedTime >= counted.movingTime, "\(recording): summary elapsed < moving")
        }
    }

    /// No card claims a speed no workout moves at: a device's distance that would (OpenTracks'
    /// export with a 220 km GPS jump says 222,125 m over a timer of 56 s) gives way to the track's.
    @Test func noCardIsFasterThanAnyWorkoutMoves() throws {
        for recording in Recordings.all {
            let item = FeedItem(record: recording.record, pictures: [], units: .metric, pictureSize: nil)
            guard let seconds = item.movingTime ?? item.elapsedTime, seconds > 0 else { continue }
            #expect(recording.record.distance / seconds <= TrackFigures.maximumSpeed, "\(recording): \(recording.record.distance) m in \(seconds) s")
        }
        let openTracks = try #require(Recordings.named("opentracks_tpx-v2-hr_3seg_tz-offsets.gpx"))
        // Its two segments with more than one point, 0.001° of longitude each at 3° N.
        #expect(abs(openTracks.record.distance - 222) < 1, "\(openTracks.record.distance)")
        let said = DeviceSummary(source: "GPX TrackStatsExtension", distance: 222_125.53, duration: 56, elevationGain: 2)
        #expect(said.sanitized()?.distance == nil && said.sanitized()?.duration == 56 && said.sanitized()?.elevationGain == 2)
        #expect(DeviceSummary(source: "FIT session", distance: 5_600, duration: 56).sanitized()?.distance == 5_600)
    }

    /// The device's timer time where the file has one, read by hand from the files: the
    /// Forerunner 305's one lap (`TotalTimeSeconds` 2325.02) over 38 trackpoints spanning
    /// 1,431 s, the Fitbit ride's lap of 2,283 s whose track (463 s) starts 15:47 into it, and
    /// the Fenix 2 run's FIT session (timer 2,832 s, records spanning 2,833 s).
    @Test(arguments: [
        ("garmin-forerunner305_run_2007_3tracks_no-hr.tcx", 2325.02, 2325.02),
        ("fitbit-versa_ride_2020_hr.tcx", 2283, 2283),
        ("garmin-fenix2_run_hr_4laps.fit", 2832, 2833),
    ])
    func theDevicesTimerTimeIsTheMovingTime(name: String, moving: Double, elapsed: Double) throws {
        let recording = try #require(Recordings.named(name))
        let item = FeedItem(record: recording.record, pictures: [], units: .metric, pictureSize: nil)
        #expect(item.movingTime.map { abs($0 - moving) < 0.01 } == true, "moving \(item.movingTime ?? -1)")
        #expect(item.elapsedTime.map { abs($0 - elapsed) < 0.5 } == true, "elapsed \(item.elapsedTime ?? -1)")
    }
}

/// Issue 36: a pace (or a speed) only where it means something.
@Suite struct PaceTests {
    /// Every recording with a pace or a speed moved at least 100 m at 1 km/h or more, and every
    /// run, walk or ride that did gets one.
    @Test func aPaceOnlyWhereTheWorkoutMoved() {
        for recording in Recordings.all {
            let item = FeedItem(record: recording.record, pictures: [], units: .imperial, pictureSize: nil)
            let seconds = item.movingTime ?? item.elapsedTime
            // In miles, to a millionth: the row's metres for the rule.
            #expect(item.distance.unit == .miles && abs((item.distance.metres ?? 0) - recording.record.distance) < 0.002, "\(recording)")
            let metres = recording.record.distance
            let moved = FeedItem.moved(distance: metres, seconds: seconds)
            if item.pace != nil || item.speed != nil {
                #expect(metres >= 100 && metres / (seconds ?? .infinity) >= 1000.0 / 3600, "\(recording)")
            }
            switch FeedItem.Measure(item.activity) {
            case .pace: #expect((item.pace != nil) == moved, "\(recording)")
            case .speed: #expect((item.speed != nil) == moved, "\(recording)")
            case .none: #expect(item.pace == nil && item.speed == nil, "\(recording)")
            }
        }
    }

    /// The Apple Watch "run" of togeojson's data: 87.6 m over 2,569 s (42:49). It had a pace of
    /// 47,176 s a mile, which the page printed as "786:16 /mi" (issue 36).
    @Test func anEightyMetreRunOverFortyThreeMinutesHasNoPace() throws {
        let recording = try #require(Recordings.named("apple-watch_run_2025_3seg_partial-hr.gpx"))
        let item = FeedItem(record: recording.record, pictures: [], units: .imperial, pictureSize: nil)
        #expect(item.activity == .running && (item.distance.metres ?? 0) < 100 && (item.elapsedTime ?? 0) > 2500)
        #expect(item.pace == nil)
    }

    @Test func theRule() {
        // 80 m in 43 minutes: no pace.
        #expect(FeedItem.pace(distance: 80, seconds: 43 * 60, units: .metric) == nil)
        // 2 km in an hour and a half (1.33 km/h): a pace of 45:00 a kilometre.
        #expect(FeedItem.pace(distance: 2000, seconds: 5400, units: .metric)?.value == 2700)
        #expect(FeedItem.pace(distance: 99, seconds: 30, units: .metric) == nil)
        #expect(FeedItem.speed(distance: 50, seconds: 10, units: .metric) == nil)
        #expect(FeedItem.pace(distance: .infinity, seconds: 30, units: .metric) == nil)
        #expect(FeedItem.pace(distance: 1000, seconds: .nan, units: .metric) == nil)
    }
}

/// Issue 36: a title for every workout, and the activity from every clue its file carries.
@Suite struct TitleAndActivityTests {
    @Test func everyRecordingHasATitle() {
        for recording in Recordings.all {
            let item = FeedItem(record: recording.record, pictures: [], units: .metric, pictureSize: nil)
            #expect(!item.title.trimmingCharacters(in: .whitespaces).isEmpty, "\(recording)")
            #expect(item.title.lowercased() != "untitled", "\(recording)")
            if let name = recording.workout.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name != "Untitled" {
                #expect(item.title == name, "\(recording)")
            }
        }
    }

    /// Garmin Connect's "Untitled" run gets the part of the day where it started (its zone looked
    /// up from its first position).
    @Test func anUntitledRunIsNamedByItsTimeOfDay() throws {
        let recording = try #require(Recordings.named("garmin-connect_run_2012_gpxtpx-hr.gpx"))
        #expect(recording.workout.name == "Untitled")
        let item = FeedItem(record: recording.record, pictures: [], units: .metric, pictureSize: nil)
        let localStart = try #require(item.localStart)
        let hour = try #require(Int(localStart.dropFirst(11).prefix(2)))
        let part = (5...11).contains(hour) ? "Morning" : (12...16).contains(hour) ? "Afternoon" : (17...20).contains(hour) ? "Evening" : "Night"
        #expect(item.title == part + " run", "\(item.title) at \(item.localStart ?? "")")
    }

    @Test(arguments: [
        ("04:59", ActivityType.running, "Night run"), ("05:00", .running, "Morning run"), ("11:59", .walking, "Morning walk"),
        ("12:00", .cycling, "Afternoon ride"), ("16:59", .other, "Afternoon workout"), ("17:00", .running, "Evening run"),
        ("20:59", .walking, "Evening walk"), ("21:00", .cycling, "Night ride"),
    ])
    func aTitleFromThePartOfTheDay(time: String, activity: ActivityType, title: String) {
        #expect(FeedItem.title(name: nil, activity: activity, localStart: "2026-11-21T\(time):00+01:00") == title)
        #expect(FeedItem.title(name: "  ", activity: activity, localStart: "2026-11-21T\(time):00+01:00") == title)
        #expect(FeedItem.title(name: " Leiden Fietsen ", activity: activity, localStart: nil) == "Leiden Fietsen")
    }

    @Test func withoutAStartTheActivityAlone() {
        #expect(FeedItem.title(name: nil, activity: .running, localStart: nil) == "Run")
        #expect(FeedItem.title(name: "Untitled", activity: .other, localStart: "garbage") == "Workout")
    }

    /// The files' words, where their type says nothing: the runpandas run's name (Portuguese,
    /// "Wednesday morning run") and OpenTracks' export names (German: ride, walk, hike), whose
    /// `<type>` is `unknown`. A type the file gives still comes first ("casual stroll" is typed
    /// running).
    @Test(arguments: [
        ("runpandas_run_2021_sparse-hr-sparse-ele.gpx", ActivityType.running),
        ("Zeeland__Activities__Radfahrt__Term_Link_D8_2015__2025-08-31_09_57_05.835_Zwin_und_Nieuwvliet.gpx", .cycling),
        ("Zeeland__Activities__Spaziergang__Brooks_Caldera_5__2025-08-30_20_29_18.085_BC_Cadzand-Bad.gpx", .walking),
        ("Zeeland__Activities__Wanderung__Brooks_Caldera_5__2025-08-29_20_12_17.410_Cadzand-Bad.gpx", .walking),
        ("garmin-connect_run_2017_ns3-hr-cad.gpx", .running),
        ("garmin-vivoactive-hr_pool-swim_no-positions.tcx", .other),
    ])
    func theActivityComesFromTheFilesWords(name: String, activity: ActivityType) throws {
        #expect(try #require(Recordings.named(name)).workout.activity == activity)
    }

    @Test func wordsCountWhole() {
        #expect(ActivityType(words: "runkeeper export") == nil)
        #expect(ActivityType(words: "Brunch") == nil)
        #expect(ActivityType(words: "Morning Run") == .running)
        #expect(ActivityType(words: "Vélo du dimanche") == .cycling)
        #expect(ActivityType(words: "") == nil && ActivityType(words: nil) == nil)
    }
}
