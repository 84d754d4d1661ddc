/// SHA-256 (FIPS 180-4), for the content hashes that identify routes, series and cache keys.
///
/// The hashes name content; they are not used for security, and a small implementation of our own
/// keeps the model free of a crypto library. It runs for every job the coordinator hands out (the
/// cache key) and over every imported series, so it works on whole 64-byte blocks in place rather
/// than a byte at a time.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes not yet compressed (fewer than 64).
    private var block: Block = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockCount = 0
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if blockCount > 0 {
            let taken = min(64 - blockCount, bytes.count)
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.advanced(by: blockCount).copyMemory(from: base, byteCount: taken) }
            blockCount += taken
            offset = taken
            guard blockCount == 64 else { return }
            let full = block
            withUnsafeBytes(of: full) { compress($0) }
            blockCount = 0
        }
        while bytes.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(start: base + offset, count: 64))
            offset += 64
        }
        if offset < bytes.count {
            blockCount = bytes.count - offset
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.copyMemory(from: base + offset, byteCount: blockCount) }
        }
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The 32-byte digest. The hasher should not be updated afterwards.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var padding: Block = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &padding) { $0[0] = 0x80 }
        let padCount = blockCount < 56 ? 56 - blockCount : 120 - blockCount
        withUnsafeBytes(of: padding) { update(UnsafeRawBufferPointer(rebasing: $0.prefix(padCount))) }
        var lengthBytes = bitLength.bigEndian
        withUnsafeBytes(of: &lengthBytes) { update($0) }
        return [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
            let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            for (index, word) in words.enumerated() {
                digest[4 * index] = UInt8(truncatingIfNeeded: word >> 24)
                digest[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
                digest[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
                digest[4 * index + 3] = UInt8(truncatingIfNeeded: word)
            }
            count = 32
        }
    }

    /// The digest of `bytes` in lower-case hex.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize().hexString
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Compresses one 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        // The message schedule lives on the stack.
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            return (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

/// 64 bytes, inline.
private typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}

extension Sequence<UInt8> {
    /// Lower-case hex, two digits a byte.
    public var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = digits[Int(byte >> 4)]
                    out[2 * index + 1] = digits[Int(byte & 0xF)]
                }
            }
            return bytes.count * 2
        }
    }
}
