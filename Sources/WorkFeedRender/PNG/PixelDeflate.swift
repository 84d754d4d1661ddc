import CLibDeflate

/// A zlib stream for PNG rows, built for speed on map pictures (the fpnge approach, without SIMD):
/// copies are looked for at four fixed distances, the pixel before, the pixel above, and the
/// pixels above-left and above-right, and, where none of them matches, at the one earlier
/// position a hash of the next four bytes remembers; each block gets Huffman codes of its own.
///
/// A map picture is flat areas, lines whose edge repeats on the next row one pixel over, and
/// anti-aliased edges. A general matcher (libdeflate's level 1, zlib) hashes every position to
/// find earlier copies anywhere in its window; on these pictures most copies are at one of the
/// four distances, which are tried directly, and the hash (one slot a key, written only where
/// no neighbour matched) finds the same edge colours again further away, without which pictures
/// were 10-26 % larger. Greedy: the longest copy found is taken, no lazy second look.
///
/// Same input, same bytes: nothing here depends on time, memory addresses or another thread.
/// Not thread-safe; a ``PNGEncoder`` owns one.
final class PixelDeflate {
    /// Tokens of one block: a literal byte (below 256), or a match (`matchFlag | length << 8 |
    /// candidate`, the candidate 0...3 an index into the neighbours' distances, or 4 for a copy
    /// the hash found, whose distance is the next token).
    private let tokens: UnsafeMutablePointer<UInt32>
    /// A block's counts: literals 0...255, then match lengths 0...258, then the neighbours'
    /// copies by candidate (4), then the hash's copies by distance symbol (30).
    private let counts: UnsafeMutablePointer<Int>
    /// Where each hash of four bytes was last seen as a literal, plus one (0: never), for the
    /// copies the four neighbours miss: the same edge colours again further away.
    private let recent: UnsafeMutablePointer<UInt32>
    private static let recentBits = 12
    private static let matchFlag: UInt32 = 1 << 31
    private static let lengthCounts = 256
    private static let candidateCounts = 256 + 259
    private static let farCounts = 256 + 259 + 4
    private static let countsSize = 256 + 259 + 4 + 30
    /// Tokens a block holds at most before its codes are made and it is written.
    /// (65,535: a block that is stored instead takes one stored block.)
    static let blockTokens = 65_535

    init() {
        tokens = .allocate(capacity: Self.blockTokens)
        counts = .allocate(capacity: Self.countsSize)
        counts.initialize(repeating: 0, count: Self.countsSize)
        recent = .allocate(capacity: 1 << Self.recentBits)
    }

    deinit {
        tokens.deallocate()
        counts.deallocate()
        recent.deallocate()
    }

    /// The most bytes ``compress(_:count:rowBytes:pixelBytes:into:)`` writes for `count` bytes: a
    /// block that Huffman codes would make larger is written stored, so the bound is stored
    /// blocks' (5 bytes each 65,535) plus the zlib header and trailer and one block's slack.
    static func bound(_ count: Int) -> Int {
        count + 5 * (count / 65_535 + 1) + 5 * (count / blockTokens + 1) + 64
    }

