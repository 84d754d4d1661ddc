/// A route projected into pixels and simplified: runs of connected vertices.
///
/// A run never crosses a gap between two route segments; in a heatmap it also ends where a piece
/// ends, and the next piece's run starts at that very point. The arrays keep their storage between
/// renders, so a renderer's memory stays bounded by what the picture can show.
struct Path {
    struct Run {
        /// Vertices `start..<end` of ``Path/vertices``; always at least two (a dot repeats its point).
        var start: Int
        var end: Int
        /// The heatmap piece the run belongs to; 0 for route pictures.
        var piece: Int
        /// Whether the run continues the previous piece, so its start is cut square instead of round.
        var buttStart: Bool
    }

    var vertices: [SIMD2<Float>] = []
    var runs: [Run] = []
    /// The first and last usable points, where the start and end marks go.
    var first = SIMD2<Float>.zero
    var last = SIMD2<Float>.zero
    /// Earliest and latest timestamp inside each heatmap piece (seconds since the reference date);
    /// `+inf`/`-inf` when a piece has no timestamp.
    var pieceFirstTime: [Double] = []
    var pieceLastTime: [Double] = []

    mutating func reset(pieces: Int) {
        vertices.removeAll(keepingCapacity: true)
        runs.removeAll(keepingCapacity: true)
        pieceFirstTime.removeAll(keepingCapacity: true)
        pieceLastTime.removeAll(keepingCapacity: true)
        pieceFirstTime.append(contentsOf: repeatElement(.infinity, count: pieces))
        pieceLastTime.append(contentsOf: repeatElement(-.infinity, count: pieces))
    }
}
