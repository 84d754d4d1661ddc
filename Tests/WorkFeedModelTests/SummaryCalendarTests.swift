import Foundation
import Testing
import WorkFeedModel

/// The owner's calendar for summaries (docs/summaries.md): local days, where buckets start in
/// each period, daylight-saving days of 23 and 25 hours, and time in heart-rate zones.
@Suite struct SummaryCalendarTests {
    let berlin = SummaryCalendar(timeZone: "Europe/Berlin", firstWeekday: .monday)!

    @Test func localDaysFollowTheCivilCalendar() {
        #expect(SummaryCalendar.day(year: 1970, month: 1, day: 1) == 0)
        #expect(SummaryCalendar.day(year: 2000, month: 3, day: 1) == 11_017)
        #expect(SummaryCalendar.day(year: 1969, month: 12, day: 31) == -1)
        for day in stride(from: -800_000, through: 800_000, by: 997) {
            let date = SummaryCalendar.civil(day)
            #expect(SummaryCalendar.day(year: date.year, month: date.month, day: date.day) == day)
        }
        #expect(SummaryCalendar.dateText(SummaryCalendar.day(year: 2024, month: 2, day: 29)) == "2024-02-29")
        #expect(SummaryCalendar.day(dateText: "2026-03-30") == SummaryCalendar.day(year: 2026, month: 3, day: 30))
        for bad in ["2026-02-30", "2026-13-01", "26-03-30", "2026-3-30", "yesterday", "2026-03-30T00:00:00Z", ""] {
            #expect(SummaryCalendar.day(dateText: bad) == nil, "\(bad)")
        }
    }

    /// A workout at 23:30 local on 30 March 2024 (22:30 UTC) belongs to the 30th, not to the 31st
    /// (strict start), and one at 00:30 local on the 31st (23:30 UTC on the 30th) to the 31st.
    @Test func aWorkoutBelongsToTheLocalDayItStarted() {
        let lateEvening = Date(timeIntervalSince1970: 1_711_837_800)  // 2024-03-30T22:30:00Z
        #expect(SummaryCalendar.dateText(berlin.day(of: lateEvening)) == "2024-03-30")
        let afterMidnight = Date(timeIntervalSince1970: 1_711_841_400)  // 2024-03-30T23:30:00Z
        #expect(SummaryCalendar.dateText(berlin.day(of: afterMidnight)) == "2024-03-31")
        let utc = SummaryCalendar(timeZone: "UTC", firstWeekday: .monday)!
        #expect(SummaryCalendar.dateText(utc.day(of: afterMidnight)) == "2024-03-30")
    }

    @Test func daylightSavingDaysLast23And25Hours() {
        let spring = SummaryCalendar.day(year: 2024, month: 3, day: 31)
        let autumn = SummaryCalendar.day(year: 2024, month: 10, day: 27)
        func hours(_ day: Int) -> Double { berlin.startInstant(ofDay: day + 1).timeIntervalSince(berlin.startInstant(ofDay: day)) / 3600 }
        #expect(hours(spring) == 23)
        #expect(hours(autumn) == 25)
        #expect(hours(spring + 1) == 24)
        #expect(berlin.localText(berlin.startInstant(ofDay: spring)) == "2024-03-31T00:00:00+01:00")
        #expect(berlin.localText(berlin.startInstant(ofDay: spring + 1)) == "2024-04-01T00:00:00+02:00")
        // The week holding the spring change is 167 hours long.
        let week = berlin.bucketStart(.week, containing: spring)
        #expect(SummaryCalendar.dateText(week) == "2024-03-25")
        let length = berlin.startInstant(ofDay: berlin.bucketEnd(.week, start: week)).timeIntervalSince(berlin.startInstant(ofDay: week))
        #expect(length == 167 * 3600)
    }

