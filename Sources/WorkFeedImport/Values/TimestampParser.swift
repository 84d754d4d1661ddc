import Foundation

/// Parses ISO 8601 / RFC 3339 timestamps from bytes as workout files write them:
/// `2020-06-01T14:52:40Z`, `…T14:52:40.123Z`, `…T14:52:40.123456+01:00`, `+0115`, `+01`, a space
/// instead of `T`, or no zone at all (taken as UTC, which GPX prescribes). A numeric offset may
/// follow one space, as in Apple Health's `2019-06-11 15:00:00 -0700`.
enum TimestampParser {
    struct Timestamp: Sendable, Hashable {
        var date: Date
        /// Seconds east of UTC when the text has a numeric offset other than 0; `nil` for UTC in any
        /// spelling (`Z`, `+00:00`, `-00:00`, `+0000`, `+00`) or no zone, which say nothing about
        /// where the workout happened (docs/import.md, "Time zones").
        var offset: Int?
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> Timestamp? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var cursor = Cursor(bytes: bytes)
        cursor.trim()
        guard let year = cursor.number(4), cursor.take(dash) else { return nil }
        guard let month = cursor.number(2), cursor.take(dash) else { return nil }
        guard let day = cursor.number(2), cursor.take(letterT) || cursor.take(lowerT) || cursor.take(space) else { return nil }
        guard let hour = cursor.number(2), cursor.take(colon) else { return nil }
        guard let minute = cursor.number(2), cursor.take(colon) else { return nil }
        guard let second = cursor.number(2) else { return nil }
        guard month >= 1, month <= 12, day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }

        var fraction = 0.0
        if cursor.take(dot) || cursor.take(comma) {
            guard let value = cursor.fraction() else { return nil }
            fraction = value
        }

        // Apple Health writes `2019-06-11 15:00:00 -0700`: one space before a numeric offset.
        cursor.skipSpaceBeforeSign()
        var offset: Int?
        if cursor.take(letterZ) || cursor.take(lowerZ) {
            offset = nil
        } else if !cursor.atEnd {
            let negative = cursor.take(minus)
            guard negative || cursor.take(plus) else { return nil }
            guard let hours = cursor.number(2), hours <= 23 else { return nil }
            var minutes = 0
            if !cursor.atEnd {
                _ = cursor.take(colon)
                guard let value = cursor.number(2), value <= 59 else { return nil }
                minutes = value
            }
            let magnitude = hours * 3600 + minutes * 60
            // `+00:00`, `-00:00`, `+0000` and `+00` are UTC, as `Z` is: exporters (MapMyRide, Strava,
            // Apple Health on a phone set to UTC) write UTC that way, not the recorder's local offset.
            offset = magnitude == 0 ? nil : (negative ? -magnitude : magnitude)
        }
        guard cursor.atEnd else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        var seconds = days * 86_400
        seconds += hour * 3600 + minute * 60 + second
        seconds -= offset ?? 0
        return Timestamp(date: Date(timeIntervalSince1970: Double(seconds) + fraction), offset: offset)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    private static let dash: UInt8 = 0x2D
    private static let colon: UInt8 = 0x3A
    private static let dot: UInt8 = 0x2E
    private static let comma: UInt8 = 0x2C
    private static let plus: UInt8 = 0x2B
    private static let minus: UInt8 = 0x2D
    private static let space: UInt8 = 0x20
    private static let letterT: UInt8 = 0x54
    private static let lowerT: UInt8 = 0x74
    private static let letterZ: UInt8 = 0x5A
    private static let lowerZ: UInt8 = 0x7A

    /// Reads fields off the bytes, left to right.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var end: Int

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            self.end = bytes.count
        }

        var atEnd: Bool { index >= end }

        mutating func trim() {
            while index < end && Self.isSpace(bytes[index]) { index += 1 }
            while end > index && Self.isSpace(bytes[end - 1]) { end -= 1 }
        }

        mutating func skipSpaceBeforeSign() {
            guard index + 1 < end, bytes[index] == TimestampParser.space,
                bytes[index + 1] == TimestampParser.plus || bytes[index + 1] == TimestampParser.minus
            else { return }
            index += 1
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < end, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A fixed-width unsigned decimal field.
        mutating func number(_ width: Int) -> Int? {
            guard index + width <= end else { return nil }
            var value = 0
            for offset in 0..<width {
                guard let digit = Self.digit(bytes[index + offset]) else { return nil }
                value = value * 10 + digit
            }
            index += width
            return value
        }

        /// Fraction digits after the decimal mark; nanoseconds are plenty, further digits are
        /// read and dropped.
        mutating func fraction() -> Double? {
            var value = 0
            var scale = 1
            var digits = 0
            while index < end, let digit = Self.digit(bytes[index]) {
                if digits < 9 {
                    value = value * 10 + digit
                    scale *= 10
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            return Double(value) / Double(scale)
        }

        private static func digit(_ byte: UInt8) -> Int? {
            byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
        }

        private static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
