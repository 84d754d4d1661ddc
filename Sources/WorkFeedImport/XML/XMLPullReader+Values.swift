import WorkFeedModel

/// Typed values of leaf elements and attributes, with errors that name the file, line and field.
extension XMLPullReader {
    /// Reads the rest of the current element as a number; `nil` when it is empty.
    /// - Throws: ``ImportError`` naming `field` when the text is not a number.
    mutating func readNumber(field: String) throws(ImportError) -> Double? {
        let line = eventLine
        try readElementText()
        if let value = text.withUnsafeBufferPointer({ DecimalParser.parse($0) }), value.isFinite { return value }
        return try number(from: text[...], field: field, line: line)
    }

    /// Reads the rest of the current element as a timestamp; `nil` when it is empty.
    /// - Throws: ``ImportError`` naming `field` when the text is not an ISO 8601 timestamp.
    mutating func readTimestamp(field: String) throws(ImportError) -> TimestampParser.Timestamp? {
        let line = eventLine
        try readElementText()
        if let timestamp = text.withUnsafeBufferPointer({ TimestampParser.parse($0) }) { return timestamp }
        let value = Self.trimmed(text[...])
        guard !value.isEmpty else { return nil }
        guard let timestamp = TimestampParser.parse(value) else {
            throw ImportError(file: file, line: line, field: field, message: "not an ISO 8601 time: '\(Self.excerpt(value))'")
        }
        return timestamp
    }

    /// Reads the rest of the current element as text without surrounding white space; `nil` when empty.
    mutating func readTrimmedText() throws(ImportError) -> String? {
        try readElementText()
        return trimmedText
    }

    /// A number attribute of the current start tag.
    /// - Throws: ``ImportError`` naming the attribute when it is missing or not a number.
    func numberAttribute(_ local: String) throws(ImportError) -> Double {
        guard let range = attributeRange(local) else {
            throw ImportError(file: file, line: eventLine, field: local, message: "missing in <\(name.local)>")
        }
        // Parsed in place: slicing the array would cost a retain and a release per value.
        let value = attributeBytes.withUnsafeBufferPointer { DecimalParser.parse(UnsafeBufferPointer(rebasing: $0[range])) }
        if let value, value.isFinite { return value }
        let bytes = Self.trimmed(attributeBytes[range])
        let message = bytes.isEmpty ? "empty in <\(name.local)>" : "not a number: '\(Self.excerpt(bytes))'"
        throw ImportError(file: file, line: eventLine, field: local, message: message)
    }

    /// Parses `bytes` as a number; `nil` when they are empty or white space.
    func number(from bytes: ArraySlice<UInt8>, field: String, line: Int) throws(ImportError) -> Double? {
        let value = Self.trimmed(bytes)
        guard !value.isEmpty else { return nil }
        guard let number = DecimalParser.parse(value), number.isFinite else {
            throw ImportError(file: file, line: line, field: field, message: "not a number: '\(Self.excerpt(value))'")
        }
        return number
    }

    /// At most 40 characters of a value, for messages.
    static func excerpt(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return bytes.count > 40 ? text + "…" : text
    }
}
