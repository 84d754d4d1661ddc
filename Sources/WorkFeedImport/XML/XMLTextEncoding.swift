/// The encodings an XML declaration may name that the reader handles. Everything is turned into
/// UTF-8 as it is read, so the rest of the reader only ever sees UTF-8.
enum XMLTextEncoding: Sendable, Hashable {
    case utf8
    case latin1
    case windows1252

    /// Maps an `encoding="…"` value; `nil` for an encoding the reader does not handle.
    init?(declaredName: String) {
        switch declaredName.lowercased() {
        case "utf-8", "utf8", "us-ascii", "ascii": self = .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1": self = .latin1
        case "windows-1252", "cp1252": self = .windows1252
        default: return nil
        }
    }

    /// Windows-1252's characters in 0x80...0x9F, where it differs from ISO-8859-1; 0 marks the
    /// five bytes it leaves undefined (they are kept as the Latin-1 control characters).
    private static let windows1252High: [UInt16] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    /// Transcodes `buffer[start...]` to UTF-8 in place. Every byte is one character in both
    /// single-byte encodings, so a chunk can be converted on its own.
    func transcodeToUTF8(_ buffer: inout [UInt8], from start: Int) {
        guard self != .utf8, start < buffer.count else { return }
        let tail = buffer[start...]
        guard tail.contains(where: { $0 >= 0x80 }) else { return }
        var out: [UInt8] = []
        out.reserveCapacity(tail.count + tail.count / 8)
        for byte in tail {
            var scalar = UInt32(byte)
            if self == .windows1252, (0x80...0x9F).contains(byte) {
                let mapped = Self.windows1252High[Int(byte - 0x80)]
                if mapped != 0 { scalar = UInt32(mapped) }
            }
            XMLTextEncoding.appendUTF8(scalar, to: &out)
        }
        buffer.replaceSubrange(start..., with: out)
    }

    /// Appends a Unicode scalar's UTF-8 bytes.
    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
