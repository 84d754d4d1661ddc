/// Byte classes for the reader's scanning loops: one table load per byte instead of a chain of
/// comparisons.
enum XMLByteClass {
    static let lessThan = UInt8(ascii: "<")
    static let greaterThan = UInt8(ascii: ">")
    static let ampersand = UInt8(ascii: "&")
    static let slash = UInt8(ascii: "/")
    static let question = UInt8(ascii: "?")
    static let exclamation = UInt8(ascii: "!")
    static let equals = UInt8(ascii: "=")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let hash = UInt8(ascii: "#")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let tab = UInt8(ascii: "\t")
    static let space = UInt8(ascii: " ")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let dash = UInt8(ascii: "-")

    /// Whether a byte may appear in a name. Every byte of a multi-byte UTF-8 sequence counts:
    /// names outside ASCII are rare and never matched by the readers, so they are only carried.
    /// (Comparisons rather than a table: a static table costs a lazy-initialization check per use.)
    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        let folded = byte | 0x20
        return (folded >= 0x61 && folded <= 0x7A) || (byte >= 0x30 && byte <= 0x3A) || byte == 0x5F || byte == 0x2D
            || byte == 0x2E || byte >= 0x80
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == newline || byte == tab || byte == carriageReturn
    }

    @inline(__always)
    static func isNameStart(_ byte: UInt8) -> Bool {
        isNameByte(byte) && !(byte >= 0x30 && byte <= 0x39) && byte != dash && byte != 0x2E
    }
}
