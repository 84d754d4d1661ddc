import Foundation
import WorkFeedModel

/// One file in a zip archive, as its central directory record describes it.
struct ZipEntry: Sendable, Hashable {
    /// The path inside the archive, `/`-separated; a folder ends with `/`.
    var name: String
    var flags: UInt16
    /// 0 stored, 8 deflate; anything else is refused.
    var method: UInt16
    var crc32: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    /// Where the entry's local header starts (already corrected for bytes prepended to the archive).
    var localHeaderOffset: UInt64
    /// Where the next entry's local header (or the central directory) starts: the entry's data must
    /// end before it. Entries whose data overlap are how "non-recursive" zip bombs multiply.
    var dataLimit: UInt64
    /// Another entry starts at the same local header.
    var sharesItsHeader = false

    var isFolder: Bool { name.hasSuffix("/") }
    var isEncrypted: Bool { flags & 1 != 0 }
    var components: [Substring] { name.split(separator: "/", omittingEmptySubsequences: true) }
}

/// A zip archive opened for reading: its central directory parsed, its entries read on demand.
///
/// Handles the end-of-central-directory record (after an archive comment too), ZIP64 (sizes,
/// offsets and entry counts beyond 32 bits), data descriptors (sizes are taken from the central
/// directory), and bytes prepended to the archive (self-extracting archives). Refuses split
/// archives and encrypted entries. Entries are stored (0) or deflated (8); every entry's CRC-32 is
/// checked.
final class ZipArchive {
    /// The name used in errors and origins: the file's path, or `outer.zip:inner.zip` for a zip
    /// inside a zip.
    let name: String
    let source: any ZipByteSource
    private(set) var entries: [ZipEntry] = []

    /// The largest central directory read into memory.
    static let maxDirectorySize: UInt64 = 256 << 20

    /// Opens an archive and reads its central directory.
    /// - Throws: ``ImportError`` naming the archive when it is not a zip, is truncated or its
    ///   directory is damaged.
    init(source: any ZipByteSource, name: String, maxEntryCount: Int = ArchiveLimits.standard.maxEntryCount) throws(ImportError) {
        self.source = source
        self.name = name
        try readDirectory(maxEntryCount: maxEntryCount)
    }

    /// The entry named `path`, the first one when several have that name.
    func entry(named path: String) -> ZipEntry? {
        entries.first { $0.name == path }
    }

    func failure(_ message: String) -> ImportError {
        ImportError(file: name, message: message)
    }

    // MARK: - The central directory

    private static let endOfDirectorySignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let zip64EndSignature: UInt32 = 0x0606_4B50
    private static let directorySignature: UInt32 = 0x0201_4B50
    static let localHeaderSignature: UInt32 = 0x0403_4B50

