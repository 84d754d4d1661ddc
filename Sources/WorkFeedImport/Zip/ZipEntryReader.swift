import CZlib
import Foundation
import WorkFeedModel

/// Reads one entry of a ``ZipArchive`` as a stream, inflating deflated data with zlib's raw
/// inflate, and checks it at its end: the size the central directory declares and the CRC-32.
///
/// It never gives more bytes than the directory declares: an entry that inflates to more is an
/// error at that point (a lying entry is how a zip bomb gets past size checks). As an
/// ``XMLByteSource`` it feeds ``XMLPullReader`` directly, so a multi-gigabyte `export.xml` inside
/// an `export.zip` is parsed in bounded memory without being written anywhere.
final class ZipEntryReader: XMLByteSource {
    /// The entry's name in errors: `archive.zip:path/inside`.
    let name: String
    let entry: ZipEntry
    private let source: any ZipByteSource
    private var inputOffset: UInt64
    private var inputRemaining: UInt64
    private let input: UnsafeMutablePointer<UInt8>
    private static let inputCapacity = 256 << 10
    private var output: UnsafeMutablePointer<UInt8>
    private var outputCapacity: Int
    /// zlib keeps a pointer back to its stream, so the stream lives at a fixed address.
    private var stream: UnsafeMutablePointer<z_stream>?
    private var produced: UInt64 = 0
    private var crc: UInt = 0
    private var finished = false
    private var checkedCRC = false
    /// Bytes inflated ahead by ``peek(_:)`` and not handed out yet.
    private var pending: [UInt8] = []

    /// - Throws: ``ImportError`` naming the entry when it is encrypted, uses another compression
    ///   method, or its local header is missing, or its data run past the archive or into the
    ///   next entry.
    init(archive: ZipArchive, entry: ZipEntry) throws(ImportError) {
        name = archive.displayName(entry)
        self.entry = entry
        source = archive.source
        guard !entry.isEncrypted else { throw ImportError(file: name, message: "an encrypted entry: not supported") }
        guard entry.method == 0 || entry.method == 8 else {
            throw ImportError(file: name, message: "compression method \(entry.method): not supported (only stored and deflate)")
        }
        if entry.method == 0 && entry.compressedSize != entry.uncompressedSize {
            throw ImportError(
                file: name,
                message: "a stored entry of \(entry.compressedSize) bytes declares \(entry.uncompressedSize) uncompressed (damaged)")
        }
        inputOffset = try archive.dataOffset(of: entry)
        inputRemaining = entry.compressedSize
        input = .allocate(capacity: Self.inputCapacity)
        outputCapacity = 1 << 20
        output = .allocate(capacity: outputCapacity)
        if entry.method == 8 {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard wf_inflate_init_raw(stream) == Z_OK else {
                stream.deallocate()
                input.deallocate()
                output.deallocate()
                throw ImportError(file: name, message: "zlib could not start inflating")
            }
            self.stream = stream
        }
    }

    deinit {
        if let stream {
            inflateEnd(stream)
            stream.deallocate()
        }
        input.deallocate()
        output.deallocate()
    }

    /// Appends at most `maxCount` bytes of the entry to `buffer`.
    /// - Returns: the count appended; 0 only at the end, once the size and CRC-32 were checked.
    /// - Throws: ``ImportError`` naming the entry when the data are corrupt, truncated, larger
    ///   than declared or fail the CRC check.
    func read(into buffer: inout [UInt8], maxCount: Int) throws(ImportError) -> Int {
        if !pending.isEmpty {
            let count = min(maxCount, pending.count)
            buffer.append(contentsOf: pending[..<count])
            pending.removeFirst(count)
            return count
        }
        guard !finished, maxCount > 0 else { return 0 }
        if maxCount > outputCapacity {
            output.deallocate()
            outputCapacity = maxCount
            output = .allocate(capacity: outputCapacity)
        }
        let count = try produce(maxCount)
        if count > 0 { buffer.append(contentsOf: UnsafeBufferPointer(start: output, count: count)) }
        return count
    }

    /// Inflates up to `limit` bytes into ``output``; 0 at the end of the entry.
    private func produce(_ limit: Int) throws(ImportError) -> Int {
        let count: Int
        if let stream {
            count = try inflateChunk(stream, limit: limit)
        } else {
            let wanted = Int(min(UInt64(limit), inputRemaining))
            count = wanted > 0 ? try source.read(at: inputOffset, count: wanted, into: output) : 0
            guard count == wanted else { throw truncated() }
            inputOffset += UInt64(count)
            inputRemaining -= UInt64(count)
            produced += UInt64(count)
            if inputRemaining == 0 { try finish() }
        }
        if count > 0 { crc = crc32(crc, output, uInt(count)) }
        if finished && !checkedCRC {
            checkedCRC = true
            try checkCRC()
        }
        return count
    }

