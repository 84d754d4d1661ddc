/// The FIT file header (12 or 14 bytes).
struct FITFileHeader {
    /// Whether `bytes` start like a FIT file: a header size of 12 or more and `.FIT` at offset 8.
    static func hasSignature(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[0] >= 12 && bytes[8...11].elementsEqual(Array(".FIT".utf8))
    }
}
