/// The length of a summary's buckets (docs/summaries.md): a day, a week (from the owner's first
/// weekday), a calendar month or a calendar year, each starting at local midnight in the owner's
/// time zone.
public enum SummaryPeriod: String, Sendable, Hashable, Codable, CaseIterable {
    case day
    case week
    case month
    case year

    /// The most days one request may span (`from` to `to`): ten years and their leap days.
    public static let maximumRangeDays = 3653
}

/// A summary request's range or date that cannot be answered: the code travels, the field names
/// the parameter (`from`, `to`), the message is for people.
public struct SummaryRangeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// Not a date such as 2026-03-30.
        case badDate = "bad-date"
        case fromAfterTo = "from-after-to"
        /// More than ``SummaryPeriod/maximumRangeDays``.
        case rangeTooLong = "range-too-long"
    }
    public var code: Code
    public var field: String
    public var message: String

    public init(_ code: Code, field: String, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }

    /// Refuses `from` after `to`, and more than ten years from one to the other (local days).
    public static func check(from: Int, to: Int) throws(SummaryRangeError) {
        guard from <= to else {
            throw SummaryRangeError(
                .fromAfterTo, field: "from", "from (\(SummaryCalendar.dateText(from))) is after to (\(SummaryCalendar.dateText(to)))")
        }
        guard to - from <= SummaryPeriod.maximumRangeDays else {
            throw SummaryRangeError(
                .rangeTooLong, field: "to",
                "from \(SummaryCalendar.dateText(from)) to \(SummaryCalendar.dateText(to)) is more than ten years: ask for at most ten at a time")
        }
    }
}
