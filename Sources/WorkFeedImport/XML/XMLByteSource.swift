import WorkFeedModel

/// Where an ``XMLPullReader`` gets its bytes. A source hands them over in chunks, so a document
/// of any size (a multi-gigabyte Apple Health export) can be read in bounded memory: the reader
/// keeps only the unfinished token and the next chunk.
protocol XMLByteSource {
    /// Appends at most `maxCount` bytes to `buffer`.
    /// - Returns: how many bytes were appended; 0 only at the end of the input.
    mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(ImportError) -> Int
}

/// Hands out an in-memory array in chunks. Used to test the reader's refilling on every token
/// boundary; to read a whole array at once, pass it to ``XMLPullReader/init(bytes:file:options:)``.
struct XMLChunkedArraySource: XMLByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    private let chunkSize: Int

    init(_ bytes: [UInt8], chunkSize: Int) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(ImportError) -> Int {
        let count = min(chunkSize, maxCount, bytes.count - offset)
        guard count > 0 else { return 0 }
        buffer.append(contentsOf: bytes[offset..<offset + count])
        offset += count
        return count
    }
}
