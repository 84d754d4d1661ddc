/// An error of a binary format that ``LittleEndianReader`` can raise in that format's own terms:
/// each file format (the time-zone map, the places file, the index's series) keeps its own error
/// type, with its codes, and says here what a short read and a non-UTF-8 text are called in it.
public protocol ByteReadError: Error {
    /// `field` needed `needed` bytes at byte `offset`, and only `remaining` were left.
    static func truncated(_ field: String, offset: Int, needed: Int, remaining: Int) -> Self
    /// The `field` at byte `offset` is not UTF-8.
    static func notUTF8(_ field: String, offset: Int) -> Self
}

/// Reads a file's fields in order: little-endian integers, byte runs and UTF-8 text, each checked
/// against what is left, so that a short or corrupt file is a thrown `Failure` naming the field and
/// its byte offset, never a trap.
///
/// ```swift
/// var reader = LittleEndianReader<TimeZoneMapError>(bytes)
/// let version = try reader.integer(UInt16.self, "version")
/// ```
public struct LittleEndianReader<Failure: ByteReadError> {
    public let bytes: [UInt8]
    /// The byte offset of the next field.
    public private(set) var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes not read yet.
    public var remaining: Int { bytes.count - offset }

    /// The next `count` bytes.
    public mutating func take(_ count: Int, _ field: @autoclosure () -> String) throws(Failure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw Failure.truncated(field(), offset: offset, needed: count, remaining: remaining)
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// The next integer of `Value`'s width, least significant byte first.
    public mutating func integer<Value: FixedWidthInteger>(_: Value.Type, _ field: @autoclosure () -> String) throws(Failure) -> Value {
        let slice = try take(MemoryLayout<Value>.size, field())
        var value = Value.zero
        for (shift, byte) in slice.enumerated() { value |= Value(truncatingIfNeeded: byte) << (8 * shift) }
        return value
    }

    /// The next `count` bytes as UTF-8 text.
    public mutating func text(_ count: Int, _ field: @autoclosure () -> String) throws(Failure) -> String {
        let start = offset
        guard let text = String(validating: try take(count, field()), as: UTF8.self) else {
            throw Failure.notUTF8(field(), offset: start)
        }
        return text
    }
}
