import CLibPNG

/// `tEXt` chunks: written by splicing them into an encoded stream, read back by walking chunks.
///
/// libpng's simplified writer has no text support, and the cache key must travel inside the file,
/// so the chunk bytes are built here (length, type, keyword NUL value, CRC-32 of type and data)
/// and inserted right after `IHDR`, where the PNG specification allows ancillary chunks.
extension PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Signature (8) plus the `IHDR` chunk (4 length, 4 type, 13 data, 4 CRC).
    static let headerEnd = 33

    /// Reads every `tEXt` chunk whose CRC checks out; the first chunk wins for a repeated keyword.
    /// Anything that is not a well-formed PNG chunk stream simply yields fewer (or no) entries.
    public static func textChunks(_ png: [UInt8]) -> [String: String] {
        guard png.count >= headerEnd, Array(png[0..<8]) == signature else { return [:] }
        var result: [String: String] = [:]
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(bigEndianUInt32(png, at: offset))
            let dataStart = offset + 8
            guard length <= png.count - dataStart - 4 else { break }
            let type = png[(offset + 4)..<dataStart]
            let crcStored = bigEndianUInt32(png, at: dataStart + length)
            if type.elementsEqual("tEXt".utf8), crc(png[(offset + 4)..<(dataStart + length)]) == crcStored {
                let data = png[dataStart..<(dataStart + length)]
                if let zero = data.firstIndex(of: 0) {
                    let keyword = latin1(data[..<zero])
                    if result[keyword] == nil { result[keyword] = latin1(data[(zero + 1)...]) }
                }
            }
            if type.elementsEqual("IEND".utf8) { break }
            offset = dataStart + length + 4
        }
        return result
    }

    /// The bytes of one `tEXt` chunk per entry, validated against the PNG rules for keywords.
    ///
    /// - Throws: ``PNGError`` with operation `.text` for a keyword or value PNG cannot carry.
    static func textChunkBytes(_ text: [(keyword: String, value: String)]) throws(PNGError) -> [UInt8] {
        var out: [UInt8] = []
        for (keyword, value) in text {
            guard let key = latin1Bytes(keyword), (1...79).contains(key.count),
                key.allSatisfy({ (32...126).contains($0) || $0 >= 161 }),
                key.first != 32, key.last != 32
            else { throw PNGError(.text, "keyword \"\(keyword)\" is not 1-79 printable Latin-1 characters") }
            guard let body = latin1Bytes(value), !body.contains(0) else {
                throw PNGError(.text, "value for \"\(keyword)\" is not Latin-1 text without NUL")
            }
            var chunk: [UInt8] = Array("tEXt".utf8)
            chunk.append(contentsOf: key)
            chunk.append(0)
            chunk.append(contentsOf: body)
            appendBigEndian(UInt32(chunk.count - 4), to: &out)
            out.append(contentsOf: chunk)
            appendBigEndian(crc(chunk[...]), to: &out)
        }
        return out
    }

    /// `png` with `chunks` inserted after `IHDR`, in one allocation.
    static func insertingText(_ chunks: [UInt8], into png: ArraySlice<UInt8>) -> [UInt8] {
        let base = png.startIndex
        let split = min(headerEnd, png.count)
        var out: [UInt8] = []
        out.reserveCapacity(png.count + chunks.count)
        out.append(contentsOf: png[base..<(base + split)])
        out.append(contentsOf: chunks)
        out.append(contentsOf: png[(base + split)...])
        return out
    }

    private static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
    }

    private static func bigEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    private static func latin1Bytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}
