/// Parses decimal numbers straight from bytes, so that a million coordinates cost no `String`s.
///
/// Accepts what XML Schema's `decimal` and `double` allow in practice: an optional sign, digits
/// with an optional fraction, an optional exponent, white space around. Refuses `NaN`, `INF`,
/// hexadecimal and everything else.
enum DecimalParser {
    /// Powers of ten exactly representable as `Double`.
    /// Powers of ten exactly representable as `Double`.
    private static let exactPowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// The number in `bytes`, or `nil` when they hold anything else.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Double? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        var end = bytes.count
        while index < end && isSpace(bytes[index]) { index += 1 }
        while end > index && isSpace(bytes[end - 1]) { end -= 1 }
        guard index < end else { return nil }
        let start = index

        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var digitCount = 0
        var exponent = 0
        while index < end, let digit = digitValue(bytes[index]) {
            accumulate(digit, &mantissa, &significantDigits, &exponent, fraction: false)
            digitCount += 1
            index += 1
        }
        if index < end && bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < end, let digit = digitValue(bytes[index]) {
                accumulate(digit, &mantissa, &significantDigits, &exponent, fraction: true)
                digitCount += 1
                index += 1
            }
        }
        guard digitCount > 0 else { return nil }
        if index < end && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentNegative = false
            if index < end && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var value = 0
            var exponentDigits = 0
            while index < end, let digit = digitValue(bytes[index]) {
                if value < 100_000 { value = value * 10 + Int(digit) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -value : value
        }
        guard index == end else { return nil }

        // Clinger's fast path: both operands exact, so one rounding, the correct one.
        if significantDigits <= 15 && mantissa < (1 << 53) && abs(exponent) <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / exactPowers[-exponent] : value * exactPowers[exponent]
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return Double(text)
    }

    /// Adds a digit to the mantissa while it fits in 19 digits; beyond that only the exponent moves.
    @inline(__always)
    private static func accumulate(
        _ digit: UInt8, _ mantissa: inout UInt64, _ significantDigits: inout Int, _ exponent: inout Int, fraction: Bool
    ) {
        if mantissa == 0 && digit == 0 {
            if fraction { exponent -= 1 }
            return
        }
        if significantDigits < 19 {
            mantissa = mantissa * 10 + UInt64(digit)
            significantDigits += 1
            if fraction { exponent -= 1 }
        } else {
            significantDigits += 1
            if !fraction { exponent += 1 }
        }
    }

    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