    @Test(arguments: [
        (Weekday.monday, "2026-03-30"), (.sunday, "2026-03-29"), (.saturday, "2026-03-28"), (.wednesday, "2026-04-01"),
    ])
    func weeksStartOnTheOwnersFirstWeekday(first: Weekday, expected: String) {
        let calendar = SummaryCalendar(timeZone: "Europe/Berlin", firstWeekday: first)!
        // Wednesday 1 April 2026, and the six days after it, are in the week that starts on `expected`
        // or a week later.
        let wednesday = SummaryCalendar.day(year: 2026, month: 4, day: 1)
        let start = calendar.bucketStart(.week, containing: wednesday)
        #expect(SummaryCalendar.dateText(start) == expected)
        #expect(calendar.bucketEnd(.week, start: start) == start + 7)
        for day in start..<(start + 7) { #expect(calendar.bucketStart(.week, containing: day) == start) }
    }

    @Test func monthsAndYearsStartOnTheirFirstDay() {
        let leap = SummaryCalendar.day(year: 2024, month: 2, day: 29)
        #expect(SummaryCalendar.dateText(berlin.bucketStart(.month, containing: leap)) == "2024-02-01")
        #expect(SummaryCalendar.dateText(berlin.bucketEnd(.month, start: berlin.bucketStart(.month, containing: leap))) == "2024-03-01")
        let december = SummaryCalendar.day(year: 2025, month: 12, day: 31)
        #expect(SummaryCalendar.dateText(berlin.bucketEnd(.month, start: berlin.bucketStart(.month, containing: december))) == "2026-01-01")
        #expect(SummaryCalendar.dateText(berlin.bucketStart(.year, containing: december)) == "2025-01-01")
        #expect(SummaryCalendar.dateText(berlin.bucketEnd(.year, start: berlin.bucketStart(.year, containing: december))) == "2026-01-01")
    }

    /// Each interval between samples counts in the zone of its first sample; a gap over a minute
    /// counts nowhere; a bound belongs to the zone it starts.
    @Test func timeInZonesCountsTheIntervalsBetweenSamples() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let samples = [(0, 100.0), (10, 120), (40, 150), (50, 170), (200, 110), (205, 110)].map {
            HeartRateSample(time: start.addingTimeInterval(Double($0.0)), bpm: $0.1)
        }
        // Zones: below 120, 120..<150, 150..<170, 170 and above.
        #expect(SummaryContribution.zoneTimes(samples, bounds: [120, 150, 170]) == [15_000, 30_000, 10_000, 0])
        #expect(SummaryContribution.zoneTimes([], bounds: [120]) == [0, 0])
        #expect(SummaryContribution.zoneTimes(Array(samples.prefix(1)), bounds: [120]) == [0, 0])
    }

    @Test func rangesOverTenYearsAndBackwardsAreRefusedNamingTheParameter() {
        let start = SummaryCalendar.day(year: 2016, month: 1, day: 1)
        #expect(throws: Never.self) { try SummaryRangeError.check(from: start, to: start + SummaryPeriod.maximumRangeDays) }
        let long = #expect(throws: SummaryRangeError.self) { try SummaryRangeError.check(from: start, to: start + 3654) }
        #expect(long?.code == .rangeTooLong)
        #expect(long?.field == "to")
        let backwards = #expect(throws: SummaryRangeError.self) { try SummaryRangeError.check(from: start + 1, to: start) }
        #expect(backwards?.field == "from")
    }
}

/// Where a daylight-saving change skips midnight (America/Havana moved its clocks at 00:00 until
/// 2012; America/Santiago does still), a day starts at the first instant after it, as Foundation's
/// calendar says; every other day at local midnight.
@Suite struct SummaryCalendarMidnightTests {
    @Test(arguments: ["America/Santiago", "America/Havana", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu"])
    func everyDayStartsWhereTheCalendarSays(zone: String) throws {
        let calendar = try #require(SummaryCalendar(timeZone: zone, firstWeekday: .monday))
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = calendar.timeZone
        for day in SummaryCalendar.day(year: 2008, month: 1, day: 1)..<SummaryCalendar.day(year: 2012, month: 1, day: 1) {
            let start = calendar.startInstant(ofDay: day)
            #expect(gregorian.startOfDay(for: start.addingTimeInterval(3 * 3600)) == start, "\(zone) \(SummaryCalendar.dateText(day))")
        }
    }
}

/// Issue 37, item 9: a day a zone skipped altogether has no instant, so no length, and the day
/// before it ends where the day after it starts; every other day of those years as before.
@Suite struct SummaryCalendarSkippedDayTests {
    @Test(arguments: [("Pacific/Apia", 2011, 12, 30), ("Pacific/Kiritimati", 1994, 12, 31), ("Pacific/Fakaofo", 2011, 12, 30)])
    func aSkippedDayHasNoLength(zone: String, year: Int, month: Int, day: Int) throws {
        let calendar = try #require(SummaryCalendar(timeZone: zone, firstWeekday: .monday))
        let skipped = SummaryCalendar.day(year: year, month: month, day: day)
        let before = calendar.startInstant(ofDay: skipped - 1)
        let after = calendar.startInstant(ofDay: skipped + 1)
        #expect(calendar.startInstant(ofDay: skipped) == after, "\(zone)")
        // The day before lasts until the day after begins (24 hours: it is the clocks that jumped).
        #expect(after.timeIntervalSince(before) == 86_400, "\(zone)")
        #expect(calendar.day(of: after.addingTimeInterval(-1)) == skipped - 1 && calendar.day(of: after) == skipped + 1)
        // Every day around it that exists starts where Foundation's calendar says.
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = calendar.timeZone
        for other in (skipped - 400)..<(skipped + 400) where other != skipped {
            let start = calendar.startInstant(ofDay: other)
            #expect(gregorian.startOfDay(for: start.addingTimeInterval(3 * 3600)) == start, "\(zone) \(SummaryCalendar.dateText(other))")
        }
    }
}
