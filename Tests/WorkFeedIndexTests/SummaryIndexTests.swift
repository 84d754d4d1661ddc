import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Summaries kept in the index's transactions (docs/summaries.md): what one workout adds, the
/// extremes found again when the workout holding them goes, undated workouts in no bucket, the
/// default time zone following the latest workout, and a rebuild after a settings change that
/// leaves the same buckets as counting from nothing.
@Suite struct SummaryIndexTests {
    /// A run of `metres` in `seconds`, starting at `start` (UTC seconds), recorded in `zone`.
    func run(
        _ id: String, start: Int, metres: Double, seconds: Int, activity: ActivityType = .running, maxHR: Double? = nil,
        zone: String = "Europe/Berlin"
    ) -> ImportedWorkout {
        let date = Date(timeIntervalSince1970: Double(start))
        let samples = (0..<13).map { HeartRateSample(time: date.addingTimeInterval(Double($0 * 5)), bpm: 100 + Double($0 * 8)) }
        return ImportedWorkout(
            source: .fit, sourceID: id, activity: activity, heartRate: samples, start: date, end: date.addingTimeInterval(Double(seconds)),
            timeZoneOffset: TimeZone(identifier: zone)!.secondsFromGMT(for: date), timeZone: zone, origin: id,
            device: DeviceSummary(source: "test", distance: metres, calories: 100, heartRateAverage: 140, heartRateMax: maxHR, elevationGain: 10))
    }

    func week(_ index: WorkoutIndex, owner: String = "alice", from: String = "2026-03-30", activity: ActivityType? = nil) throws -> SummaryReport {
        try index.read {
            try $0.summaries(
                owner: owner, period: .week, from: SummaryCalendar.day(dateText: from), to: SummaryCalendar.day(dateText: from), activity: activity,
                defaults: .standard)
        }
    }

    // Monday 30 March 2026 in Berlin (CEST, +02:00) is 2026-03-29T22:00:00Z.
    let monday = 1_774_821_600

    @Test func aWorkoutCountsInItsBucketsAndTheExtremesAreFoundAgainWhenItGoes() throws {
        let temporary = try TemporaryIndex()
        let index = temporary.index
        try index.write { try $0.setOwnerSettings(OwnerSettings(timeZone: "Europe/Berlin"), owner: "alice") }
        let replies = try index.write { t in
            [
                try t.importWorkout(run("long", start: monday + 3600 * 8, metres: 21_000, seconds: 7200, maxHR: 185), owner: "alice"),
                try t.importWorkout(run("fast", start: monday + 86_400 + 3600 * 8, metres: 5000, seconds: 1200, maxHR: 178), owner: "alice"),
                try t.importWorkout(run("easy", start: monday + 2 * 86_400 + 3600 * 8, metres: 8000, seconds: 3000, maxHR: 160), owner: "alice"),
                try t.importWorkout(
                    run("ride", start: monday + 3 * 86_400, metres: 40_000, seconds: 3600, activity: .cycling, maxHR: 150), owner: "alice"),
            ]
        }
        let ids = replies.map(\.id)
        var report = try week(index)
        #expect(report.timeZone == "Europe/Berlin")
        #expect(report.buckets.count == 1)
        #expect(report.buckets[0].start == "2026-03-30T00:00:00+02:00")
        #expect(report.buckets[0].end == "2026-04-06T00:00:00+02:00")
        var total = report.buckets[0].total
        #expect(total.count == 4)
        #expect(total.distance == Quantity(value: 74, unit: .kilometres))
        #expect(total.elapsedTime == 15_000)
        #expect(total.elevationGain == Quantity(value: 40, unit: .metres))
        #expect(total.calories == 400)
        #expect(total.heartRateAverage == 140)
        #expect(total.heartRateMax == 185)
        #expect(total.longest?.id == ids[3])
        #expect(total.fastest == nil)  // not across activities
        // 13 samples 5 s apart, 100 to 196 bpm: 12 intervals of 5 s in the zones of 100, 108, ... 188.
        #expect(total.timeInZones.reduce(0, +) == 4 * 60)
        var running = try #require(report.buckets[0].activities["running"])
        #expect(running.count == 3)
        #expect(running.longest?.id == ids[0])
        #expect(running.fastest?.id == ids[1])
        #expect(running.fastest?.speed == Quantity(value: 15, unit: .kilometresPerHour))  // 5 km in 20 minutes

        _ = try index.write { try $0.delete([ids[0], ids[1]], owner: "alice") }
        report = try week(index)
        total = report.buckets[0].total
        running = try #require(report.buckets[0].activities["running"])
        #expect(total.count == 2)
        #expect(total.distance == Quantity(value: 48, unit: .kilometres))
        #expect(total.heartRateMax == 160)
        #expect(running.longest?.id == ids[2])
        #expect(running.fastest?.id == ids[2])
        // The activity filter: that activity's figures are the total too.
        let rides = try week(index, activity: .cycling)
        #expect(rides.buckets[0].total.count == 1)
        #expect(rides.buckets[0].activities.keys.sorted() == ["cycling"])

        _ = try index.write { try $0.delete([ids[2], ids[3]], owner: "alice") }
        #expect(try week(index).buckets[0].total.count == 0)
        #expect(try index.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM summary_bucket") } == 0)
        #expect(try index.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM workout_summary") } == 0)
    }

