import WorkFeedModel

/// Start and end tags, attributes and namespace scopes.
extension XMLPullReader {
    /// Reads a start tag at `position` (which holds `<`).
    mutating func readStartTag() throws(ImportError) -> XMLEvent {
        let (tagEnd, newlineCount) = try findTagEnd()
        let isRoot = elements.isEmpty
        let bytes = buffer
        let elementName = try bytes.withUnsafeBufferPointer { (pointer) throws(ImportError) -> XMLName in
            try parseStartTag(pointer, tagEnd: position + tagEnd)
        }
        if isRoot {
            if sawRoot {
                throw failure("a second root element <\(elementName.local)>: only one is allowed")
            }
            sawRoot = true
        }
        name = elementName
        consume(tagEnd + 1, newlines: newlineCount)
        return .startElement
    }

    /// Finds the `>` closing the tag at `position`, skipping quoted attribute values.
    /// - Returns: its offset and the line feeds before it.
    private mutating func findTagEnd() throws(ImportError) -> (Int, Int) {
        var state = TagScan()
        var offset = 1
        while true {
            let start = position + offset
            let found = buffer.withUnsafeBufferPointer { bytes in Self.scanTag(bytes, from: start, state: &state) }
            if let found {
                if buffer[found] == XMLByteClass.lessThan {
                    throw failure("'<' inside a tag: the tag is not closed", at: found - position)
                }
                return (found - position, state.newlines)
            }
            offset = buffer.count - position
            guard try refill() else {
                throw failure("unexpected end of file inside a tag")
            }
        }
    }

    private struct TagScan {
        var quote: UInt8 = 0
        var newlines = 0
    }

