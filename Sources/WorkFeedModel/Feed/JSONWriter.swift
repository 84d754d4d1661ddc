/// Writes JSON by hand, for the documents written on every request (a feed page), where
/// Foundation's JSONEncoder was most of the time spent. The caller writes keys in the order it
/// wants (sorted, for the control protocol's convention); strings are escaped as RFC 8259 asks,
/// and numbers that are not finite, which JSON cannot hold, are the caller's to leave out.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written has no member yet, one flag per open level.
    private var empty: [Bool] = []

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        empty.append(true)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        empty.removeLast()
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        empty.append(true)
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        empty.removeLast()
    }

    /// A member's key; its value follows.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        // The value after a key needs no comma.
        if !empty.isEmpty { empty[empty.count - 1] = true }
    }

    public mutating func string(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A finite number: whole ones as integers (as JSONEncoder writes them), others in Swift's
    /// shortest form that reads back the same. Not finite: 0 (JSON has no such number).
    public mutating func number(_ value: Double) {
        guard value.isFinite else { return integer(0) }
        if value == value.rounded(), abs(value) < 1e15 { return integer(Int(value)) }
        separate()
        bytes.append(contentsOf: value.description.utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// `key: value` for a present value; nothing for an absent one.
    public mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// `key: value` for a present, finite number; nothing otherwise.
    public mutating func member(_ name: StaticString, _ value: Double?) {
        guard let value, value.isFinite else { return }
        key(name)
        number(value)
    }

    /// `key: value` for a present integer; nothing otherwise.
    public mutating func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    private mutating func separate() {
        guard !empty.isEmpty else { return }
        if empty[empty.count - 1] {
            empty[empty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
