import WorkFeedModel

/// Lenient regions: content that WorkFeed does not need to understand (`<extensions>` in GPX,
/// `<Extensions>` in TCX) is read with tolerance for what exporters get wrong there. Inside one,
/// an undeclared namespace prefix gives the element or attribute a namespace no reader knows (so
/// it is skipped), and a closing tag of an element still open in the region closes the elements
/// left open inside it. Each kind of problem gives one warning naming the file and the line of its
/// first occurrence, with how often it happened. Outside a region the reader stays strict.
extension XMLPullReader {
    /// The namespace given to an undeclared prefix inside a lenient region, followed by the prefix.
    static let undeclaredNamespace = "urn:workfeed:undeclared-prefix:"

    /// Whether the element being read is inside a lenient region.
    var isLenient: Bool {
        guard let lenientDepth else { return false }
        return elements.count >= lenientDepth
    }

    /// The name of the element that opened the lenient region, for messages.
    var lenientElementName: String {
        guard let lenientDepth, lenientDepth >= 1, lenientDepth <= elements.count else { return "extensions" }
        return elements[lenientDepth - 1].qualifiedName
    }

    /// Makes the content of the element whose start was just read lenient.
    /// - Returns: the previous state, for ``endLenient(_:)``.
    mutating func beginLenient() -> Int? {
        let previous = lenientDepth
        if lenientDepth == nil { lenientDepth = elements.count }
        return previous
    }

    /// Restores the state ``beginLenient()`` returned.
    mutating func endLenient(_ previous: Int?) {
        lenientDepth = previous
    }

    /// Skips the element whose start was just read, leniently.
    mutating func skipLeniently() throws(ImportError) {
        let previous = beginLenient()
        defer { endLenient(previous) }
        try skipElement()
    }

    /// Records a problem passed over in a lenient region, at the current event's line.
    mutating func warnLeniently(kind: String, _ message: String, field: String? = nil) {
        if let index = lenientWarningIndex[kind] {
            lenientWarnings[index].count += 1
        } else {
            lenientWarningIndex[kind] = lenientWarnings.count
            lenientWarnings.append((ImportError(file: file, line: eventLine, field: field, message: message), 1))
        }
    }

    /// The warnings so far, each saying how often its problem occurred.
    var warnings: [ImportError] {
        lenientWarnings.map { entry in
            var warning = entry.warning
            if entry.count > 1 { warning.message += " (\(entry.count) times, this is the first)" }
            return warning
        }
    }
}