    /// Returns the index of the closing `>` (or of a stray `<`), or `nil` at the end of `bytes`.
    private static func scanTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, state: inout TagScan) -> Int? {
        var index = start
        var quote = state.quote
        var newlines = 0
        defer {
            state.quote = quote
            state.newlines += newlines
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == XMLByteClass.newline {
                newlines += 1
            } else if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == XMLByteClass.greaterThan || byte == XMLByteClass.lessThan {
                return index
            } else if byte == XMLByteClass.quote || byte == XMLByteClass.apostrophe {
                quote = byte
            }
            index += 1
        }
        return nil
    }

    /// Parses the tag in `bytes[position ..< tagEnd]`, declares its namespaces, resolves names
    /// and pushes the element.
    private mutating func parseStartTag(_ bytes: UnsafeBufferPointer<UInt8>, tagEnd: Int) throws(ImportError) -> XMLName {
        let selfClosing = bytes[tagEnd - 1] == XMLByteClass.slash && tagEnd - 1 > position + 1
        let contentEnd = selfClosing ? tagEnd - 1 : tagEnd
        var index = position + 1
        let nameEnd = Self.scanName(bytes, from: index, limit: contentEnd)
        guard nameEnd > index, XMLByteClass.isNameStart(bytes[index]) else {
            throw failure("'<' not followed by a name (write &lt; for a literal '<')")
        }
        let (element, elementIndex) = try internedName(bytes, index..<nameEnd)
        index = nameEnd
        attributes.removeAll(keepingCapacity: true)
        attributeBytes.removeAll(keepingCapacity: true)
        let bindingCount = bindings.count
        var hasPrefixedAttribute = false

        while true {
            let spaceStart = index
            while index < contentEnd && XMLByteClass.isWhitespace(bytes[index]) { index += 1 }
            if index == contentEnd { break }
            let attributeStart = index
            let attributeEnd = Self.scanName(bytes, from: index, limit: contentEnd)
            guard index > spaceStart, attributeEnd > index, XMLByteClass.isNameStart(bytes[index]) else {
                throw failure(
                    "unexpected \(Self.describe(bytes[index])) in tag <\(element.description)>", at: index - position)
            }
            let (attributeName, attributeIndex) = try internedName(bytes, attributeStart..<attributeEnd)
            index = attributeEnd
            while index < contentEnd && XMLByteClass.isWhitespace(bytes[index]) { index += 1 }
            guard index < contentEnd, bytes[index] == XMLByteClass.equals else {
                throw failure("attribute \(attributeName.description) has no '=value'", at: index - position)
            }
            index += 1
            while index < contentEnd && XMLByteClass.isWhitespace(bytes[index]) { index += 1 }
            guard index < contentEnd, bytes[index] == XMLByteClass.quote || bytes[index] == XMLByteClass.apostrophe else {
                throw failure("the value of attribute \(attributeName.description) is not quoted", at: index - position)
            }
            let quote = bytes[index]
            let valueStart = index + 1
            var valueEnd = valueStart
            while valueEnd < contentEnd && bytes[valueEnd] != quote { valueEnd += 1 }
            guard valueEnd < contentEnd else {
                throw failure("the value of attribute \(attributeName.description) is not closed", at: index - position)
            }
            let stored = attributeBytes.count
            var out: [UInt8] = []
            swap(&out, &attributeBytes)
            try decodeAttributeValue(bytes, valueStart..<valueEnd, into: &out)
            swap(&out, &attributeBytes)
            index = valueEnd + 1

            var namespace = ""
            // Only a name starting with "xmlns" can declare a namespace: checking the first byte
            // spares two string comparisons for every other attribute.
            let mayDeclare = bytes[attributeStart] == UInt8(ascii: "x")
            if mayDeclare && attributeName.prefix == "xmlns" {
                namespace = Self.xmlnsNamespace
                try declare(prefix: attributeName.local, uriBytes: stored..<attributeBytes.count, at: attributeStart)
            } else if mayDeclare && attributeName.prefix.isEmpty && attributeName.local == "xmlns" {
                namespace = Self.xmlnsNamespace
                try declare(prefix: "", uriBytes: stored..<attributeBytes.count, at: attributeStart)
            } else if !attributeName.prefix.isEmpty {
                hasPrefixedAttribute = true
            }
            attributes.append(
                Attribute(
                    name: XMLName(namespace: namespace, local: attributeName.local), prefix: attributeName.prefix,
                    value: stored..<attributeBytes.count, nameIndex: attributeIndex))
        }

        if hasPrefixedAttribute {
            for index in attributes.indices where !attributes[index].prefix.isEmpty && attributes[index].name.namespace.isEmpty {
                let prefix = attributes[index].prefix
                guard let uri = namespace(forPrefix: prefix), !uri.isEmpty else {
                    let message = "undeclared namespace prefix '\(prefix)' on attribute \(prefix):\(attributes[index].name.local)"
                    guard isLenient else { throw failure(message) }
                    warnLeniently(kind: "prefix:" + prefix, message + " inside <\(lenientElementName)>: skipped")
                    attributes[index].name.namespace = Self.undeclaredNamespace + prefix
                    continue
                }
                attributes[index].name.namespace = uri
            }
        }
        try checkUniqueAttributes(in: element)

        var uri = namespace(forPrefix: element.prefix)
        if uri == nil {
            let message = "undeclared namespace prefix '\(element.prefix)' on element <\(element.description)>"
            guard isLenient else { throw failure(message) }
            // Inside <extensions>: the element is given a namespace no reader knows, so it is skipped.
            warnLeniently(kind: "prefix:" + element.prefix, message + " inside <\(lenientElementName)>: skipped")
            uri = Self.undeclaredNamespace + element.prefix
        }
        let resolved = XMLName(namespace: uri ?? "", local: element.local)
        elements.append(
            OpenElement(
                name: resolved, prefix: element.prefix, nameIndex: elementIndex, line: eventLine, bindingCount: bindingCount))
        pendingEnd = selfClosing
        return resolved
    }

    /// Decodes an attribute value: references, and tab/CR/LF as spaces. Copies it as it is when
    /// nothing needs decoding, the common case.
    private func decodeAttributeValue(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into out: inout [UInt8]
    ) throws(ImportError) {
        var plain = true
        for index in range {
            let byte = bytes[index]
            if byte < 0x20 || byte == XMLByteClass.ampersand || byte == XMLByteClass.lessThan {
                plain = false
                break
            }
        }
        if plain {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
        } else {
            try decode((range.lowerBound - position)..<(range.upperBound - position), into: &out, attribute: true)
        }
    }

    private mutating func declare(prefix: String, uriBytes: Range<Int>, at index: Int) throws(ImportError) {
        let uri = attributeBytes.withUnsafeBufferPointer { bytes in
            let slice = UnsafeBufferPointer(rebasing: bytes[uriBytes])
            if let known = uris.lookup(slice) { return known }
            let value = Self.wellKnown(String(decoding: slice, as: UTF8.self))
            _ = uris.insert(slice, value: value)
            return value
        }
        if prefix == "xmlns" || (prefix == "xml" && uri != Self.xmlNamespace) {
            throw failure("the prefix '\(prefix)' cannot be declared", at: index - position)
        }
        if !prefix.isEmpty && uri.isEmpty {
            throw failure("the prefix '\(prefix)' is bound to an empty namespace", at: index - position)
        }
        bindings.append(NamespaceBinding(prefix: prefix, uri: uri))
    }

    /// The URI a prefix stands for here; "" for no prefix outside any default namespace; `nil`
    /// for an undeclared prefix.
    func namespace(forPrefix prefix: String) -> String? {
        if prefix == "xml" { return Self.xmlNamespace }
        if prefix == "xmlns" { return Self.xmlnsNamespace }
        let found = bindings.withUnsafeBufferPointer { bindings -> String? in
            var index = bindings.count - 1
            while index >= 0 {
                if bindings[index].prefix == prefix { return bindings[index].uri }
                index -= 1
            }
            return nil
        }
        return found ?? (prefix.isEmpty ? "" : nil)
    }

    private func checkUniqueAttributes(in element: QualifiedName) throws(ImportError) {
        guard attributes.count > 1 else { return }
        if attributes.count <= 16 {
            try attributes.withUnsafeBufferPointer { (attributes) throws(ImportError) in
                for first in 0..<attributes.count - 1 {
                    for second in first + 1..<attributes.count where Self.sameName(attributes[first], attributes[second]) {
                        throw failure("attribute \(attributes[second].name) appears twice in <\(element.description)>")
                    }
                }
            }
        } else {
            var seen = Set<XMLName>()
            for attribute in attributes where !seen.insert(attribute.name).inserted {
                throw failure("attribute \(attribute.name) appears twice in <\(element.description)>")
            }
        }
    }

    /// Whether two attributes of a tag have the same expanded name. Unprefixed interned names are
    /// compared by their index, which spares a string comparison for every pair (Apple Health
    /// records have nine attributes); prefixed names can differ in prefix and still clash.
    @inline(__always)
    private static func sameName(_ first: Attribute, _ second: Attribute) -> Bool {
        if first.nameIndex >= 0 && second.nameIndex >= 0 && first.prefix.isEmpty && second.prefix.isEmpty {
            return first.nameIndex == second.nameIndex
        }
        return first.name == second.name
    }

    /// Reads an end tag at `position` (which holds `</`).
    mutating func readEndTag() throws(ImportError) -> XMLEvent {
        guard let end = try find([XMLByteClass.greaterThan], from: 2) else {
            throw failure("unexpected end of file inside a closing tag")
        }
        let newlineCount = newlines(in: 0..<end)
        guard !elements.isEmpty else {
            throw failure("a closing tag without an open element")
        }
        // Only the interned index is read here: copying the whole open element costs retains.
        let openIndex = elements[elements.count - 1].nameIndex
        let bytes = buffer
        try bytes.withUnsafeBufferPointer { (pointer) throws(ImportError) in
            let start = position + 2
            let nameEnd = Self.scanName(pointer, from: start, limit: position + end)
            guard nameEnd > start else { throw failure("a closing tag without a name") }
            var index = nameEnd
            while index < position + end && XMLByteClass.isWhitespace(pointer[index]) { index += 1 }
            guard index == position + end else {
                throw failure("unexpected \(Self.describe(pointer[index])) in a closing tag", at: index - position)
            }
            // The common case: the same bytes as the start tag, compared without hashing.
            let name = UnsafeBufferPointer(rebasing: pointer[start..<nameEnd])
            if openIndex >= 0 && qualifiedNames.key(at: openIndex, equals: name) { return }
            let closing = try qualifiedName(pointer, start..<nameEnd)
            let open = elements[elements.count - 1]
            guard open.prefix == closing.prefix && open.name.local == closing.local else {
                let message = "mismatched tag: </\(closing.description)> closes <\(open.qualifiedName)> opened at line \(open.line)"
                // Inside <extensions>, a closing tag of an element still open there (the
                // <extensions> itself included) closes what was left open in between.
                guard let lenientDepth,
                    let matched = elements.indices.last(where: {
                        $0 >= lenientDepth - 1 && elements[$0].prefix == closing.prefix && elements[$0].name.local == closing.local
                    })
                else { throw failure(message) }
                warnLeniently(kind: "mismatched", message + " inside <\(lenientElementName)>: taken as closed")
                pendingEnds = elements.count - 1 - matched
                return
            }
        }
        consume(end + 1, newlines: newlineCount)
        return closeElement()
    }

    /// The end of the name starting at `start`.
    static func scanName(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Int {
        var index = start
        while index < limit && XMLByteClass.isNameByte(bytes[index]) { index += 1 }
        return index
    }

    /// Splits and interns a qualified name.
    mutating func qualifiedName(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(ImportError) -> QualifiedName {
        try internedName(bytes, range).name
    }

    /// Splits and interns a qualified name; also returns its index in ``qualifiedNames`` (-1 once
    /// the table is full).
    mutating func internedName(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) throws(ImportError) -> (name: QualifiedName, index: Int) {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if let index = qualifiedNames.index(of: slice) { return (qualifiedNames.value(at: index), index) }
        let colon = slice.firstIndex(of: XMLByteClass.colon)
        let result: QualifiedName
        if let colon {
            let local = UnsafeBufferPointer(rebasing: slice[(colon + 1)...])
            guard colon > 0, !local.isEmpty, !local.contains(XMLByteClass.colon), XMLByteClass.isNameStart(local[0]) else {
                throw failure("'\(String(decoding: slice, as: UTF8.self))' is not a valid qualified name")
            }
            result = QualifiedName(
                prefix: String(decoding: UnsafeBufferPointer(rebasing: slice[..<colon]), as: UTF8.self),
                local: Self.wellKnown(String(decoding: local, as: UTF8.self)))
        } else {
            result = QualifiedName(prefix: "", local: Self.wellKnown(String(decoding: slice, as: UTF8.self)))
        }
        return (result, qualifiedNames.insert(slice, value: result) ?? -1)
    }
}
