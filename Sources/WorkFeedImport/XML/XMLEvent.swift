/// What ``XMLPullReader/next()`` found. The event's details (name, attributes, text, line) are
/// read from the reader itself and stay valid until the next call, so that no event allocates
/// more than it has to.
enum XMLEvent: Sendable, Hashable {
    /// An element opened: see ``XMLPullReader/name`` and the attribute accessors.
    case startElement
    /// An element closed (also right after the start of a self-closing element).
    case endElement
    /// Character data: text, CDATA sections and character references, merged. Text made only of
    /// white space is not reported unless the reader was asked to.
    case text
    /// A comment; its content is in ``XMLPullReader/text``.
    case comment
    /// A processing instruction; its target is ``XMLPullReader/name`` and its data ``XMLPullReader/text``.
    case processingInstruction
    /// The root element closed and nothing but comments and white space followed.
    case endDocument
}

/// An element or attribute name, its prefix resolved to the namespace it stands for. Readers
/// match on this, never on prefixes: `gpxtpx:hr` and `ns3:hr` are the same element when both
/// prefixes are bound to the same URI.
struct XMLName: Sendable, Hashable, CustomStringConvertible {
    /// The namespace URI, empty for a name in no namespace.
    var namespace: String
    var local: String

    init(namespace: String = "", local: String) {
        self.namespace = namespace
        self.local = local
    }

    var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }
}
