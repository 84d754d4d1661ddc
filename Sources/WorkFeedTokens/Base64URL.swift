/// Base64 with the URL and file name safe alphabet and no padding (RFC 4648 section 5), as JSON
/// Web Tokens write their parts.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)], alphabet[Int(chunk & 63)]]
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)]]
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)]]
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`; `nil` when it is not unpadded base64url (a character outside the
    /// alphabet, padding, or a length no encoding has).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            values.append(value)
        }
        guard values.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            output += [UInt8(chunk >> 16), UInt8(chunk >> 8 & 255), UInt8(chunk & 255)]
            index += 4
        }
        switch values.count - index {
        case 2:
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            guard chunk & 0xFFFF == 0 else { return nil }
            output.append(UInt8(chunk >> 16))
        case 3:
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
            guard chunk & 0xFF == 0 else { return nil }
            output += [UInt8(chunk >> 16), UInt8(chunk >> 8 & 255)]
        default:
            break
        }
        return output
    }
}