    private func readDirectory(maxEntryCount: Int) throws(ImportError) {
        let size = source.size
        guard size >= 22 else {
            throw failure("not a zip archive, or truncated: \(size) bytes is too short for an end-of-central-directory record")
        }
        let tailLength = Int(min(size, 22 + 0xFFFF))
        let tailStart = size - UInt64(tailLength)
        let tail = try source.bytes(at: tailStart, count: tailLength)
        guard let recordIndex = Self.findEndOfDirectory(tail) else {
            throw failure("not a zip archive, or truncated: no end-of-central-directory record")
        }
        let record = ByteReader(tail, at: recordIndex)
        let endOffset = tailStart + UInt64(recordIndex)
        var disk = UInt32(record.u16(4))
        var directoryDisk = UInt32(record.u16(6))
        var entryCount = UInt64(record.u16(10))
        var directorySize = UInt64(record.u32(12))
        var directoryOffset = UInt64(record.u32(16))
        // Where the central directory must end: the ZIP64 end record if there is one, else this one.
        var directoryEnd = endOffset

        let locatorBytes = endOffset >= 20 ? try source.bytes(at: endOffset - 20, count: 4) : []
        let hasLocator = locatorBytes == Self.signatureBytes(Self.zip64LocatorSignature)
        let needsZip64 = entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF
        if hasLocator || needsZip64 {
            guard hasLocator else {
                throw failure("the end-of-central-directory record needs ZIP64 but the ZIP64 locator is missing (truncated?)")
            }
            let locator = ByteReader(try source.bytes(at: endOffset - 20, count: 20), at: 0)
            var zip64Offset = locator.u64(8)
            // Bytes prepended to the archive shift every offset; the ZIP64 end record normally sits
            // right before its locator.
            let fits = endOffset >= 20 + 56 && zip64Offset <= endOffset - 20 - 56
            let found = fits ? try source.bytes(at: zip64Offset, count: 4) : []
            if found != Self.signatureBytes(Self.zip64EndSignature) {
                guard endOffset >= 20 + 56 else { throw failure("the ZIP64 end-of-central-directory record is missing") }
                zip64Offset = endOffset - 20 - 56
            }
            let zip64 = ByteReader(try source.bytes(at: zip64Offset, count: 56), at: 0)
            guard zip64.count == 56, zip64.u32(0) == Self.zip64EndSignature else {
                throw failure("the ZIP64 end-of-central-directory record is missing or damaged")
            }
            disk = zip64.u32(16)
            directoryDisk = zip64.u32(20)
            entryCount = zip64.u64(32)
            directorySize = zip64.u64(40)
            directoryOffset = zip64.u64(48)
            directoryEnd = zip64Offset
        }
        guard disk == 0 && directoryDisk == 0 else {
            throw failure("a split (multi-part) archive: not supported, join the parts first")
        }
        guard entryCount <= UInt64(maxEntryCount) else {
            throw failure("the central directory lists \(entryCount) entries, more than the \(maxEntryCount) allowed")
        }
        guard directorySize <= directoryEnd else {
            throw failure("the central directory (\(directorySize) bytes) does not fit before its end record (truncated?)")
        }
        guard directorySize <= Self.maxDirectorySize else {
            throw failure("the central directory is \(directorySize) bytes, more than \(Self.maxDirectorySize) allowed")
        }
        let directoryStart = directoryEnd - directorySize
        guard directoryStart >= directoryOffset else {
            throw failure("the central directory should start at offset \(directoryOffset), past its end (truncated?)")
        }
        // Bytes before the first entry (a self-extracting stub) shift every recorded offset.
        let shift = directoryStart - directoryOffset
        let directory = try source.bytes(at: directoryStart, count: Int(directorySize))
        guard directory.count == Int(directorySize) else { throw failure("the central directory is truncated") }
        entries = try parseEntries(directory, expected: entryCount, zip64: hasLocator, shift: shift, directoryStart: directoryStart)
    }

    /// The index of the end-of-central-directory record in the archive's tail: the last signature
    /// whose comment length reaches exactly the end, else the last signature at all.
    private static func findEndOfDirectory(_ tail: [UInt8]) -> Int? {
        var lenient: Int?
        var index = tail.count - 22
        while index >= 0 {
            if tail[index] == 0x50 && tail[index + 1] == 0x4B && tail[index + 2] == 0x05 && tail[index + 3] == 0x06 {
                let commentLength = Int(tail[index + 20]) | Int(tail[index + 21]) << 8
                if index + 22 + commentLength == tail.count { return index }
                if lenient == nil { lenient = index }
            }
            index -= 1
        }
        return lenient
    }

