/// Per row of a picture-sized buffer, one bit per block of eight cells (block `b` is cells
/// `8b..<8b+8`, bit `b % 64` of the row's word `b / 64`): which blocks were written since they
/// were last cleared, so that a pass can go to the written ones without reading the others.
///
/// ``DistanceField`` marks the blocks its stamps write (every other pixel is `+inf`). (Marking
/// ``AreaMask``'s cells the same way, to cross unwritten runs without reading them, measured no
/// faster than its test of eight cells at a time: issue 39.)
struct BlockMarks: ~Copyable {
    private var words = UnsafeMutableBufferPointer<UInt64>(start: nil, count: 0)
    /// Words a row.
    private(set) var wordsPerRow = 0

    init() {}

    deinit { words.deallocate() }

    /// Makes room for rows of `width` cells, `height` of them, every mark clear; memory is only
    /// reallocated when it grows. Marks left set by the last picture must have been cleared.
    mutating func prepare(width: Int, height: Int) {
        let perRow = ((width + 7) / 8 + 63) / 64
        if words.count < perRow * height {
            words.deallocate()
            words = .allocate(capacity: perRow * height)
            words.initialize(repeating: 0)
        }
        wordsPerRow = perRow
    }

    /// Row `y`'s words, ``wordsPerRow`` of them.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<UInt64> {
        // prepare() sized words to wordsPerRow * height, and callers stay within their rows.
        words.baseAddress.unsafelyUnwrapped + y * wordsPerRow
    }

    /// Marks the blocks of row `y` that hold cells `low...high`.
    @inline(__always)
    func mark(_ y: Int, _ low: Int, _ high: Int) {
        let first = low &>> 3
        let last = high &>> 3
        let words = row(y)
        let firstWord = first &>> 6
        let lastWord = last &>> 6
        var word = firstWord
        while word <= lastWord {
            let from = word == firstWord ? first & 63 : 0
            let to = word == lastWord ? last & 63 : 63
            let ones: UInt64 = to - from == 63 ? ~0 : (1 &<< UInt64(to - from + 1)) &- 1
            words[word] |= ones &<< UInt64(from)
            word &+= 1
        }
    }
}
