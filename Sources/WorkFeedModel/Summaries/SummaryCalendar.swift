public import Foundation
import Synchronization

/// An owner's calendar for summaries: local dates in their time zone, numbered as days since
/// 1970-01-01 (a *local day*, independent of any offset), and where each period's bucket starts.
///
/// A workout belongs to the local day on which it started (strict start); a bucket's start is
/// that day's first instant in the zone (local midnight, or the first instant after it where a
/// daylight-saving change skips midnight), so a day is 23, 24 or 25 hours long.
public struct SummaryCalendar: Sendable {
    public let timeZone: TimeZone
    public let firstWeekday: Weekday
    private let calendar: Calendar

    /// - Returns: `nil` for a time-zone id the system does not know.
    public init?(timeZone identifier: String, firstWeekday: Weekday) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(timeZone: zone, firstWeekday: firstWeekday)
    }

    public init(timeZone: TimeZone, firstWeekday: Weekday) {
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// The calendar of a zone and first weekday, made once per process: making one reads the
    /// zone's rules, which every count of a workout would otherwise do again.
    /// - Returns: `nil` for a time-zone id the system does not know.
    public static func shared(timeZone identifier: String, firstWeekday: Weekday) -> SummaryCalendar? {
        let key = "\(firstWeekday.rawValue) \(identifier)"
        if let known = made.withLock({ $0[key] }) { return known }
        guard let calendar = SummaryCalendar(timeZone: identifier, firstWeekday: firstWeekday) else { return nil }
        made.withLock { $0[key] = calendar }
        return calendar
    }

    private static let made = Mutex<[String: SummaryCalendar]>([:])

    /// The local day (days since 1970-01-01 of the local date) at `date` in this zone.
    public func day(of date: Date) -> Int {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        return Int((local / 86_400).rounded(.down))
    }

    /// The local day on which the bucket of `period` holding `day` starts.
    public func bucketStart(_ period: SummaryPeriod, containing day: Int) -> Int {
        switch period {
        case .day: return day
        case .week:
            // 1970-01-01 was a Thursday: weekday 5 in 1...7 counting from Sunday.
            let weekday = Self.modulo(day + 4, 7) + 1
            return day - Self.modulo(weekday - firstWeekday.rawValue, 7)
        case .month:
            let date = Self.civil(day)
            return Self.day(year: date.year, month: date.month, day: 1)
        case .year: return Self.day(year: Self.civil(day).year, month: 1, day: 1)
        }
    }

    /// The local day on which the bucket after the one starting on `start` starts.
    public func bucketEnd(_ period: SummaryPeriod, start: Int) -> Int {
        switch period {
        case .day: return start + 1
        case .week: return start + 7
        case .month:
            let date = Self.civil(start)
            return date.month == 12 ? Self.day(year: date.year + 1, month: 1, day: 1) : Self.day(year: date.year, month: date.month + 1, day: 1)
        case .year: return Self.day(year: Self.civil(start).year + 1, month: 1, day: 1)
        }
    }

    /// The first instant of local day `day` in this zone. A day the zone skipped altogether
    /// (Pacific/Apia's 2011-12-30: its clocks went from the 29th to the 31st) has no instant: it
    /// starts where the next day does, so it has no length, and the day before it ends there.
    public func startInstant(ofDay day: Int) -> Date {
        // No zone has skipped more than one day; the bound only keeps the loop finite.
        for next in day..<(day + 3) {
            if let start = existingStart(ofDay: next) { return start }
        }
        let noon = Double(day) * 86_400 + 43_200
        return calendar.startOfDay(for: Date(timeIntervalSince1970: noon - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: noon)))))
    }

    /// The first instant of `day`, or `nil` when no instant is on it.
    private func existingStart(ofDay day: Int) -> Date? {
        // Midnight at the offset of the instant itself, checked: it is on `day` and the second
        // before it is not. Where a change skips midnight, the calendar finds the day's start
        // from the day's noon, which is on the day unless the day was skipped.
        let midnight = Double(day) * 86_400
        var candidate = midnight - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight)))
        candidate = midnight - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: candidate)))
        let date = Date(timeIntervalSince1970: candidate)
        if self.day(of: date) == day, self.day(of: date.addingTimeInterval(-1)) == day - 1 { return date }
        let noon = midnight + 43_200
        let guess = Date(timeIntervalSince1970: noon - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: noon))))
        let start = calendar.startOfDay(for: guess)
        return self.day(of: start) == day ? start : nil
    }

    /// `date` in this zone with its offset: `2026-03-30T00:00:00+02:00`.
    public func localText(_ date: Date) -> String {
        FeedItem.localTime(date, offset: timeZone.secondsFromGMT(for: date))
    }

    /// The local day of a calendar date (proleptic Gregorian), days since 1970-01-01.
    public static func day(year: Int, month: Int, day: Int) -> Int {
        Int(ISO8601Time.days(fromCivil: Int64(year), Int64(month), Int64(day)))
    }

    /// The calendar date of a local day.
    public static func civil(_ day: Int) -> (year: Int, month: Int, day: Int) {
        let date = ISO8601Time.civil(fromDays: Int64(day))
        return (Int(date.year), Int(date.month), Int(date.day))
    }

    /// A local day written as a date, `2026-03-30`.
    public static func dateText(_ day: Int) -> String {
        let date = civil(day)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(date.year)-\(two(date.month))-\(two(date.day))"
    }

    /// The years a summary may ask about: time zones' rules before 1900 are local mean times, and
    /// nobody's workouts are there.
    public static let years = 1900...2199

    /// The local day of a date written `2026-03-30` (in ``years``), or `nil` when it is not one.
    public static func day(dateText text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), years.contains(year), (1...12).contains(month), day >= 1
        else { return nil }
        let result = Self.day(year: year, month: month, day: day)
        guard civil(result).day == day else { return nil }  // 2026-02-30
        return result
    }

    private static func modulo(_ value: Int, _ divisor: Int) -> Int { ((value % divisor) + divisor) % divisor }
}