    private func parseEntries(
        _ directory: [UInt8], expected: UInt64, zip64: Bool, shift: UInt64, directoryStart: UInt64
    ) throws(ImportError) -> [ZipEntry] {
        var entries: [ZipEntry] = []
        entries.reserveCapacity(Int(min(expected, 100_000)))
        var offset = 0
        while offset + 46 <= directory.count {
            let record = ByteReader(directory, at: offset)
            guard record.u32(0) == Self.directorySignature else {
                throw failure("central directory record \(entries.count + 1) at offset \(directoryStart + UInt64(offset)) is damaged")
            }
            let nameLength = Int(record.u16(28))
            let extraLength = Int(record.u16(30))
            let commentLength = Int(record.u16(32))
            let end = offset + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else {
                throw failure("central directory record \(entries.count + 1) runs past the directory's end")
            }
            let flags = record.u16(8)
            let nameBytes = Array(directory[offset + 46..<offset + 46 + nameLength])
            var entry = ZipEntry(
                name: Self.decodeName(nameBytes, utf8Flag: flags & 0x800 != 0), flags: flags, method: record.u16(10),
                crc32: record.u32(16), compressedSize: UInt64(record.u32(20)), uncompressedSize: UInt64(record.u32(24)),
                localHeaderOffset: UInt64(record.u32(42)), dataLimit: directoryStart)
            // ZIP64 extended information: the 64-bit values of the fields that are all ones, in order.
            var extra = offset + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let field = ByteReader(directory, at: extra)
                let id = field.u16(0)
                let size = Int(field.u16(2))
                guard extra + 4 + size <= extraEnd else { break }
                if id == 0x0001 {
                    var position = 4
                    func next() -> UInt64? {
                        guard position + 8 <= 4 + size else { return nil }
                        defer { position += 8 }
                        return field.u64(position)
                    }
                    if entry.uncompressedSize == 0xFFFF_FFFF, let value = next() { entry.uncompressedSize = value }
                    if entry.compressedSize == 0xFFFF_FFFF, let value = next() { entry.compressedSize = value }
                    if entry.localHeaderOffset == 0xFFFF_FFFF, let value = next() { entry.localHeaderOffset = value }
                }
                extra += 4 + size
            }
            entry.localHeaderOffset += shift
            entries.append(entry)
            offset = end
        }
        // Without ZIP64 the 16-bit count wraps past 65,535 entries; some writers do that.
        let countMatches = zip64 ? UInt64(entries.count) == expected : UInt64(entries.count) % 0x10000 == expected % 0x10000
        guard countMatches else {
            throw failure("the end record announces \(expected) entries but the central directory holds \(entries.count) (damaged?)")
        }
        // Each entry's data must end before the next local header.
        let starts = Set(entries.map(\.localHeaderOffset)).sorted()
        var seen: [UInt64: Int] = [:]
        for entry in entries { seen[entry.localHeaderOffset, default: 0] += 1 }
        for index in entries.indices {
            let start = entries[index].localHeaderOffset
            var lower = 0
            var upper = starts.count
            while lower < upper {
                let middle = (lower + upper) / 2
                if starts[middle] <= start { lower = middle + 1 } else { upper = middle }
            }
            entries[index].dataLimit = lower < starts.count ? min(starts[lower], directoryStart) : directoryStart
            entries[index].sharesItsHeader = (seen[start] ?? 0) > 1
        }
        return entries
    }

    /// Names are UTF-8 when flagged or when they decode as UTF-8 (many writers leave the flag
    /// unset), else code page 437 as the zip specification says.
    private static func decodeName(_ bytes: [UInt8], utf8Flag: Bool) -> String {
        if utf8Flag || bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { $0 < 0x80 ? Unicode.Scalar($0) : codePage437[Int($0) - 0x80] }))
    }

    private static let codePage437: [Unicode.Scalar] = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}"
            .unicodeScalars)

    static func signatureBytes(_ signature: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: signature), UInt8(truncatingIfNeeded: signature >> 8),
            UInt8(truncatingIfNeeded: signature >> 16), UInt8(truncatingIfNeeded: signature >> 24),
        ]
    }

    // MARK: - Entries

    /// The name of an entry in errors and origins: `archive.zip:path/inside`.
    func displayName(_ entry: ZipEntry) -> String { "\(name):\(entry.name)" }

    /// Where an entry's data starts, read from its local header, after checking that the data
    /// fits in the archive and does not run into the next entry.
    func dataOffset(of entry: ZipEntry) throws(ImportError) -> UInt64 {
        let entryName = displayName(entry)
        let header = ByteReader(try source.bytes(at: entry.localHeaderOffset, count: 30), at: 0)
        guard header.count == 30, header.u32(0) == Self.localHeaderSignature else {
            throw ImportError(
                file: entryName, message: "no local header at offset \(entry.localHeaderOffset) (damaged or truncated archive)")
        }
        let start = entry.localHeaderOffset + 30 + UInt64(header.u16(26)) + UInt64(header.u16(28))
        let (end, overflow) = start.addingReportingOverflow(entry.compressedSize)
        guard !overflow, end <= source.size else {
            throw ImportError(
                file: entryName,
                message: "its \(entry.compressedSize) compressed bytes run past the end of the archive (truncated?)")
        }
        guard end <= entry.dataLimit, !entry.sharesItsHeader else {
            throw ImportError(file: entryName, message: "its data overlaps another entry's (a zip bomb?)")
        }
        return start
    }
}

/// Little-endian fields at an offset of a byte array.
struct ByteReader {
    let bytes: [UInt8]
    let base: Int

    init(_ bytes: [UInt8], at base: Int) {
        self.bytes = bytes
        self.base = base
    }

    var count: Int { bytes.count - base }

    func u16(_ offset: Int) -> UInt16 {
        UInt16(bytes[base + offset]) | UInt16(bytes[base + offset + 1]) << 8
    }

    func u32(_ offset: Int) -> UInt32 {
        UInt32(u16(offset)) | UInt32(u16(offset + 2)) << 16
    }

    func u64(_ offset: Int) -> UInt64 {
        UInt64(u32(offset)) | UInt64(u32(offset + 4)) << 32
    }
}
