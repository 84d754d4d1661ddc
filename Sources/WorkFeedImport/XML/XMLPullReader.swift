import WorkFeedModel

/// A pull reader for XML over bytes, written for workout files: fast, strict about
/// well-formedness, and safe with hostile input.
///
/// Call ``next()`` for each event; the event's details (``name``, the attributes, ``text``,
/// ``eventLine``) are read from the reader and stay valid until the next call. Nothing is turned
/// into a `String` unless asked for, and names and namespace URIs are interned, so most events
/// allocate nothing (a large GPX file imports at about 80 MB/s on one core; see docs/import.md).
///
/// What it handles: elements, attributes, namespaces (names are resolved to URIs), text, CDATA,
/// comments, processing instructions, the five predefined entities and character references, a
/// UTF-8 byte order mark, and ISO-8859-1 or Windows-1252 when the XML declaration says so. A
/// DOCTYPE, internal subset included, is skipped: entities declared there are never expanded and
/// external ones never fetched, so a reference to one is an "undefined entity" error and an
/// entity-expansion bomb cannot grow.
///
/// The bytes come either all at once or from an ``XMLByteSource`` in chunks; the reader then keeps
/// only the current token and the chunk after it, so memory stays bounded for any file size.
struct XMLPullReader {
    struct Options: Sendable {
        /// Reports text made only of white space (indentation) as ``XMLEvent/text`` events.
        var reportsWhitespaceText = false
        /// Bytes asked of the source at a time.
        var chunkSize = 1 << 20

        init(reportsWhitespaceText: Bool = false, chunkSize: Int = 1 << 20) {
            self.reportsWhitespaceText = reportsWhitespaceText
            self.chunkSize = max(1, chunkSize)
        }
    }

    struct Attribute {
        var name: XMLName
        var prefix: String
        /// Where the decoded value is in ``XMLPullReader/attributeBytes``.
        var value: Range<Int>
        /// The qualified name's index in ``XMLPullReader/qualifiedNames``, -1 when not interned:
        /// two unprefixed attributes with interned names are the same exactly when their indices are.
        var nameIndex = -1
    }

    struct QualifiedName {
        var prefix: String
        var local: String

        var description: String { prefix.isEmpty ? local : "\(prefix):\(local)" }
    }

    struct OpenElement {
        var name: XMLName
        var prefix: String
        /// The qualified name's index in ``XMLPullReader/qualifiedNames``, -1 when not interned.
        var nameIndex: Int
        var line: Int
        /// How many namespace bindings were in scope before this element's own.
        var bindingCount: Int

        var qualifiedName: String { prefix.isEmpty ? name.local : "\(prefix):\(name.local)" }
    }

    struct NamespaceBinding {
        var prefix: String
        var uri: String
    }

    /// The file name used in errors.
    let file: String
    let options: Options

    // Input. `buffer[position...]` is unread; a refill drops `buffer[..<position]`, so offsets
    // relative to `position` survive it.
    var buffer: [UInt8]
    var position = 0
    var source: (any XMLByteSource)?
    var encoding = XMLTextEncoding.utf8
    /// The line at `position`.
    var line = 1

    // The current event.
    /// The line the current event starts on.
    var eventLine = 1
    /// The element's name for start and end events; the target for a processing instruction.
    var name = XMLName(local: "")
    /// Character data, comment or processing-instruction content, as UTF-8.
    var text: [UInt8] = []
    /// Decoded attribute values of the current start tag, one after the other.
    var attributeBytes: [UInt8] = []
    var attributes: [Attribute] = []

    // Document state.
    var elements: [OpenElement] = []
    var bindings: [NamespaceBinding] = []
    var pendingEnd = false
    /// End events still owed for elements a lenient region left unclosed (see ``XMLPullReader+Lenient``).
    var pendingEnds = 0
    /// The depth of the element whose content is read leniently (`<extensions>`), `nil` outside one.
    var lenientDepth: Int?
    /// What a lenient region passed over, first of each kind, with how often it happened.
    var lenientWarnings: [(warning: ImportError, count: Int)] = []
    var lenientWarningIndex: [String: Int] = [:]
    var sawRoot = false
    var started = false
    /// Set while ``readElementText()`` gathers text: character data is appended, not replaced.
    var accumulatingText = false
    var qualifiedNames = XMLInternTable<QualifiedName>()
    var uris = XMLInternTable<String>()

    /// Reads a document held in memory.
    init(bytes: [UInt8], file: String, options: Options = Options()) {
        self.file = file
        self.options = options
        self.buffer = bytes
    }

    /// Reads a document from a source, a chunk at a time.
    init(source: any XMLByteSource, file: String, options: Options = Options()) {
        self.file = file
        self.options = options
        self.buffer = []
        self.source = source
    }

    /// How many elements are open; 1 inside the root element.
    var depth: Int { elements.count }

    /// Reads up to the next event.
    /// - Throws: ``ImportError`` naming the file and line when the document is not well-formed,
    ///   is truncated, or uses something the reader refuses (an undefined entity, UTF-16).
    mutating func next() throws(ImportError) -> XMLEvent {
        if pendingEnd {
            pendingEnd = false
            return closeElement()
        }
        if pendingEnds > 0 {
            pendingEnds -= 1
            return closeElement()
        }
        if !started { try readStartOfDocument() }
        while true {
            guard try ensure(1) else { return try endOfInput() }
            eventLine = line
            guard buffer[position] == XMLByteClass.lessThan else {
                if try readCharacterData() { return .text }
                continue
            }
            guard let second = try peek(1) else { throw failure("unexpected end of file after '<'") }
            switch second {
            case XMLByteClass.slash:
                return try readEndTag()
            case XMLByteClass.question:
                try readProcessingInstruction()
                return .processingInstruction
            case XMLByteClass.exclamation:
                if try matches(Self.commentOpen) {
                    try readComment()
                    return .comment
                }
                if try matches(Self.cdataOpen) {
                    if try readCharacterData() { return .text }
                    continue
                }
                if try matches(Self.doctypeOpen) {
                    try skipDoctype()
                    continue
                }
                throw failure("unknown markup '<!': expected a comment, CDATA section or DOCTYPE")
            default:
                return try readStartTag()
            }
        }
    }

    static let commentOpen = Array("<!--".utf8)
    static let commentClose = Array("-->".utf8)
    static let cdataOpen = Array("<![CDATA[".utf8)
    static let cdataClose = Array("]]>".utf8)
    static let doctypeOpen = Array("<!DOCTYPE".utf8)
    static let processingInstructionClose = Array("?>".utf8)
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    /// Pops the innermost element and reports its end.
    mutating func closeElement() -> XMLEvent {
        guard let top = elements.popLast() else { return .endDocument }
        bindings.removeLast(bindings.count - top.bindingCount)
        name = top.name
        return .endElement
    }

    private mutating func endOfInput() throws(ImportError) -> XMLEvent {
        eventLine = line
        if let top = elements.last {
            throw failure("unexpected end of file: <\(top.qualifiedName)> opened at line \(top.line) is not closed")
        }
        guard sawRoot else { throw failure("no root element: the file is empty or not XML") }
        return .endDocument
    }
}
