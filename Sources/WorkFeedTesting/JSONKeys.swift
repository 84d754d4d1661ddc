// For tests that pin the order of a JSON document's keys (docs/gateway.md, "Figures"): the bytes
// as the server wrote them, not a parsed dictionary (which has no order).

/// The keys of a JSON document in the order its bytes give them, and whether each object's keys
/// are sorted (``JSONEncoder/OutputFormatting/sortedKeys``'s order: by UTF-8 bytes).
public enum JSONKeys {
    /// Every object key, depth first, in the order written.
    public static func inOrder(_ bytes: [UInt8]) -> [String] { scan(bytes).map(\.key) }

    /// Whether every object's keys are in ascending UTF-8 byte order.
    public static func sortedAtEveryLevel(_ bytes: [UInt8]) -> Bool {
        var last: [Int: [UInt8]] = [:]
        for (key, depth, first) in scan(bytes).map({ ($0.key, $0.depth, $0.first) }) {
            let utf8 = Array(key.utf8)
            if !first, let previous = last[depth], !previous.lexicographicallyPrecedes(utf8) { return false }
            last[depth] = utf8
        }
        return true
    }

    /// Keys with their object depth and whether each is its object's first. Reads JSON as
    /// JSONEncoder writes it (a test's document, not a hostile one).
    private static func scan(_ bytes: [UInt8]) -> [(key: String, depth: Int, first: Bool)] {
        var found: [(key: String, depth: Int, first: Bool)] = []
        var stack: [(isObject: Bool, expectingKey: Bool, members: Int)] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"): stack.append((true, true, 0))
            case UInt8(ascii: "["): stack.append((false, false, 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): stack.removeLast()
            case UInt8(ascii: ","): if stack.last?.isObject == true { stack[stack.count - 1].expectingKey = true }
            case UInt8(ascii: "\""):
                var end = index + 1
                while bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                if let top = stack.last, top.isObject, top.expectingKey {
                    let key = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    found.append((key, stack.count, top.members == 0))
                    stack[stack.count - 1].expectingKey = false
                    stack[stack.count - 1].members += 1
                }
                index = end
            default: break
            }
            index += 1
        }
        return found
    }
}
