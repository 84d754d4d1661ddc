import WorkFeedModel

/// The start of the document (byte order mark, XML declaration), comments, processing
/// instructions and the DOCTYPE.
extension XMLPullReader {
    /// Checks the first bytes: skips a UTF-8 byte order mark, refuses UTF-16 and binary data, and
    /// reads the XML declaration, switching encodings when it names one.
    mutating func readStartOfDocument() throws(ImportError) {
        started = true
        _ = try ensure(4)
        let head = Array(buffer[position..<min(buffer.count, position + 4)])
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            consume(3, newlines: 0)
        } else if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) {
            throw failure("UTF-16 text is not supported: save the file as UTF-8")
        } else if head.count >= 2 && (head[0] == 0 || head[1] == 0) {
            throw failure("not a UTF-8 text file (it starts with a NUL byte: binary data or UTF-16)")
        }
        let declaration = Array("<?xml".utf8)
        if try matches(declaration), let after = try peek(declaration.count), XMLByteClass.isWhitespace(after) {
            try readDeclaration()
        }
    }

    /// Reads `<?xml version="1.0" encoding="…"?>`.
    private mutating func readDeclaration() throws(ImportError) {
        guard let end = try find(Self.processingInstructionClose, from: 5) else {
            throw failure("unexpected end of file inside the XML declaration")
        }
        let content = String(decoding: buffer[(position + 5)..<(position + end)], as: UTF8.self)
        let newlineCount = newlines(in: 0..<end + 2)
        let fields = Self.pseudoAttributes(content)
        if let name = fields["encoding"] {
            guard let declared = XMLTextEncoding(declaredName: name) else {
                throw failure("unsupported encoding '\(name)': UTF-8, ISO-8859-1 and Windows-1252 are read")
            }
            encoding = declared
        }
        consume(end + 2, newlines: newlineCount)
        if encoding != .utf8 { encoding.transcodeToUTF8(&buffer, from: position) }
    }

    /// Splits `version="1.0" encoding='UTF-8'` into its fields; malformed parts are ignored, as
    /// the declaration only matters for its encoding.
    private static func pseudoAttributes(_ content: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(content)
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingWhitespace()
            var value = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard let quote = value.first, quote == "\"" || quote == "'" else { break }
            value = value.dropFirst()
            guard let close = value.firstIndex(of: quote) else { break }
            fields[String(key)] = String(value[..<close])
            rest = value[value.index(after: close)...]
        }
        return fields
    }

    /// Reads `<!-- … -->` into ``text`` (unless text is being gathered for an element).
    mutating func readComment() throws(ImportError) {
        let open = Self.commentOpen.count
        guard let end = try find(Self.commentClose, from: open) else {
            throw failure("unexpected end of file inside a comment")
        }
        let newlineCount = newlines(in: 0..<end + Self.commentClose.count)
        if !accumulatingText {
            text.removeAll(keepingCapacity: true)
            try appendNormalizingLineEnds(open..<end)
        }
        consume(end + Self.commentClose.count, newlines: newlineCount)
    }

    /// Reads `<?target data?>`; the target goes to ``name`` and the data to ``text``.
    mutating func readProcessingInstruction() throws(ImportError) {
        guard let end = try find(Self.processingInstructionClose, from: 2) else {
            throw failure("unexpected end of file inside a processing instruction")
        }
        let newlineCount = newlines(in: 0..<end + 2)
        let bytes = buffer
        let (target, dataStart) = bytes.withUnsafeBufferPointer { pointer in
            let nameEnd = Self.scanName(pointer, from: position + 2, limit: position + end)
            var dataStart = nameEnd
            while dataStart < position + end && XMLByteClass.isWhitespace(pointer[dataStart]) { dataStart += 1 }
            return (String(decoding: UnsafeBufferPointer(rebasing: pointer[(position + 2)..<nameEnd]), as: UTF8.self), dataStart)
        }
        guard !target.isEmpty else { throw failure("a processing instruction without a target") }
        guard target.lowercased() != "xml" else {
            throw failure("an XML declaration is only allowed at the very start of the file")
        }
        name = XMLName(local: target)
        if !accumulatingText {
            text.removeAll(keepingCapacity: true)
            try appendNormalizingLineEnds((dataStart - position)..<end)
        }
        consume(end + 2, newlines: newlineCount)
    }

    /// Skips `<!DOCTYPE …>` with its internal subset. Nothing in it is used: entities declared
    /// there are never expanded and external identifiers never fetched.
    mutating func skipDoctype() throws(ImportError) {
        guard !sawRoot else { throw failure("a DOCTYPE is only allowed before the root element") }
        var offset = Self.doctypeOpen.count
        var quote: UInt8 = 0
        var depth = 0
        while true {
            guard let byte = try peek(offset) else { throw failure("unexpected end of file inside the DOCTYPE") }
            if quote != 0 {
                if byte == quote { quote = 0 }
                offset += 1
                continue
            }
            switch byte {
            case XMLByteClass.quote, XMLByteClass.apostrophe:
                quote = byte
            case XMLByteClass.openBracket:
                depth += 1
            case XMLByteClass.closeBracket:
                depth -= 1
                guard depth >= 0 else { throw failure("unbalanced ']' in the DOCTYPE", at: offset) }
            case XMLByteClass.lessThan where depth > 0:
                if try matches(Self.commentOpen, at: offset) {
                    guard let end = try find(Self.commentClose, from: offset + 4) else {
                        throw failure("unexpected end of file inside a comment in the DOCTYPE")
                    }
                    offset = end + Self.commentClose.count
                    continue
                }
                if try peek(offset + 1) == XMLByteClass.question {
                    guard let end = try find(Self.processingInstructionClose, from: offset + 2) else {
                        throw failure("unexpected end of file inside the DOCTYPE")
                    }
                    offset = end + 2
                    continue
                }
            case XMLByteClass.greaterThan where depth == 0:
                consume(offset + 1, newlines: newlines(in: 0..<offset + 1))
                return
            default:
                break
            }
            offset += 1
        }
    }
}

extension Substring {
    /// The text without leading and trailing ASCII white space.
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
