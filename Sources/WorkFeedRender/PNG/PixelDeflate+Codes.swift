/// Writes bits least significant first, as DEFLATE packs them, into a buffer sized beforehand.
struct BitWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var buffer: UInt64 = 0
    private var bits = 0

    init(_ base: UnsafeMutablePointer<UInt8>) {
        self.base = base
    }

    /// Appends the low `width` bits of `value` (at most 56; higher bits of `value` are zero).
    ///
    /// Eight bytes are stored each time and the whole ones kept, so there is no branch; the
    /// buffer needs 8 bytes of room past what is written (``PixelDeflate/bound(_:)`` has 64).
    @inline(__always)
    mutating func put(_ value: UInt64, _ width: Int) {
        buffer |= value &<< UInt64(bits)
        bits &+= width
        UnsafeMutableRawPointer(base + count).storeBytes(of: buffer.littleEndian, as: UInt64.self)
        // bits < 8 before, so at most 63 now and at most 7 whole bytes.
        let whole = bits &>> 3
        count &+= whole
        buffer = buffer &>> UInt64(whole &<< 3)
        bits &= 7
    }

    /// Pads with zero bits to the next byte.
    mutating func alignToByte() {
        if bits > 0 { put(0, 8 - bits) }
    }

    /// Appends whole bytes; the writer must be at a byte boundary (``alignToByte()``).
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Writes what is left and returns the bytes written.
    mutating func finish() -> Int {
        alignToByte()
        return count
    }
}

/// DEFLATE's length and distance symbols (RFC 1951, 3.2.5).
enum DeflateTables {
    /// The literal/length symbol of match length `length` (3...258).
    @inline(__always)
    static func lengthSymbol(_ length: Int) -> Int {
        if length == 258 { return 285 }
        if length <= 10 { return 254 + length }
        let value = length - 3
        let high = Int.bitWidth - 1 - value.leadingZeroBitCount
        return 257 + 4 * (high - 1) + (value >> (high - 2)) & 3
    }

    /// A match length's extra bits after its symbol: their count and value.
    @inline(__always)
    static func lengthExtra(_ length: Int) -> (bits: Int, value: Int) {
        guard length > 10, length < 258 else { return (0, 0) }
        let value = length - 3
        let high = Int.bitWidth - 1 - value.leadingZeroBitCount
        return (high - 2, value & ((1 << (high - 2)) - 1))
    }

    /// How many extra bits follow literal/length `symbol`.
    static func lengthExtraBits(symbol: Int) -> Int {
        guard symbol >= 265, symbol < 285 else { return 0 }
        return (symbol - 261) / 4
    }

    /// The distance symbol of `distance` (1...32,768).
    @inline(__always)
    static func distanceSymbol(_ distance: Int) -> Int {
        let value = distance - 1
        guard value >= 4 else { return value }
        let high = Int.bitWidth - 1 - value.leadingZeroBitCount
        return 2 * high + (value >> (high - 1)) & 1
    }

    /// A distance's extra bits after its symbol: their count and value.
    @inline(__always)
    static func distanceExtra(_ distance: Int) -> (bits: Int, value: Int) {
        let value = distance - 1
        guard value >= 4 else { return (0, 0) }
        let high = Int.bitWidth - 1 - value.leadingZeroBitCount
        return (high - 1, value & ((1 << (high - 1)) - 1))
    }

    /// How many extra bits follow distance `symbol`.
    static func distanceExtraBits(symbol: Int) -> Int {
        symbol < 4 ? 0 : symbol / 2 - 1
    }
}

/// Length-limited Huffman codes, as DEFLATE's dynamic blocks carry them.
enum Huffman {
    /// Code lengths for symbols seen `frequencies[symbol]` times, none longer than `limit`; unseen
    /// symbols get 0. At least two symbols get a code (a decoder wants a complete code), so one or
    /// none seen still gives a valid table.
    ///
    /// Minimum-redundancy lengths by the two-queue method over the symbols sorted by frequency
    /// (ties by symbol, so the result depends on the frequencies alone); lengths past the limit
    /// are folded back as JPEG's Annex K.3 does, which keeps the code complete.
    static func lengths(_ frequencies: [Int], limit: Int) -> [UInt8] {
        var symbols = frequencies.indices.filter { frequencies[$0] > 0 }
        var weights = frequencies
        var next = 0
        while symbols.count < 2 {
            if weights[next] == 0 {
                weights[next] = 1
                symbols.append(next)
            }
            next += 1
        }
        symbols.sort { (weights[$0], $0) < (weights[$1], $1) }
        let leaves = symbols.count
        var weight = symbols.map { weights[$0] } + [Int](repeating: 0, count: leaves - 1)
        var parent = [Int](repeating: 0, count: 2 * leaves - 1)
        var leaf = 0
        var inner = leaves
        for node in leaves..<(2 * leaves - 1) {
            var pair = (0, 0)
            for side in 0..<2 {
                let takeLeaf = leaf < leaves && (inner >= node || weight[leaf] <= weight[inner])
                let chosen = takeLeaf ? leaf : inner
                if takeLeaf { leaf += 1 } else { inner += 1 }
                if side == 0 { pair.0 = chosen } else { pair.1 = chosen }
            }
            parent[pair.0] = node
            parent[pair.1] = node
            weight[node] = weight[pair.0] + weight[pair.1]
        }
        var depth = [Int](repeating: 0, count: 2 * leaves - 1)
        var counts = [Int](repeating: 0, count: max(limit, leaves) + 1)
        for node in stride(from: 2 * leaves - 3, through: 0, by: -1) {
            depth[node] = depth[parent[node]] + 1
            if node < leaves { counts[depth[node]] += 1 }
        }
        // Fold lengths past the limit: two codes at the deepest level become one a level up and
        // a shorter code is split to make room (Annex K.3).
        var deepest = counts.count - 1
        while deepest > limit {
            while counts[deepest] > 0 {
                var shorter = deepest - 2
                while counts[shorter] == 0 { shorter -= 1 }
                counts[deepest] -= 2
                counts[deepest - 1] += 1
                counts[shorter + 1] += 2
                counts[shorter] -= 1
            }
            deepest -= 1
        }
        // The most frequent symbols take the shortest codes.
        var lengths = [UInt8](repeating: 0, count: frequencies.count)
        var index = leaves - 1
        for length in 1...limit {
            for _ in 0..<counts[length] {
                lengths[symbols[index]] = UInt8(length)
                index -= 1
            }
        }
        return lengths
    }

