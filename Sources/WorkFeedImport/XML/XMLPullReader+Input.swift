import WorkFeedModel

/// The input buffer: refilling from the source, looking ahead, and turning offsets into lines.
extension XMLPullReader {
    /// Drops the consumed bytes and appends the source's next chunk.
    /// - Returns: false at the end of the input. Offsets relative to `position` stay valid.
    mutating func refill() throws(ImportError) -> Bool {
        guard var current = source else { return false }
        source = nil
        if position > 0 {
            buffer.removeSubrange(..<position)
            position = 0
        }
        let start = buffer.count
        let count = try current.read(into: &buffer, maxCount: options.chunkSize)
        guard count > 0 else { return false }
        source = current
        if encoding != .utf8 { encoding.transcodeToUTF8(&buffer, from: start) }
        return true
    }

    /// Makes sure `count` unread bytes are buffered; false when the input ends first.
    @inline(__always)
    mutating func ensure(_ count: Int) throws(ImportError) -> Bool {
        while buffer.count - position < count {
            guard try refill() else { return false }
        }
        return true
    }

    /// The byte `offset` bytes after `position`, or `nil` past the end of the input.
    mutating func peek(_ offset: Int) throws(ImportError) -> UInt8? {
        guard try ensure(offset + 1) else { return nil }
        return buffer[position + offset]
    }

    /// Whether the unread input continues with `literal` at `offset`.
    mutating func matches(_ literal: [UInt8], at offset: Int = 0) throws(ImportError) -> Bool {
        guard try ensure(offset + literal.count) else { return false }
        let start = position + offset
        return buffer[start..<start + literal.count].elementsEqual(literal)
    }

    /// The offset (from `position`) where `terminator` starts, searching from `offset`; `nil` when
    /// the input ends first.
    mutating func find(_ terminator: [UInt8], from offset: Int) throws(ImportError) -> Int? {
        var offset = offset
        while true {
            let start = position + offset
            let found = buffer.withUnsafeBufferPointer { bytes in Self.search(bytes, for: terminator, from: start) }
            if let found { return found - position }
            offset = max(offset, buffer.count - position - terminator.count + 1)
            guard try refill() else { return nil }
        }
    }

    private static func search(_ bytes: UnsafeBufferPointer<UInt8>, for terminator: [UInt8], from start: Int) -> Int? {
        guard let first = terminator.first, start >= 0 else { return nil }
        var index = start
        let last = bytes.count - terminator.count
        while index <= last {
            if bytes[index] == first {
                var matched = true
                for offset in 1..<max(1, terminator.count) where bytes[index + offset] != terminator[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// Counts line feeds in `buffer[position + range]`.
    func newlines(in range: Range<Int>) -> Int {
        let lower = min(buffer.count, position + range.lowerBound)
        let upper = min(buffer.count, position + range.upperBound)
        guard lower < upper else { return 0 }
        return buffer.withUnsafeBufferPointer { bytes in
            var count = 0
            for index in lower..<upper where bytes[index] == XMLByteClass.newline { count += 1 }
            return count
        }
    }

    /// Moves past `count` bytes that hold `newlines` line feeds.
    @inline(__always)
    mutating func consume(_ count: Int, newlines: Int) {
        position += count
        line += newlines
    }

    /// An error at `offset` bytes after `position` (the start of the current token).
    func failure(_ message: String, at offset: Int? = nil) -> ImportError {
        let errorLine = offset.map { line + newlines(in: 0..<$0) } ?? line
        return ImportError(file: file, line: errorLine, message: message)
    }

    /// A byte for a message: the character when printable ASCII, else its hex value.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
    }
}
