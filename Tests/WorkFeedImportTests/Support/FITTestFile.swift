@testable import WorkFeedImport

/// Writes small FIT files by hand, to test what real files do not show (compressed timestamps,
/// big-endian definitions, developer fields, odd field sizes, broken records).
struct FITTestFile {
    private(set) var data: [UInt8] = []

    /// A definition message. Fields are (number, size, base type); developer fields (number,
    /// size, developer index).
    mutating func define(
        local: UInt8, global: UInt16, bigEndian: Bool = false, fields: [(UInt8, UInt8, UInt8)],
        developer: [(UInt8, UInt8, UInt8)] = []
    ) {
        data.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
        data += [0, bigEndian ? 1 : 0]
        data += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        data.append(UInt8(fields.count))
        for field in fields { data += [field.0, field.1, field.2] }
        if !developer.isEmpty {
            data.append(UInt8(developer.count))
            for field in developer { data += [field.0, field.1, field.2] }
        }
    }

    /// A data message with a normal header.
    mutating func message(local: UInt8, _ content: [UInt8]) {
        data.append(local)
        data += content
    }

    /// A data message with a compressed-timestamp header.
    mutating func compressed(local: UInt8, timeOffset: UInt8, _ content: [UInt8]) {
        data.append(0x80 | (local << 5) | (timeOffset & 0x1F))
        data += content
    }

    mutating func raw(_ bytes: [UInt8]) { data += bytes }

    /// The whole file: header (14 bytes with its CRC, or 12), data and file CRC.
    func bytes(headerSize: Int = 14, dataSize: Int? = nil) -> [UInt8] {
        let size = UInt32(dataSize ?? data.count)
        var file: [UInt8] = [UInt8(headerSize), 0x20, 0x5C, 0x08]
        file += (0..<4).map { UInt8((size >> (8 * $0)) & 0xFF) }
        file += Array(".FIT".utf8)
        if headerSize == 14 {
            let crc = FITCRC.checksum(file[...])
            file += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
        file += data
        let crc = FITCRC.checksum(file[...])
        return file + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    static func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func big<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        little(value).reversed()
    }

    static func semicircles(_ degrees: Double) -> Int32 {
        Int32((degrees * 2_147_483_648.0 / 180).rounded())
    }

    /// Recomputes the file CRC after bytes were changed.
    static func fixingCRC(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let end = bytes.count - 2
        let crc = FITCRC.checksum(bytes[..<end])
        bytes[end] = UInt8(crc & 0xFF)
        bytes[end + 1] = UInt8(crc >> 8)
        return bytes
    }
}
