/// FIT base types: how wide a value is, whether it is signed, and which value means "invalid".
struct FITBaseType: Sendable, Hashable {
    var rawValue: UInt8

    init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Bytes per value; 1 for strings and unknown types, which are only ever skipped.
    var size: Int {
        switch rawValue & 0x1F {
        case 0x03, 0x04, 0x0B: return 2
        case 0x05, 0x06, 0x08, 0x0C: return 4
        case 0x09, 0x0E, 0x0F, 0x10: return 8
        default: return 1
        }
    }

    var isSigned: Bool {
        switch rawValue & 0x1F {
        case 0x01, 0x03, 0x05, 0x0E: return true
        default: return false
        }
    }

    var isInteger: Bool {
        switch rawValue & 0x1F {
        case 0x07, 0x08, 0x09: return false
        default: return true
        }
    }

    /// The `z` types mark invalid with 0; the others with their maximum (signed: 0x7F…).
    var invalidIsZero: Bool {
        switch rawValue & 0x1F {
        case 0x0A, 0x0B, 0x0C, 0x10: return true
        default: return false
        }
    }
}
