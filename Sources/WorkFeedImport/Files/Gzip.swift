import CZlib
public import WorkFeedModel

/// gzip (RFC 1952) through zlib: how original workout files travel to the coordinator and are
/// kept in its cache (`workctl import` compresses, `workctl reimport` decompresses).
public enum Gzip {
    /// Compresses `bytes` at zlib's level 6. Never fails for memory zlib can allocate.
    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard wf_deflate_init_gzip(&stream, 6) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output -> Int in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return -1 }
                return output.count - Int(stream.avail_out)
            }
        }
        guard produced >= 0 else { return [] }
        output.removeSubrange(produced...)
        return output
    }

    /// Decompresses a gzip stream, giving up past `limit` bytes of output (a bomb, or not what
    /// was kept).
    /// - Parameter name: the name used in errors.
    /// - Throws: ``ImportError`` when the bytes are not gzip, are corrupt or truncated, or inflate
    ///   past `limit`.
    public static func decompress(_ bytes: [UInt8], limit: Int, name: String) throws(ImportError) -> [UInt8] {
        var stream = z_stream()
        guard wf_inflate_init_gzip(&stream) == Z_OK else { throw ImportError(file: name, message: "cannot start inflating (zlib)") }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = uInt(input.count)
            while status == Z_OK {
                status = chunk.withUnsafeMutableBufferPointer { chunk in
                    stream.next_out = chunk.baseAddress
                    stream.avail_out = uInt(chunk.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > limit {
                    status = Z_BUF_ERROR
                    output.removeAll()
                    return
                }
                output.append(contentsOf: chunk[..<produced])
                if status == Z_OK, produced == 0, stream.avail_in == 0 { status = Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END else {
            throw ImportError(file: name, message: "not a complete gzip stream of at most \(limit) bytes (zlib status \(status))")
        }
        return output
    }
}
