/// The CRC-16 FIT files carry over their header and over the whole file (polynomial 0xA001,
/// computed a nibble at a time as the FIT SDK does).
enum FITCRC {
    private static let table: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt16 = 0
            for byte in bytes {
                var low = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ low ^ table[Int(byte & 0xF)]
                low = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ low ^ table[Int((byte >> 4) & 0xF)]
            }
            return crc
        }
    }
}
