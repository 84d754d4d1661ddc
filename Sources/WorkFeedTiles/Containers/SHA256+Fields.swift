import WorkFeedModel

extension SHA256 {
    /// A 32-bit little-endian length, then the bytes: no two different sequences of fields hash
    /// the same bytes.
    mutating func updateLengthPrefixed(_ bytes: [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { update($0) }
        update(bytes)
    }
}
