/// A JSON document read into values, for the documents read on every request (a feed page from the
/// coordinator), where Foundation's JSONDecoder was most of the time spent.
///
/// The reader is strict (RFC 8259: one value, no trailing commas, no comments, escapes checked) and
/// bounded (at most ``maximumDepth`` levels), and never traps, whatever the bytes.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public static let maximumDepth = 64

    /// Reads one JSON document.
    /// - Throws: ``JSONReadError`` naming the byte offset where the document stops being JSON.
    public init(parsing bytes: [UInt8]) throws(JSONReadError) {
        var reader = Reader(bytes: bytes)
        self = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw JSONReadError(offset: reader.index, message: "text after the document") }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// A number that is a whole number in `Int`'s range.
    public var int: Int? {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 9.2e18 else { return nil }
        return Int(value)
    }

    public var array: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var isNull: Bool { self == .null }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }

        func failure(_ message: String) -> JSONReadError { JSONReadError(offset: index, message: message) }

        mutating func value(depth: Int) throws(JSONReadError) -> JSONValue {
            guard depth < JSONValue.maximumDepth else { throw failure("nested deeper than \(JSONValue.maximumDepth) levels") }
            skipSpace()
            guard index < bytes.count else { throw failure("the document ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONReadError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                word.withUTF8Buffer({ bytes[index..<index + count].elementsEqual($0) })
            else { throw failure("not a JSON value") }
            index += count
        }

        mutating func object(depth: Int) throws(JSONReadError) -> JSONValue {
            index += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("':' expected after an object key") }
                index += 1
                members[key] = try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw failure("the document ends inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw failure("',' or '}' expected in an object") }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(JSONReadError) -> JSONValue {
            index += 1
            var values: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            while true {
                values.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw failure("the document ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw failure("',' or ']' expected in an array") }
                index += 1
                return .array(values)
            }
        }

        mutating func string() throws(JSONReadError) -> String {
            index += 1
            let start = index
            // Most strings have no escape: taken as they are.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 { index += 1 }
            guard index < bytes.count else { throw failure("the document ends inside a string") }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            var text = Array(bytes[start..<index])
            while true {
                guard index < bytes.count else { throw failure("the document ends inside a string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: text, as: UTF8.self)
                }
                guard byte >= 0x20 else { throw failure("a control character inside a string") }
                guard byte == UInt8(ascii: "\\") else {
                    text.append(byte)
                    index += 1
                    continue
                }
                guard index + 1 < bytes.count else { throw failure("the document ends inside an escape") }
                index += 2
                switch bytes[index - 1] {
                case UInt8(ascii: "\""): text.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): text.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): text.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A surrogate pair: the low half must follow.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a lone surrogate in a string")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a string") }
                    text.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw failure("an unknown escape in a string")
                }
            }
        }

        mutating func hex4() throws(JSONReadError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("the document ends inside an escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("not a hex digit in a \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func number() throws(JSONReadError) -> Double {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { throw failure("not a JSON value") }
            if bytes[digitsStart] == UInt8(ascii: "0"), index - digitsStart > 1 { throw failure("a number with a leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fraction = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > fraction else { throw failure("a number with no digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                let exponent = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > exponent else { throw failure("a number with no exponent digits") }
            }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw failure("not a number") }
            return value
        }
    }
}

/// A document that is not JSON: where, and what is wrong there.
public struct JSONReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
    public var description: String { "not JSON at byte \(offset): \(message)" }
}
