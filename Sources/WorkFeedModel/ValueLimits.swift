public import Foundation
import WorkFeedTimeZones

/// The ranges a value must be in to be accepted from outside: a workout sent over the wire, a
/// request's body. A value outside them is refused with a ``ValueRangeError`` naming the field,
/// before it reaches the index; nothing from the wire is trusted to be reasonable (docs/security.md).
public enum ValueLimits {
    /// The earliest time a workout, a point or a sample may carry: 1900-01-01T00:00:00Z.
    public static let earliestTime = Date(timeIntervalSince1970: -2_208_988_800)
    /// The first time past the window: 2200-01-01T00:00:00Z. Every ISO-8601 writer and reader
    /// handles the years between; year 506713 (2^62 ms) breaks clients.
    public static let latestTime = Date(timeIntervalSince1970: 7_258_118_400)
    /// A time-zone offset from UTC, in seconds: ±18 hours, as ISO 8601 and Foundation allow.
    public static let timeZoneOffsetSeconds = -64_800...64_800
    /// Texts a client names things with (a workout's name, its source id, its origin).
    public static let maximumNameBytes = 1_024
    public static let maximumSourceIDBytes = 1_024
    public static let maximumOriginBytes = 4_096

    /// Whether `date` is inside the accepted window of times.
    public static func isAcceptable(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && seconds >= earliestTime.timeIntervalSince1970 && seconds < latestTime.timeIntervalSince1970
    }

    /// The window, for messages: `1900-01-01T00:00:00Z ..< 2200-01-01T00:00:00Z`.
    public static let timeWindowDescription = "1900-01-01T00:00:00Z ..< 2200-01-01T00:00:00Z"

    /// Refuses a time outside the window, naming the field.
    public static func checkTime(_ date: Date, field: @autoclosure () -> String) throws(ValueRangeError) {
        guard isAcceptable(date) else {
            throw ValueRangeError(field: field(), message: "\(describe(date)) is outside \(timeWindowDescription)")
        }
    }

    /// Refuses a text longer than `maximum` UTF-8 bytes, naming the field.
    public static func checkLength(_ text: String?, maximum: Int, field: String) throws(ValueRangeError) {
        guard let text, text.utf8.count > maximum else { return }
        throw ValueRangeError(field: field, message: "is \(text.utf8.count) bytes long, at most \(maximum)")
    }

    /// A time as it was sent: milliseconds since 1970 (ISO 8601 cannot write most of the times refused).
    static func describe(_ date: Date) -> String {
        let milliseconds = SeriesCodec.milliseconds(date)
        return "time \(milliseconds) ms since 1970"
    }
}

/// A value from outside that is out of range: names the field and says what is allowed.
public struct ValueRangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the value is, e.g. `route segment 0 point 3 time` or `timeZoneOffset`.
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

extension ImportedWorkout {
    /// Checks every value a workout brings against ``ValueLimits``: its times (start, end, each
    /// point's and each sample's), its time-zone offset and the lengths of its texts.
    /// - Throws: ``ValueRangeError`` for the first value out of range, naming it.
    public func checkRanges() throws(ValueRangeError) {
        if let start { try ValueLimits.checkTime(start, field: "start") }
        if let end { try ValueLimits.checkTime(end, field: "end") }
        if let timeZoneOffset, !ValueLimits.timeZoneOffsetSeconds.contains(timeZoneOffset) {
            throw ValueRangeError(field: "timeZoneOffset", message: "\(timeZoneOffset) s is outside ±64800 s (18 hours)")
        }
        if let timeZone, !TimeZoneMap.isZoneIdentifier(timeZone) {
            throw ValueRangeError(field: "timeZone", message: "not a time-zone id (1 to 64 of A-Z a-z 0-9 / _ - +)")
        }
        try ValueLimits.checkLength(name, maximum: ValueLimits.maximumNameBytes, field: "name")
        try ValueLimits.checkLength(sourceID, maximum: ValueLimits.maximumSourceIDBytes, field: "sourceID")
        try ValueLimits.checkLength(origin, maximum: ValueLimits.maximumOriginBytes, field: "origin")
        for (segmentIndex, segment) in route.segments.enumerated() {
            for (pointIndex, point) in segment.enumerated() {
                if let time = point.time {
                    try ValueLimits.checkTime(time, field: "route segment \(segmentIndex) point \(pointIndex) time")
                }
            }
        }
        for (index, sample) in heartRate.enumerated() {
            try ValueLimits.checkTime(sample.time, field: "heart-rate sample \(index) time")
            guard sample.bpm.isFinite else { throw ValueRangeError(field: "heart-rate sample \(index) bpm", message: "is not a number") }
        }
    }
}
