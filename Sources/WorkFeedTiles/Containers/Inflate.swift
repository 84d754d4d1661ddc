import CZlib

/// Removes a gzip or zlib layer (tiles in MBTiles and PMTiles, PMTiles directories and metadata).
enum Inflate {
    /// Why a stream could not be inflated, for the caller to put in a ``TileError`` with its context.
    struct Failure: Error {
        var message: String
    }

    /// Whether `bytes` start like a gzip member (1f 8b) or a zlib stream (a deflate CMF byte and a
    /// header check that divides by 31), the two layers zlib's automatic detection reads.
    static func isCompressed(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        if bytes[0] == 0x1F && bytes[1] == 0x8B { return true }
        let header = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        return bytes[0] & 0x0F == 8 && bytes[0] >> 4 <= 7 && header % 31 == 0
    }

    /// Inflates one gzip member or zlib stream whole; bytes after its end are ignored.
    ///
    /// - Parameter limit: the most bytes the result may have, so that a small corrupt or hostile
    ///   stream cannot make gigabytes.
    /// - Throws: ``Failure`` for a stream that is corrupt, truncated, fails its CRC, or inflates
    ///   past `limit`.
    static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        guard input.count <= Int(UInt32.max) else {
            throw Failure(message: "\(input.count) compressed bytes: too many for zlib in one call")
        }
        // zlib keeps a pointer to its stream structure: it lives at one address until inflateEnd.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        // 15 + 32: the largest window, and a gzip or zlib header detected from the bytes.
        guard inflateInit2_(stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(message: "zlib could not start inflating")
        }
        defer { inflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: min(limit, max(4096, input.count * 4)))
        var produced = 0
        let result: Result<Int, Failure> = input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = uInt(source.count)
            while true {
                if produced == output.count {
                    guard output.count < limit else {
                        return .failure(Failure(message: "inflates to more than \(limit) bytes"))
                    }
                    output.append(contentsOf: repeatElement(0, count: min(limit, output.count * 2) - output.count))
                }
                let room = uInt(clamping: output.count - produced)
                let status = output.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress.map { $0 + produced }
                    stream.pointee.avail_out = room
                    return inflate(stream, Z_NO_FLUSH)
                }
                produced += Int(room - stream.pointee.avail_out)
                switch status {
                case Z_STREAM_END:
                    return .success(produced)
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    return .failure(Failure(message: "the compressed data end before the stream does (truncated)"))
                case Z_BUF_ERROR where stream.pointee.avail_out == 0:
                    continue
                default:
                    let reason = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                    return .failure(Failure(message: "corrupt compressed data (zlib: \(reason))"))
                }
            }
        }
        output.removeSubrange(try result.get()...)
        return output
    }
}
