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

/// Little-endian integers and UTF-8 text over a file's bytes, each read checked against what is left.
struct PlaceFileReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(PlaceMapError) -> ArraySlice<UInt8> {
        guard count <= remaining else {
            throw PlaceMapError(.truncated, offset: offset, "\(what()) needs \(count) bytes; \(remaining) are left")
        }
        offset += count
        return bytes[(offset - count)..<offset]
    }

    mutating func integer<Value: FixedWidthInteger>(_ type: Value.Type, _ what: @autoclosure () -> String) throws(PlaceMapError) -> Value {
        let slice = try take(MemoryLayout<Value>.size, what())
        return slice.reversed().reduce(Value.zero) { ($0 << 8) | Value(truncatingIfNeeded: $1) }
    }

    mutating func text(_ count: Int, _ what: @autoclosure () -> String) throws(PlaceMapError) -> String {
        let start = offset
        guard let text = String(validating: try take(count, what()), as: UTF8.self) else {
            throw PlaceMapError(.badText, offset: start, "\(what()) is not UTF-8")
        }
        return text
    }
}
