/// HMAC-SHA-256 (RFC 2104) over ``SHA256``: what signs and checks HS256 tokens.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key
        if block.count > blockSize {
            var hasher = SHA256()
            hasher.update(block)
            block = hasher.finalize()
        }
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(innerDigest)
        return outer.finalize()
    }

    /// Compares two codes in time that depends on their length only, so that a forger learns
    /// nothing from how long a refusal took.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
