/// Turns byte strings (qualified names, namespace URIs) into values once, so that a name seen a
/// million times costs one hash lookup instead of one `String` allocation each time.
///
/// The table stops growing at ``limit`` entries: a hostile document with millions of distinct
/// names then costs a little speed, never unbounded memory.
struct XMLInternTable<Value> {
    private struct Entry {
        var bytes: [UInt8]
        var hash: UInt64
        var value: Value
    }

    static var limit: Int { 4096 }

    private var entries: [Entry] = []
    /// Open addressing; each slot holds an index into `entries`, or -1.
    private var slots = [Int32](repeating: -1, count: 256)

    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            let entry = entries[index]
            if entry.hash == hash, entry.bytes.count == bytes.count, entry.bytes.elementsEqual(bytes) {
                return entry.value
            }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, value: Value) {
        guard entries.count < Self.limit else { return }
        if (entries.count + 1) * 2 > slots.count { grow() }
        let hash = Self.hash(bytes)
        entries.append(Entry(bytes: Array(bytes), hash: hash, value: value))
        place(index: entries.count - 1, hash: hash)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        for index in entries.indices { place(index: index, hash: entries[index].hash) }
    }

    private mutating func place(index: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    /// FNV-1a: names are short, so a simple byte-wise hash is as fast as anything.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
