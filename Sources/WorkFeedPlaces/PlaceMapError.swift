public import WorkFeedBytes

/// Why a places file cannot be used: a code to switch on, the byte offset where it went wrong
/// (when it is about the bytes) and a message for a person.
public struct PlaceMapError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case notAPlacesFile = "not-a-places-file"
        case unsupportedVersion = "unsupported-version"
        case badHeader = "bad-header"
        case badLength = "bad-length"
        case badPlace = "bad-place"
        case truncated
        case badText = "bad-text"
        case unreadable
    }

    public var code: Code
    public var offset: Int?
    public var message: String

    public init(_ code: Code, offset: Int?, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String {
        "places file \(code.rawValue)\(offset.map { " at byte \($0)" } ?? ""): \(message)"
    }
}

extension PlaceMapError: ByteReadError {
    public static func truncated(_ field: String, offset: Int, needed: Int, remaining: Int) -> Self {
        Self(.truncated, offset: offset, "\(field) needs \(needed) bytes; \(remaining) are left")
    }

    public static func notUTF8(_ field: String, offset: Int) -> Self {
        Self(.badText, offset: offset, "\(field) is not UTF-8")
    }
}
