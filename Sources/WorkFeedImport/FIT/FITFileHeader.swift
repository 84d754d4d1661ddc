import WorkFeedModel

/// The FIT file header: 12 bytes, or 14 with a CRC of the first 12.
struct FITFileHeader {
    /// Where the data records start.
    var size: Int
    /// Bytes of data records after the header; the file CRC follows them.
    var dataSize: Int

    /// Whether `bytes` start like a FIT file: a header size of 12 or more and `.FIT` at offset 8.
    static func hasSignature(_ bytes: [UInt8]) -> Bool {
        hasSignature(bytes[...])
    }

    static func hasSignature(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 12 else { return false }
        let start = bytes.startIndex
        return bytes[start] >= 12 && bytes[(start + 8)..<(start + 12)].elementsEqual([0x2E, 0x46, 0x49, 0x54])
    }

    /// Reads and checks the header at `offset`: signature, header CRC, and that the data and the
    /// file CRC fit in the file.
    /// - Throws: ``ImportError`` naming the byte offset of what is wrong.
    init(_ bytes: [UInt8], at offset: Int, file: String) throws(ImportError) {
        guard bytes.count - offset >= 12 else {
            throw ImportError(
                file: file, field: "offset \(offset)", message: "not a FIT file: \(bytes.count - offset) bytes, a FIT header alone is 12")
        }
        guard Self.hasSignature(bytes[offset...]) else {
            throw ImportError(file: file, field: "offset \(offset)", message: "not a FIT file: no '.FIT' signature")
        }
        size = Int(bytes[offset])
        dataSize = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
        if size >= 14 {
            guard bytes.count - offset >= size else {
                throw ImportError(file: file, field: "offset \(offset)", message: "the file ends inside the FIT header")
            }
            let stored = UInt16(bytes[offset + 12]) | UInt16(bytes[offset + 13]) << 8
            let computed = FITCRC.checksum(bytes[offset..<(offset + 12)])
            // A header CRC of 0 means "not computed", which the FIT protocol allows.
            guard stored == 0 || stored == computed else {
                throw ImportError(
                    file: file, field: "offset \(offset + 12)",
                    message: "header CRC is \(Self.hex(stored)) but the header's bytes give \(Self.hex(computed))")
            }
        }
        let available = bytes.count - offset - size - 2
        guard dataSize <= available else {
            throw ImportError(
                file: file, field: "offset \(offset + 4)",
                message: "the header says \(dataSize) bytes of data, but the file has only \(max(0, available)) before its CRC (truncated?)")
        }
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