    /// Compresses `count` bytes of PNG scanlines (each a filter byte and `rowBytes - 1` bytes of
    /// pixels of `pixelBytes` bytes) into `output`, which has room for ``bound(_:)`` bytes.
    ///
    /// - Returns: the bytes written.
    func compress(
        _ input: UnsafePointer<UInt8>, count: Int, rowBytes: Int, pixelBytes: Int, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var writer = BitWriter(output)
        // zlib header: deflate, 32 KiB window, fastest; (0x78 << 8 | 0x01) % 31 == 0.
        writer.put(0x0178, 16)
        // The pixel before, the pixel above, above-left and above-right. A distance past DEFLATE's
        // 32 KiB window (a row wider than pictures are: PNGEncoder takes any width) is never
        // tried: Int.max is never within the position.
        func within(_ distance: Int) -> Int { distance <= 32_768 ? distance : .max }
        let candidates = (within(pixelBytes), within(rowBytes), within(rowBytes - pixelBytes), within(rowBytes + pixelBytes))
        var position = 0
        var blockStart = 0
        var used = 0
        let counts = self.counts
        recent.initialize(repeating: 0, count: 1 << Self.recentBits)
        var farDistance = 0
        repeat {
            let longest = min(258, count &- position)
            var best = 0
            var chosen = 0
            if longest >= 3 {
                let here = input + position
                // The first three bytes, compared before anything longer: most tries fail there.
                let head = longest >= 4 ? UnsafeRawPointer(here).loadUnaligned(as: UInt32.self) & 0xFF_FFFF : 0
                @inline(__always) func attempt(_ distance: Int, _ index: Int) {
                    guard distance <= position, best < longest else { return }
                    if longest >= 4, UnsafeRawPointer(here - distance).loadUnaligned(as: UInt32.self) & 0xFF_FFFF != head { return }
                    let length = Self.matchLength(here, here - distance, longest)
                    if length > best {
                        best = length
                        chosen = index
                    }
                }
                attempt(candidates.0, 0)
                attempt(candidates.1, 1)
                attempt(candidates.2, 2)
                attempt(candidates.3, 3)
                if best < 4, longest >= 8 {
                    let key = Int((UnsafeRawPointer(here).loadUnaligned(as: UInt32.self) &* 2_654_435_761) &>> UInt32(32 - Self.recentBits))
                    let seen = Int(recent[key])
                    recent[key] = UInt32(position &+ 1)
                    if seen > 0, position &- (seen &- 1) <= 32_768 {
                        let distance = position &- (seen &- 1)
                        let length = Self.matchLength(here, here - distance, longest)
                        if length >= 4, length > best {
                            best = length
                            chosen = 4
                            farDistance = distance
                        }
                    }
                }
            }
            if best >= 3 {
                tokens[used] = Self.matchFlag | UInt32(best) &<< 8 | UInt32(chosen)
                if chosen == 4 {
                    // A far copy: its distance in the next token.
                    used &+= 1
                    tokens[used] = UInt32(farDistance)
                }
                counts[Self.lengthCounts &+ best] &+= 1
                if chosen < 4 {
                    counts[Self.candidateCounts &+ chosen] &+= 1
                } else {
                    counts[Self.farCounts &+ DeflateTables.distanceSymbol(farDistance)] &+= 1
                }
                position &+= best
            } else {
                let byte = input[position]
                tokens[used] = UInt32(byte)
                counts[Int(byte)] &+= 1
                position &+= 1
            }
            used &+= 1
            let last = position >= count
            if used >= Self.blockTokens - 1 || last {
                writeBlock(
                    used: used, distances: [candidates.0, candidates.1, candidates.2, candidates.3],
                    raw: UnsafeBufferPointer(start: input + blockStart, count: position - blockStart), last: last, writer: &writer)
                used = 0
                blockStart = position
                counts.update(repeating: 0, count: Self.countsSize)
            }
        } while position < count
        writer.alignToByte()
        // Adler-32 of the input, most significant byte first.
        writer.put(UInt64(UInt32(libdeflate_adler32(1, input, count)).byteSwapped), 32)
        return writer.finish()
    }

    /// How many bytes from `p` equal those from `q`, at most `limit`.
    @inline(__always)
    private static func matchLength(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>, _ limit: Int) -> Int {
        var length = 0
        while length &+ 8 <= limit {
            let a = UnsafeRawPointer(p + length).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(q + length).loadUnaligned(as: UInt64.self)
            let difference = a ^ b
            if difference != 0 { return length &+ (difference.littleEndian.trailingZeroBitCount &>> 3) }
            length &+= 8
        }
        while length < limit, p[length] == q[length] { length &+= 1 }
        return length
    }

