import Crypto

/// SHA-256 (FIPS 180-4), for the content hashes that identify routes, series and cache keys.
///
/// A thin wrapper around swift-crypto's `Crypto.SHA256` (BoringSSL's assembly on Linux, CryptoKit
/// on Apple systems). It runs for every job the
/// coordinator hands out (the cache key) and over every imported series and file: measured on the
/// cache-key path and on 1 MiB buffers, swift-crypto was clearly faster than the hand-written
/// implementation this type used to hold (docs/benchmarks.md, "Hashing"). The API is the one that
/// implementation had, and the digests are the same, so no cache key or content hash changed.
///
/// The hashes name content; they are not used for security. A copy of a hasher that was fed part
/// of its input goes on independently of the original (the coordinator keeps one hasher per
/// picture spec and copies it for every job).
public struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
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
        hasher.finalize().withUnsafeBytes { Array($0) }
    }

    /// The digest of `bytes` in lower-case hex.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize().hexString
    }
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
