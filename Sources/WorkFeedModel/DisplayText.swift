extension String {
    /// This text made safe to put in a log line or on a terminal: control characters (line
    /// breaks, escape sequences, C1 controls such as U+009B) and the invisible format characters
    /// that reorder text (bidirectional overrides, U+202E) are written as `\n`, `\r`, `\t` or
    /// `\u{XX}`, so that a name from the wire can neither forge a log line nor drive an operator's
    /// terminal. Everything else is left as it is.
    public var escapedForDisplay: String {
        guard unicodeScalars.contains(where: \.needsEscapingForDisplay) else { return self }
        var out = ""
        out.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard scalar.needsEscapingForDisplay else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }
}

extension String {
    /// JSON text (as JSONEncoder writes it) made safe for a terminal or a log line without
    /// changing what it decodes to: the control and format characters JSONEncoder leaves as they
    /// are (DEL, C1 controls such as U+009B, bidirectional overrides) become `\uXXXX` escapes.
    /// Everything below U+0020 is already escaped inside strings; outside them it is layout.
    public var jsonEscapedForDisplay: String {
        guard unicodeScalars.contains(where: { $0.value >= 0x20 && $0.needsEscapingForDisplay }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.value >= 0x20, scalar.needsEscapingForDisplay {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// Control characters (Cc) and format characters (Cf: bidirectional controls, zero-width
    /// joiners and the like): what ``Swift/String/escapedForDisplay`` escapes.
    public var needsEscapingForDisplay: Bool {
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        guard value >= 0xAD else { return false }
        return properties.generalCategory == .format
    }
}