    /// Writes the block of the first `used` tokens: with its own Huffman codes, or stored when
    /// that would be smaller.
    private func writeBlock(used: Int, distances: [Int], raw: UnsafeBufferPointer<UInt8>, last: Bool, writer: inout BitWriter) {
        var literals = [Int](repeating: 0, count: 286)
        for byte in 0..<256 { literals[byte] = counts[byte] }
        literals[256] = 1
        for length in 3...258 { literals[DeflateTables.lengthSymbol(length)] += counts[Self.lengthCounts + length] }
        var distanceCounts = (0..<30).map { counts[Self.farCounts + $0] }
        for (index, distance) in distances.enumerated() where counts[Self.candidateCounts + index] > 0 {
            distanceCounts[DeflateTables.distanceSymbol(distance)] += counts[Self.candidateCounts + index]
        }
        let literalLengths = Huffman.lengths(literals, limit: 15)
        let distanceLengths = Huffman.lengths(distanceCounts, limit: 15)
        let header = DynamicHeader(literalLengths: literalLengths, distanceLengths: distanceLengths)
        var bits = 3 + header.bits
        for symbol in 0..<286 where literals[symbol] > 0 {
            bits += literals[symbol] * (Int(literalLengths[symbol]) + DeflateTables.lengthExtraBits(symbol: symbol))
        }
        for symbol in 0..<30 where distanceCounts[symbol] > 0 {
            bits += distanceCounts[symbol] * (Int(distanceLengths[symbol]) + DeflateTables.distanceExtraBits(symbol: symbol))
        }
        let storedBytes = raw.count + 5 * max(1, (raw.count + 65_534) / 65_535)
        guard bits / 8 + 1 < storedBytes else {
            writeStored(raw, last: last, writer: &writer)
            return
        }
        writer.put(last ? 0b101 : 0b100, 3)
        header.write(&writer)
        // What each token writes, made once a block: a code and its width, with the extra bits
        // of a length or a distance behind its code.
        let literalCodes = Huffman.codes(literalLengths)
        var literalEntries = [(bits: UInt64, width: Int)](repeating: (0, 0), count: 259)
        for byte in 0..<256 { literalEntries[byte] = (UInt64(literalCodes[byte]), Int(literalLengths[byte])) }
        var lengthEntries = [(bits: UInt64, width: Int)](repeating: (0, 0), count: 259)
        for length in 3...258 {
            let symbol = DeflateTables.lengthSymbol(length)
            let extra = DeflateTables.lengthExtra(length)
            lengthEntries[length] = (
                UInt64(literalCodes[symbol]) | UInt64(extra.value) << UInt64(literalLengths[symbol]), Int(literalLengths[symbol]) + extra.bits
            )
        }
        let distanceCodes = Huffman.codes(distanceLengths)
        let distanceEntries = distances.map { distance -> (bits: UInt64, width: Int) in
            guard distance <= 32_768 else { return (0, 0) }  // never tried, so never written
            let symbol = DeflateTables.distanceSymbol(distance)
            let extra = DeflateTables.distanceExtra(distance)
            return (UInt64(distanceCodes[symbol]) | UInt64(extra.value) << UInt64(distanceLengths[symbol]), Int(distanceLengths[symbol]) + extra.bits)
        }
        literalEntries.withUnsafeBufferPointer { literal in
            lengthEntries.withUnsafeBufferPointer { length in
                distanceEntries.withUnsafeBufferPointer { distance in
                    var index = 0
                    while index < used {
                        let token = tokens[index]
                        index &+= 1
                        if token & Self.matchFlag == 0 {
                            let entry = literal[Int(token)]
                            writer.put(entry.bits, entry.width)
                            continue
                        }
                        // A length (at most 20 bits) and its distance (at most 28) in one put.
                        let entry = length[Int((token >> 8) & 0x1FF)]
                        let candidate = Int(token & 7)
                        guard candidate == 4 else {
                            let near = distance[candidate]
                            writer.put(entry.bits | near.bits &<< UInt64(entry.width), entry.width &+ near.width)
                            continue
                        }
                        let far = Int(tokens[index])
                        index &+= 1
                        let symbol = DeflateTables.distanceSymbol(far)
                        let extra = DeflateTables.distanceExtra(far)
                        let farBits = UInt64(distanceCodes[symbol]) | UInt64(extra.value) << UInt64(distanceLengths[symbol])
                        writer.put(entry.bits | farBits &<< UInt64(entry.width), entry.width + Int(distanceLengths[symbol]) + extra.bits)
                    }
                }
            }
        }
        writer.put(UInt64(literalCodes[256]), Int(literalLengths[256]))
    }

    /// `raw` as stored blocks of at most 65,535 bytes.
    private func writeStored(_ raw: UnsafeBufferPointer<UInt8>, last: Bool, writer: inout BitWriter) {
        var offset = 0
        repeat {
            let size = min(65_535, raw.count - offset)
            let final = last && offset + size == raw.count
            writer.put(final ? 1 : 0, 3)
            writer.alignToByte()
            writer.put(UInt64(size) | UInt64(~size & 0xFFFF) << 16, 32)
            writer.append(UnsafeBufferPointer(rebasing: raw[offset..<(offset + size)]))
            offset += size
        } while offset < raw.count
    }
}