    private func inflateChunk(_ stream: UnsafeMutablePointer<z_stream>, limit: Int) throws(ImportError) -> Int {
        stream.pointee.next_out = output
        stream.pointee.avail_out = uInt(limit)
        while true {
            if stream.pointee.avail_in == 0 && inputRemaining > 0 {
                let wanted = Int(min(UInt64(Self.inputCapacity), inputRemaining))
                let got = try source.read(at: inputOffset, count: wanted, into: input)
                guard got == wanted else { throw truncated() }
                inputOffset += UInt64(got)
                inputRemaining -= UInt64(got)
                stream.pointee.next_in = input
                stream.pointee.avail_in = uInt(got)
            }
            let status = inflate(stream, Z_NO_FLUSH)
            let count = limit - Int(stream.pointee.avail_out)
            produced += UInt64(count)
            guard produced <= entry.uncompressedSize else {
                throw ImportError(
                    file: name,
                    message: "inflates to more than the \(entry.uncompressedSize) bytes its directory record declares (a zip bomb?)")
            }
            switch status {
            case Z_STREAM_END:
                try finish()
                return count
            case Z_OK, Z_BUF_ERROR:
                if count > 0 { return count }
                if stream.pointee.avail_in == 0 && inputRemaining == 0 { throw truncated() }
            case Z_DATA_ERROR:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "invalid data"
                throw ImportError(file: name, message: "corrupt deflate data: \(detail)")
            case Z_MEM_ERROR:
                throw ImportError(file: name, message: "zlib ran out of memory")
            default:
                throw ImportError(file: name, message: "zlib inflate failed (status \(status))")
            }
        }
    }

    /// The entry's data ended: checks its size; the CRC is checked once the last bytes are summed.
    private func finish() throws(ImportError) {
        finished = true
        guard produced == entry.uncompressedSize else {
            throw ImportError(
                file: name, message: "inflates to \(produced) bytes but its directory record declares \(entry.uncompressedSize)")
        }
    }

    private func checkCRC() throws(ImportError) {
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw ImportError(
                file: name,
                message: "CRC-32 mismatch: the data give \(Self.hex(UInt32(truncatingIfNeeded: crc))), "
                    + "the directory says \(Self.hex(entry.crc32)) (corrupt entry)")
        }
    }

    private func truncated() -> ImportError {
        ImportError(file: name, message: "its data end early: the entry or the archive is truncated")
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: false)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The first `count` bytes (fewer for a shorter entry), which later reads hand out again:
    /// enough to recognize the format before choosing a reader.
    func peek(_ count: Int) throws(ImportError) -> [UInt8] {
        var bytes = pending
        pending.removeAll()
        while bytes.count < count {
            let got = try read(into: &bytes, maxCount: count - bytes.count)
            if got == 0 { break }
        }
        pending = bytes
        return bytes
    }

    /// Reads the rest of the entry and throws if it fails its checks. Readers that stop before
    /// the end call this so that a corrupt tail is still reported.
    func drain() throws(ImportError) {
        pending.removeAll()
        var scratch: [UInt8] = []
        while try read(into: &scratch, maxCount: 1 << 20) > 0 { scratch.removeAll(keepingCapacity: true) }
    }

    /// The whole entry in memory.
    func readAll() throws(ImportError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(min(entry.uncompressedSize, 1 << 30)))
        while try read(into: &bytes, maxCount: 1 << 20) > 0 {}
        return bytes
    }

    /// Inflates the whole entry into a new temporary file, for an entry too large for memory
    /// that needs random access (a zip inside the zip). The caller removes the file.
    func writeToTemporaryFile() throws(ImportError) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-zip-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: url.path)
        else {
            throw ImportError(file: name, message: "cannot create a temporary file in \(url.deletingLastPathComponent().path)")
        }
        defer { try? handle.close() }
        var chunk: [UInt8] = []
        do {
            while try read(into: &chunk, maxCount: 1 << 20) > 0 {
                try handle.write(contentsOf: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        } catch let error as ImportError {
            try? FileManager.default.removeItem(at: url)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw ImportError(file: name, message: "cannot write a temporary file: \(error.localizedDescription)")
        }
        return url
    }
}
