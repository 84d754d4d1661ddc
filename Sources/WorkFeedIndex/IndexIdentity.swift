import Foundation

/// An index's own name (``IndexWriting/indexIdentity()``): 16 random bytes, written as a UUID.
public struct IndexIdentity: Sendable, Hashable {
    public let bytes: [UInt8]

    /// `nil` unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public static func random() -> IndexIdentity {
        var generator = SystemRandomNumberGenerator()
        return IndexIdentity(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }

    /// Lower-case UUID text, `8-4-4-4-12` hex digits.
    public var text: String {
        let b = bytes
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            .uuidString.lowercased()
    }
}
