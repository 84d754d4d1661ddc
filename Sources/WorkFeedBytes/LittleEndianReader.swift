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
///
/// Its methods are inlinable so that each format's reader is specialised for its error type and
/// integer widths where it is used (the time-zone map reads millions of fields when it opens).
public struct LittleEndianReader<Failure: ByteReadError> {
    public let bytes: [UInt8]
    @usableFromInline var position = 0

    @inlinable public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The byte offset of the next field.
    @inlinable public var offset: Int { position }

    /// The bytes not read yet.
    @inlinable public var remaining: Int { bytes.count - position }

    /// The next `count` bytes.
    @inlinable public mutating func take(_ count: Int, _ field: @autoclosure () -> String) throws(Failure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw Failure.truncated(field(), offset: position, needed: count, remaining: remaining)
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// The next integer of `Value`'s width, least significant byte first.
    @inlinable public mutating func integer<Value: FixedWidthInteger>(_: Value.Type, _ field: @autoclosure () -> String) throws(Failure) -> Value {
        let slice = try take(MemoryLayout<Value>.size, field())
        var value = Value.zero
        for (shift, byte) in slice.enumerated() { value |= Value(truncatingIfNeeded: byte) << (8 * shift) }
        return value
    }

    /// The next `count` bytes as UTF-8 text.
    @inlinable public mutating func text(_ count: Int, _ field: @autoclosure () -> String) throws(Failure) -> String {
        let start = position
        guard let text = String(validating: try take(count, field()), as: UTF8.self) else {
            throw Failure.notUTF8(field(), offset: start)
        }
        return text
    }
}