    /// The canonical codes of `lengths` (RFC 1951, 3.2.2), bit-reversed for writing least
    /// significant bit first.
    static func codes(_ lengths: [UInt8]) -> [UInt16] {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { counts[Int(length)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1..<16 {
            code = (code + counts[bits - 1]) << 1
            next[bits] = code
        }
        return lengths.map { length in
            guard length > 0 else { return 0 }
            let value = next[Int(length)]
            next[Int(length)] += 1
            var reversed = 0
            for bit in 0..<Int(length) where value & (1 << bit) != 0 { reversed |= 1 << (Int(length) - 1 - bit) }
            return UInt16(reversed)
        }
    }
}

/// A dynamic block's header: how many codes, the code lengths run-length coded (symbols 16, 17,
/// 18), and the code-length code that codes them.
struct DynamicHeader {
    private static let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    private let literalCount: Int
    private let distanceCount: Int
    /// The run-length coded lengths: a symbol 0...18 and its extra bits' value.
    private var runs: [(symbol: Int, extra: Int)] = []
    private let codeLengths: [UInt8]
    private let codeCodes: [UInt16]
    private let codeCount: Int
    /// The header's size in bits.
    let bits: Int

    init(literalLengths: [UInt8], distanceLengths: [UInt8]) {
        var literalCount = 286
        while literalCount > 257, literalLengths[literalCount - 1] == 0 { literalCount -= 1 }
        var distanceCount = 30
        while distanceCount > 1, distanceLengths[distanceCount - 1] == 0 { distanceCount -= 1 }
        self.literalCount = literalCount
        self.distanceCount = distanceCount
        let all = Array(literalLengths[0..<literalCount]) + Array(distanceLengths[0..<distanceCount])
        var frequencies = [Int](repeating: 0, count: 19)
        var index = 0
        while index < all.count {
            let length = Int(all[index])
            var run = 1
            while index + run < all.count, all[index + run] == all[index] { run += 1 }
            var left = run
            if length == 0 {
                while left >= 11 {
                    let take = min(left, 138)
                    runs.append((18, take - 11))
                    left -= take
                }
                if left >= 3 {
                    runs.append((17, left - 3))
                    left = 0
                }
            } else {
                runs.append((length, 0))
                left -= 1
                while left >= 3 {
                    let take = min(left, 6)
                    runs.append((16, take - 3))
                    left -= take
                }
            }
            for _ in 0..<left { runs.append((length, 0)) }
            index += run
        }
        for run in runs { frequencies[run.symbol] += 1 }
        codeLengths = Huffman.lengths(frequencies, limit: 7)
        codeCodes = Huffman.codes(codeLengths)
        var codeCount = 19
        while codeCount > 4, codeLengths[Self.order[codeCount - 1]] == 0 { codeCount -= 1 }
        self.codeCount = codeCount
        var bits = 5 + 5 + 4 + 3 * codeCount
        for run in runs { bits += Int(codeLengths[run.symbol]) + Self.extraBits(run.symbol) }
        self.bits = bits
    }

    func write(_ writer: inout BitWriter) {
        writer.put(UInt64(literalCount - 257), 5)
        writer.put(UInt64(distanceCount - 1), 5)
        writer.put(UInt64(codeCount - 4), 4)
        for symbol in Self.order[0..<codeCount] { writer.put(UInt64(codeLengths[symbol]), 3) }
        for run in runs {
            writer.put(UInt64(codeCodes[run.symbol]), Int(codeLengths[run.symbol]))
            writer.put(UInt64(run.extra), Self.extraBits(run.symbol))
        }
    }

    /// Extra bits after a code-length symbol: 16 repeats the last length 3-6 times, 17 and 18
    /// give 3-10 and 11-138 zeros.
    private static func extraBits(_ symbol: Int) -> Int {
        switch symbol {
        case 16: 2
        case 17: 3
        case 18: 7
        default: 0
        }
    }
}
