/// A definition message: how the data messages of one local type are laid out.
struct FITMessageDefinition {
    struct Field {
        var number: UInt8
        /// Offset from the start of the message's content (after its record header).
        var offset: Int
        var size: Int
        var baseType: FITBaseType
    }

    var globalNumber: UInt16
    var bigEndian: Bool
    var fields: [Field]
    /// Bytes of a data message's content, developer fields included (those are only skipped).
    var contentSize: Int

    func field(_ number: UInt8) -> Field? {
        fields.first { $0.number == number }
    }

    /// The value of an integer field, or `nil` when the message lacks it, it holds the invalid
    /// value, or it is narrower than its base type. A field wider than its base type (an array,
    /// or a size that is not a multiple of it) gives its first value.
    func integer(_ number: UInt8, in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int64? {
        guard let field = field(number), field.baseType.isInteger else { return nil }
        let width = field.baseType.size
        guard field.size >= width else { return nil }
        var raw: UInt64 = 0
        let base = start + field.offset
        for index in 0..<width {
            let byte = UInt64(bytes[base + index])
            raw |= bigEndian ? byte << (8 * UInt64(width - 1 - index)) : byte << (8 * UInt64(index))
        }
        let bits = UInt64(width * 8)
        let allOnes: UInt64 = bits == 64 ? .max : (1 << bits) - 1
        if field.baseType.invalidIsZero {
            if raw == 0 { return nil }
        } else if field.baseType.isSigned {
            if raw == allOnes >> 1 { return nil }
        } else if raw == allOnes {
            return nil
        }
        if field.baseType.isSigned && bits < 64 && raw & (1 << (bits - 1)) != 0 {
            return Int64(bitPattern: raw | ~allOnes)
        }
        return Int64(bitPattern: raw)
    }
}
