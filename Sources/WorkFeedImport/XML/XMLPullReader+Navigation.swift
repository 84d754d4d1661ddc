import WorkFeedModel

/// Helpers for readers that walk a document element by element.
extension XMLPullReader {
    /// Reads up to the document's root element and gives its name (``name``), for the format's
    /// reader to check: the one way each format's reader starts (GPX, TCX, Apple Health). A
    /// document without one is refused by ``next()`` at its end ("no root element: the file is
    /// empty or not XML"); should an end come first all the same, it is "not <format> (no root
    /// element)", named with `file` and the line.
    /// - Parameter format: the format with its article, as a message names it: "a GPX file".
    mutating func rootElement(of format: String, file: String) throws(ImportError) -> XMLName {
        while true {
            switch try next() {
            case .startElement: return name
            case .endDocument: throw ImportError(file: file, line: eventLine, message: "not \(format) (no root element)")
            default: continue
            }
        }
    }

    /// Skips the rest of the element whose start was just read, children included.
    mutating func skipElement() throws(ImportError) {
        let depth = elements.count
        while true {
            switch try next() {
            case .endElement where elements.count < depth: return
            case .endDocument: return
            default: continue
            }
        }
    }

    /// Reads the rest of the element whose start was just read and leaves its character data in
    /// ``text``; text inside child elements is skipped. Afterwards the element is closed.
    mutating func readElementText() throws(ImportError) {
        let depth = elements.count
        text.removeAll(keepingCapacity: true)
        accumulatingText = true
        defer { accumulatingText = false }
        while true {
            switch try next() {
            case .endElement where elements.count < depth:
                return
            case .startElement:
                var gathered: [UInt8] = []
                swap(&gathered, &text)
                accumulatingText = false
                try skipElement()
                accumulatingText = true
                swap(&gathered, &text)
            case .endDocument:
                return
            default:
                continue
            }
        }
    }

    /// ``text`` as a string.
    var textString: String { String(decoding: text, as: UTF8.self) }

    /// ``text`` without leading and trailing white space, `nil` when nothing is left.
    var trimmedText: String? {
        let bytes = Self.trimmed(text[...])
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// The decoded value of an attribute as bytes, `nil` when the start tag has none.
    /// - Parameter namespace: "" (the default) for an attribute without prefix.
    func attributeValue(_ local: String, namespace: String = "") -> ArraySlice<UInt8>? {
        attributeRange(local, namespace: namespace).map { attributeBytes[$0] }
    }

    /// Where the decoded value of an attribute is in ``attributeBytes``.
    func attributeRange(_ local: String, namespace: String = "") -> Range<Int>? {
        attributes.withUnsafeBufferPointer { attributes in
            for index in attributes.indices
            where attributes[index].name.local == local && attributes[index].name.namespace == namespace {
                return attributes[index].value
            }
            return nil
        }
    }

    /// The decoded value of an attribute as a string, `nil` when the start tag has none.
    func attribute(_ local: String, namespace: String = "") -> String? {
        attributeValue(local, namespace: namespace).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `bytes` without leading and trailing XML white space.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper && XMLByteClass.isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower && XMLByteClass.isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return bytes[lower..<upper]
    }
}

extension XMLPullReader {
    /// Moves to the next element start inside the element opened at `depth` (the reader's
    /// ``depth`` just after its start tag), skipping text and comments. A child that the caller
    /// neither reads nor skips is descended into, so its own children come next:
    ///
    /// ```swift
    /// let depth = reader.depth
    /// while try reader.nextChild(of: depth) {
    ///     // at a child's start tag: read it, or skipElement()
    /// }
    /// ```
    /// - Returns: `true` at an element's start tag; `false` once the element at `depth` has closed.
    mutating func nextChild(of depth: Int) throws(ImportError) -> Bool {
        while true {
            switch try next() {
            case .startElement: return true
            case .endElement where self.depth < depth: return false
            case .endDocument: return false
            default: continue
            }
        }
    }
}
