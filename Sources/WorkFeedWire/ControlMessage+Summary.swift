public import WorkFeedModel

/// SUMMARY: an owner's totals per day, week, month or year (docs/summaries.md), read from the
/// index's buckets; answered with a ``SummaryReport``.
///
/// `from` and `to` are local dates (`2026-03-30`) in the owner's time zone; the reply has every
/// bucket from the one holding `from` to the one holding `to`. Without `to`, today; without
/// `from`, the twelve buckets up to `to`'s.
public struct SummaryRequest: Codable, Sendable, Hashable {
    public var owner: String
    public var period: SummaryPeriod
    public var from: String?
    public var to: String?
    public var activity: ActivityType?

    public init(owner: String, period: SummaryPeriod, from: String? = nil, to: String? = nil, activity: ActivityType? = nil) {
        self.owner = owner
        self.period = period
        self.from = from
        self.to = to
        self.activity = activity
    }

    /// The local days of `from` and `to`, checked: each a date, `from` not after `to`, at most
    /// ten years apart.
    /// - Throws: ``SummaryRangeError`` naming the field.
    public func days() throws(SummaryRangeError) -> (from: Int?, to: Int?) {
        var days: [Int?] = []
        for (name, text) in [("from", from), ("to", to)] {
            guard let text else {
                days.append(nil)
                continue
            }
            guard let day = SummaryCalendar.day(dateText: text) else {
                throw SummaryRangeError(
                    .badDate, field: name,
                    "\(name) must be a date from 1900-01-01 to 2199-12-31, such as 2026-03-30, is '\(String(text.prefix(40)).escapedForDisplay)'")
            }
            days.append(day)
        }
        if let first = days[0], let last = days[1] { try SummaryRangeError.check(from: first, to: last) }
        return (days[0], days[1])
    }
}
