/// A cursor over protocol-buffer wire format: the little of protobuf that a vector tile needs.
///
/// It reads inside `position ..< end` of one buffer that holds the whole tile, so that offsets in
/// errors count from the tile's first byte, and a nested message is read by a second reader over
/// its sub-range. Every read checks what remains first: a length, a varint or a fixed-width value
/// that runs past `end` is a ``TileError`` naming the offset, never an out-of-bounds read.
///
/// The buffer must stay valid while the reader is in use (it is made inside
/// `withUnsafeBufferPointer` and does not escape it).
struct ProtobufReader {
    /// Protobuf wire types. Groups (3 and 4) were deprecated before vector tiles existed, and no
    /// vector-tile message uses them, so a reader refuses them rather than skipping them.
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5

        var name: String {
            switch self {
            case .varint: "varint"
            case .fixed64: "64-bit"
            case .lengthDelimited: "length-delimited"
            case .fixed32: "32-bit"
            }
        }
    }

    /// A field's key: its number, its wire type and where the key starts.
    struct Field {
        var number: UInt64
        var wireType: WireType
        var offset: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        position = 0
        end = bytes.count
    }

    /// A reader over `range`, which the caller took from a length-delimited field of this buffer.
    init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }
    var remaining: Int { end - position }

    static func failure(at offset: Int, _ message: String) -> TileError {
        TileError(.malformedTile, "at byte \(offset): \(message)")
    }

    /// The next field's key, or `nil` at the end of the message.
    mutating func nextField() throws(TileError) -> Field? {
        guard position < end else { return nil }
        let offset = position
        let key = try varint()
        let number = key >> 3
        guard number > 0 else { throw Self.failure(at: offset, "field number 0 (a protobuf key is never 0)") }
        guard number <= 0x1FFF_FFFF else { throw Self.failure(at: offset, "field number \(number) is past protobuf's largest") }
        let type = UInt8(key & 7)
        guard let wireType = WireType(rawValue: type) else {
            let what = type == 3 || type == 4 ? "a group (wire type \(type)), which vector tiles never use" : "unknown wire type \(type)"
            throw Self.failure(at: offset, "field \(number) is \(what)")
        }
        return Field(number: number, wireType: wireType, offset: offset)
    }

    /// A base-128 varint of at most 10 bytes whose value fits 64 bits.
    mutating func varint() throws(TileError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw Self.failure(at: start, "a varint runs past the end of its message") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 {
                throw Self.failure(at: start, "a varint longer than 64 bits")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint whose value must fit 32 bits (a `uint32` field, a geometry integer).
    mutating func varint32(_ what: @autoclosure () -> String) throws(TileError) -> UInt32 {
        let start = position
        let value = try varint()
        guard let narrow = UInt32(exactly: value) else {
            throw Self.failure(at: start, "\(what()) is \(value), more than 32 bits")
        }
        return narrow
    }

    mutating func fixed32() throws(TileError) -> UInt32 {
        guard remaining >= 4 else { throw Self.failure(at: position, "a 32-bit value runs past the end of its message") }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[position + index]) << (8 * index) }
        position += 4
        return value
    }

    mutating func fixed64() throws(TileError) -> UInt64 {
        guard remaining >= 8 else { throw Self.failure(at: position, "a 64-bit value runs past the end of its message") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
        position += 8
        return value
    }

    /// A length-delimited field's payload: its range in the buffer, checked against what remains.
    mutating func lengthDelimited() throws(TileError) -> Range<Int> {
        let start = position
        let length = try varint()
        guard length <= UInt64(remaining) else {
            throw Self.failure(at: start, "a length of \(length) bytes runs past the end of its message (\(remaining) bytes remain)")
        }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    /// The payload's bytes as a string. Invalid UTF-8 is repaired (U+FFFD) rather than refused:
    /// proto2, which vector tiles use, does not validate strings, and a damaged name should not
    /// cost the rest of the tile.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Skips the value of a field the reader does not use.
    mutating func skip(_ field: Field) throws(TileError) {
        switch field.wireType {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .lengthDelimited: _ = try lengthDelimited()
        case .fixed32: _ = try fixed32()
        }
    }

    /// Checks a known field's wire type, naming the field when it is wrong.
    static func expect(_ field: Field, _ type: WireType, _ name: String) throws(TileError) {
        guard field.wireType == type else {
            throw failure(at: field.offset, "\(name) (field \(field.number)) is encoded as \(field.wireType.name), not \(type.name)")
        }
    }
}

extension UInt32 {
    /// Protobuf's zigzag decoding: 0, 1, 2, 3 → 0, -1, 1, -2.
    var zigzagDecoded: Int32 { Int32(bitPattern: (self >> 1) ^ (0 &- (self & 1))) }
}

extension UInt64 {
    var zigzagDecoded: Int64 { Int64(bitPattern: (self >> 1) ^ (0 &- (self & 1))) }
}