    @Test func anUndatedWorkoutIsInNoBucketAndAnotherOwnersWorkoutsAreNotCounted() throws {
        let temporary = try TemporaryIndex()
        var undated = run("undated", start: monday, metres: 1000, seconds: 600)
        undated.start = nil
        undated.end = nil
        undated.heartRate = []
        try index(temporary).write { t in
            _ = try t.importWorkout(undated, owner: "alice")
            _ = try t.importWorkout(run("bob's", start: monday + 3600, metres: 1000, seconds: 600), owner: "bob")
        }
        #expect(try week(temporary.index).buckets[0].total.count == 0)
        #expect(try week(temporary.index, owner: "bob").buckets[0].total.count == 1)
    }

    func index(_ temporary: TemporaryIndex) -> WorkoutIndex { temporary.index }

    /// Without a time zone of their own, an owner's summaries are in the zone of their latest
    /// workout: a later workout in another zone rebuilds them there.
    @Test func theDefaultZoneFollowsTheLatestWorkout() throws {
        let temporary = try TemporaryIndex()
        let index = temporary.index
        // 23:30 in Berlin on Sunday 29 March is 17:30 in New York.
        let sundayNight = monday - 1800
        _ = try index.write { try $0.importWorkout(run("late", start: sundayNight, metres: 5000, seconds: 1800), owner: "alice") }
        #expect(try week(index, from: "2026-03-23").buckets[0].total.count == 1)
        #expect(try week(index, from: "2026-03-23").timeZone == "Europe/Berlin")
        _ = try index.write {
            try $0.importWorkout(run("trip", start: monday + 20 * 86_400, metres: 5000, seconds: 1800, zone: "America/New_York"), owner: "alice")
        }
        #expect(try index.read { try $0.summaryRebuilds()["alice"] } != nil)
        while try index.write({ try $0.rebuildSummariesStep(limit: 1) }) != nil {}
        let report = try week(index, from: "2026-03-23")
        #expect(report.timeZone == "America/New_York")
        #expect(report.buckets[0].start == "2026-03-23T00:00:00-04:00")
        #expect(report.buckets[0].total.count == 1)
        #expect(report.rebuilding == nil)
    }

    /// New zones, first weekday or time zone: rebuilt in steps; while it runs, new imports
    /// count once, and the result is what counting from nothing gives.
    @Test func aRebuildEndsWhereCountingFromNothingEnds() throws {
        let fresh = try TemporaryIndex()
        let rebuilt = try TemporaryIndex()
        let settings = OwnerSettings(heartRateZones: .bounds([110, 135, 170]), timeZone: "Asia/Tokyo", firstWeekday: .sunday)
        try fresh.index.write { try $0.setOwnerSettings(settings, owner: "alice") }
        let workouts = (0..<40).map { run("r\($0)", start: monday + $0 * 40_000, metres: Double(1000 + $0 * 100), seconds: 1000 + $0) }
        for workout in workouts {
            _ = try fresh.index.write { try $0.importWorkout(workout, owner: "alice") }
        }
        for workout in workouts.prefix(30) {
            _ = try rebuilt.index.write { try $0.importWorkout(workout, owner: "alice") }
        }
        try rebuilt.index.write { try $0.setOwnerSettings(settings, owner: "alice") }
        #expect(try rebuilt.index.read { try $0.summaryRebuilds()["alice"] } == SummaryRebuild(done: 0, total: 30))
        _ = try rebuilt.index.write { try $0.rebuildSummariesStep(limit: 10) }
        for workout in workouts.suffix(10) {
            _ = try rebuilt.index.write { try $0.importWorkout(workout, owner: "alice") }
        }
        while try rebuilt.index.write({ try $0.rebuildSummariesStep(limit: 10) }) != nil {}
        func rows(_ index: WorkoutIndex) throws -> [String] {
            try index.read { try Row.fetchAll($0.db, sql: "SELECT * FROM summary_bucket ORDER BY 1, 2, 3, 4").map(\.description) }
        }
        #expect(try rows(rebuilt.index) == rows(fresh.index))
        #expect(try rows(fresh.index).count > 20)
        let report = try week(rebuilt.index)
        #expect(report.timeZone == "Asia/Tokyo")
        #expect(report.heartRateZones == [110, 135, 170])
        #expect(report.buckets[0].start == "2026-03-29T00:00:00+09:00")
    }
}

/// Without `from`, twelve buckets up to `to`'s, within the ten years a request may span.
@Suite struct SummaryDefaultRangeTests {
    @Test(arguments: [(SummaryPeriod.day, 12), (.week, 12), (.month, 12), (.year, 10)])
    func withoutFromTheLastBucketsUpToTo(period: SummaryPeriod, count: Int) throws {
        let temporary = try TemporaryIndex()
        let report = try temporary.index.read {
            try $0.summaries(
                owner: "alice", period: period, from: nil, to: SummaryCalendar.day(year: 2026, month: 3, day: 30), activity: nil,
                defaults: .standard)
        }
        #expect(report.buckets.count == count)
        #expect(report.buckets.last?.start.hasPrefix(period == .year ? "2026-01-01" : period == .month ? "2026-03-01" : "2026-03-30") == true)
    }
}
