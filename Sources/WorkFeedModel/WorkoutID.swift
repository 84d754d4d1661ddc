public import Foundation

/// A workout's identifier in the index: a UUID, written in lower case everywhere (paths, wire, logs).
///
/// Parsing and printing are done here rather than by Foundation's `UUID(uuidString:)` and
/// `uuidString.lowercased()`, which go through `sscanf` and `printf` and showed up at several
/// microseconds a job in the coordinator's dispatch loop.
public struct WorkoutID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses a UUID (`8-4-4-4-12` hex digits, any case); `nil` when the text is not one.
    public init?(_ text: String) {
        var text = text
        guard let id = text.withUTF8(WorkoutID.init(utf8:)) else { return nil }
        self = id
    }

    /// Parses a UUID from its UTF-8 bytes, as a database column or a frame holds them.
    public init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        guard text.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var count = 0
            var high: UInt8?
            for (position, byte) in text.enumerated() {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                    continue
                }
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
                default: return false
                }
                if let first = high {
                    out[count] = first << 4 | value
                    count += 1
                    high = nil
                } else {
                    high = value
                }
            }
            return count == 16
        }
        guard parsed else { return nil }
        uuid = UUID(uuid: bytes)
    }

    /// ``description``'s UTF-8 bytes, as a frame carries them.
    public var utf8: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 36) { buffer, count in count = write(into: buffer) }
    }

    /// The lower-case form used in paths and on the wire.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { write(into: $0) }
    }

    /// Writes the 36 characters of the lower-case form; returns 36.
    private func write(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789abcdef"
        return digits.withUTF8Buffer { digits in
            withUnsafeBytes(of: uuid.uuid) { raw in
                var out = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = digits[Int(byte >> 4)]
                    buffer[out + 1] = digits[Int(byte & 0x0F)]
                    out += 2
                }
                return out
            }
        }
    }

    public static func < (lhs: WorkoutID, rhs: WorkoutID) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = WorkoutID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
