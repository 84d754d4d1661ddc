import WorkFeedModel

/// Character data: plain runs, CDATA sections, references and line-end normalization.
extension XMLPullReader {
    /// What a scan of a plain run of character data found.
    struct TextRun {
        /// Offset of the `<` that ends the run, or of the end of the input.
        var end = 0
        var newlines = 0
        var whitespaceOnly = true
        /// The run holds `&` or CR and cannot be copied as it is.
        var needsDecoding = false
        /// Offset of a control character XML forbids.
        var forbidden: Int?
    }

    /// Reads text, CDATA sections and references up to the next markup other than CDATA.
    /// - Returns: whether to report a ``XMLEvent/text`` event.
    mutating func readCharacterData() throws(ImportError) -> Bool {
        if !accumulatingText { text.removeAll(keepingCapacity: true) }
        var significant = false
        while try ensure(1) {
            if buffer[position] == XMLByteClass.lessThan {
                guard try peek(1) == XMLByteClass.exclamation, try matches(Self.cdataOpen) else { break }
                try readCDATA()
                significant = true
                continue
            }
            let run = try scanTextRun()
            if let forbidden = run.forbidden {
                let byte = buffer[position + forbidden]
                throw failure("character \(Self.describe(byte)) is not allowed in XML (binary data?)", at: forbidden)
            }
            if !run.whitespaceOnly { significant = true }
            if run.needsDecoding {
                var out: [UInt8] = []
                swap(&out, &text)
                try decode(0..<run.end, into: &out, attribute: false)
                swap(&out, &text)
            } else if !run.whitespaceOnly || options.reportsWhitespaceText || accumulatingText || !text.isEmpty {
                let start = position
                text.append(contentsOf: buffer[start..<start + run.end])
            }
            consume(run.end, newlines: run.newlines)
        }
        if elements.isEmpty && significant {
            throw ImportError(file: file, line: eventLine, message: "text outside the root element: not an XML document?")
        }
        return significant || (options.reportsWhitespaceText && !text.isEmpty && !elements.isEmpty)
    }

    /// Scans a plain run from `position` to the next `<` or the end of the input, refilling as
    /// needed. This is the reader's hottest loop.
    private mutating func scanTextRun() throws(ImportError) -> TextRun {
        var run = TextRun()
        var offset = 0
        while true {
            let start = position + offset
            let found = buffer.withUnsafeBufferPointer { bytes in Self.scanText(bytes, from: start, into: &run) }
            if let found {
                run.end = found - position
                return run
            }
            if let forbidden = run.forbidden {
                run.forbidden = forbidden - position
                return run
            }
            offset = buffer.count - position
            guard try refill() else {
                run.end = offset
                return run
            }
        }
    }

    /// Returns the index of the `<` ending the run, or `nil` at the end of `bytes` (or at a
    /// forbidden byte, which is recorded in `run`).
    private static func scanText(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into run: inout TextRun) -> Int? {
        var index = start
        let count = bytes.count
        var newlines = 0
        var whitespaceOnly = run.whitespaceOnly
        var needsDecoding = run.needsDecoding
        defer {
            run.newlines += newlines
            run.whitespaceOnly = whitespaceOnly
            run.needsDecoding = needsDecoding
        }
        while index < count {
            let byte = bytes[index]
            if byte > 0x20 {
                if byte == XMLByteClass.lessThan { return index }
                if byte == XMLByteClass.ampersand { needsDecoding = true }
                whitespaceOnly = false
            } else if byte == XMLByteClass.newline {
                newlines += 1
            } else if byte == XMLByteClass.carriageReturn {
                needsDecoding = true
            } else if byte != XMLByteClass.space && byte != XMLByteClass.tab {
                run.forbidden = index
                return nil
            }
            index += 1
        }
        return nil
    }

    /// Reads `<![CDATA[…]]>` at `position`, appending its content to ``text``.
    private mutating func readCDATA() throws(ImportError) {
        let open = Self.cdataOpen.count
        guard let end = try find(Self.cdataClose, from: open) else {
            throw failure("unexpected end of file inside a CDATA section")
        }
        let newlineCount = newlines(in: 0..<end + Self.cdataClose.count)
        if elements.isEmpty { throw failure("CDATA section outside the root element") }
        try appendNormalizingLineEnds(open..<end)
        consume(end + Self.cdataClose.count, newlines: newlineCount)
    }

    /// Appends `buffer[position + range]` to ``text`` with CR LF and lone CR turned into LF.
    mutating func appendNormalizingLineEnds(_ range: Range<Int>) throws(ImportError) {
        let start = position + range.lowerBound
        let end = position + range.upperBound
        guard buffer[start..<end].contains(XMLByteClass.carriageReturn) else {
            text.append(contentsOf: buffer[start..<end])
            return
        }
        var index = start
        while index < end {
            let byte = buffer[index]
            if byte == XMLByteClass.carriageReturn {
                text.append(XMLByteClass.newline)
                if index + 1 < end && buffer[index + 1] == XMLByteClass.newline { index += 1 }
            } else {
                text.append(byte)
            }
            index += 1
        }
    }

