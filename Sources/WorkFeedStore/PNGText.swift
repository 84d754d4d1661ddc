/// Reads a `tEXt` value from the start of a PNG file, without decoding it: what the coordinator
/// needs to check a picture's embedded cache key (workers write it right after the header).
///
/// The chunk stream is walked with every length checked against the bytes there are; a chunk cut
/// off by the end of `bytes`, or anything that is not a PNG, gives `nil`. CRCs are not checked: the
/// value is only compared with one that is expected.
public enum PNGText {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func value(of keyword: String, in bytes: [UInt8]) -> String? {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return nil }
        let wanted = Array(keyword.utf8) + [0]
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let data = offset + 8
            guard length <= bytes.count - data else { return nil }
            let type = bytes[(offset + 4)..<data]
            if type.elementsEqual("tEXt".utf8), bytes[data..<(data + length)].starts(with: wanted) {
                return String(decoding: bytes[(data + wanted.count)..<(data + length)], as: UTF8.self)
            }
            if type.elementsEqual("IDAT".utf8) || type.elementsEqual("IEND".utf8) { return nil }
            offset = data + length + 4
        }
        return nil
    }
}
