/// Turns byte strings (qualified names, namespace URIs) into values once, so that a name seen a
/// million times costs one hash lookup instead of one `String` allocation each time.
///
/// The table stops growing at ``limit`` entries: a hostile document with millions of distinct
/// names then costs a little speed, never unbounded memory.
struct XMLInternTable<Value> {
    private struct Key {
        var start: Int
        var count: Int
        var hash: UInt64
    }

    static var limit: Int { 4096 }

    /// Every key's bytes, one after the other.
    private var storage: [UInt8] = []
    private var keys: [Key] = []
    private var values: [Value] = []
    /// Open addressing; each slot holds an index into `keys`, or -1.
    private var slots = [Int32](repeating: -1, count: 256)

    /// The index of `bytes` in the table, or `nil`.
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        return storage.withUnsafeBufferPointer { stored in
            keys.withUnsafeBufferPointer { keys in
                slots.withUnsafeBufferPointer { slots in
                    while true {
                        let index = Int(slots[slot])
                        if index < 0 { return nil }
                        let key = keys[index]
                        if key.hash == hash && key.count == bytes.count && Self.equal(stored, key.start, bytes) {
                            return index
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    func value(at index: Int) -> Value { values[index] }

    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        index(of: bytes).map { values[$0] }
    }

    /// Whether the key at `index` is `bytes`: compares without hashing.
    func key(at index: Int, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let key = keys[index]
        guard key.count == bytes.count else { return false }
        return storage.withUnsafeBufferPointer { Self.equal($0, key.start, bytes) }
    }

    /// Inserts a key; returns its index, or `nil` when the table is full.
    @discardableResult
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, value: Value) -> Int? {
        guard keys.count < Self.limit else { return nil }
        if (keys.count + 1) * 2 > slots.count { grow() }
        let hash = Self.hash(bytes)
        keys.append(Key(start: storage.count, count: bytes.count, hash: hash))
        storage.append(contentsOf: bytes)
        values.append(value)
        place(index: keys.count - 1, hash: hash)
        return keys.count - 1
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        for index in keys.indices { place(index: index, hash: keys[index].hash) }
    }

    private mutating func place(index: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    @inline(__always)
    private static func equal(_ stored: UnsafeBufferPointer<UInt8>, _ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for offset in 0..<bytes.count where stored[start + offset] != bytes[offset] { return false }
        return true
    }

    /// A multiply-and-shift hash over 8-byte words: names are short, and this costs a few
    /// multiplications where a byte-wise hash costs one per byte.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(bytes.count) &* multiplier
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < raw.count {
            tail = (tail << 8) | UInt64(raw[offset])
            offset += 1
        }
        hash = (hash ^ tail) &* multiplier
        return hash ^ (hash >> 32)
    }
}