    /// Appends `buffer[position + range]` to `out`, replacing references and normalizing line
    /// ends; in an attribute value, also turns tab, CR and LF into spaces and refuses `<`.
    func decode(_ range: Range<Int>, into out: inout [UInt8], attribute: Bool) throws(ImportError) {
        var index = position + range.lowerBound
        let end = position + range.upperBound
        while index < end {
            // Bytes that need nothing are copied a run at a time (Apple Health's `device`
            // attributes hold a few references in a long value).
            let runStart = index
            let runEnd = buffer.withUnsafeBufferPointer { bytes in
                var next = runStart
                while next < end {
                    let byte = bytes[next]
                    if byte < 0x20 || byte == XMLByteClass.ampersand || byte == XMLByteClass.lessThan { break }
                    next += 1
                }
                return next
            }
            if runEnd > runStart {
                buffer.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[runStart..<runEnd])) }
                index = runEnd
                if index == end { break }
            }
            let byte = buffer[index]
            switch byte {
            case XMLByteClass.ampersand:
                index = try decodeReference(at: index, end: end, into: &out)
                continue
            case XMLByteClass.carriageReturn:
                out.append(attribute ? XMLByteClass.space : XMLByteClass.newline)
                if index + 1 < end && buffer[index + 1] == XMLByteClass.newline { index += 1 }
            case XMLByteClass.newline, XMLByteClass.tab:
                out.append(attribute ? XMLByteClass.space : byte)
            case XMLByteClass.lessThan where attribute:
                throw failure("'<' is not allowed in an attribute value", at: index - position)
            default:
                if byte < 0x20 {
                    throw failure("character \(Self.describe(byte)) is not allowed in XML (binary data?)", at: index - position)
                }
                out.append(byte)
            }
            index += 1
        }
    }

    /// Decodes the reference starting with `&` at `index`; returns the index after its `;`.
    private func decodeReference(at index: Int, end: Int, into out: inout [UInt8]) throws(ImportError) -> Int {
        let nameStart = index + 1
        var semicolon = nameStart
        while semicolon < end && semicolon - nameStart <= 32 && buffer[semicolon] != XMLByteClass.semicolon {
            semicolon += 1
        }
        guard semicolon < end, buffer[semicolon] == XMLByteClass.semicolon, semicolon > nameStart else {
            throw failure("'&' does not start a reference (write &amp; for a literal '&')", at: index - position)
        }
        let name = buffer[nameStart..<semicolon]
        if name.first == XMLByteClass.hash {
            guard let scalar = Self.characterReference(name.dropFirst()), Self.isXMLCharacter(scalar) else {
                let text = String(decoding: name, as: UTF8.self)
                throw failure("&\(text); is not a valid character reference", at: index - position)
            }
            XMLTextEncoding.appendUTF8(scalar, to: &out)
            return semicolon + 1
        }
        // The five predefined entities, matched on bytes.
        if name.elementsEqual(Self.entityLT) {
            out.append(XMLByteClass.lessThan)
        } else if name.elementsEqual(Self.entityGT) {
            out.append(XMLByteClass.greaterThan)
        } else if name.elementsEqual(Self.entityAmp) {
            out.append(XMLByteClass.ampersand)
        } else if name.elementsEqual(Self.entityQuot) {
            out.append(XMLByteClass.quote)
        } else if name.elementsEqual(Self.entityApos) {
            out.append(XMLByteClass.apostrophe)
        } else {
            throw failure(
                "undefined entity &\(String(decoding: name, as: UTF8.self)); (entities declared in a DTD are never expanded)",
                at: index - position)
        }
        return semicolon + 1
    }

    private static let entityLT: [UInt8] = [0x6C, 0x74]
    private static let entityGT: [UInt8] = [0x67, 0x74]
    private static let entityAmp: [UInt8] = [0x61, 0x6D, 0x70]
    private static let entityQuot: [UInt8] = [0x71, 0x75, 0x6F, 0x74]
    private static let entityApos: [UInt8] = [0x61, 0x70, 0x6F, 0x73]

    /// Parses `x1F` or `31` (the part of `&#…;` after `#`).
    private static func characterReference(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var digits = digits
        var radix: UInt32 = 10
        if digits.first == UInt8(ascii: "x") {
            radix = 16
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * radix + digit
        }
        return value
    }

    /// XML 1.0's `Char` production: what a character reference may stand for.
    private static func isXMLCharacter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
