import WorkFeedModel

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
    /// What each piece holds for a ramp-coloured picture (``PieceMeasures``); empty otherwise.
    var measures = PieceMeasures()

    mutating func reset(pieces: Int) {
        vertices.removeAll(keepingCapacity: true)
        runs.removeAll(keepingCapacity: true)
        pieceFirstTime.removeAll(keepingCapacity: true)
        pieceLastTime.removeAll(keepingCapacity: true)
        pieceFirstTime.append(contentsOf: repeatElement(.infinity, count: pieces))
        pieceLastTime.append(contentsOf: repeatElement(-.infinity, count: pieces))
        measures.reset(pieces: pieces)
    }
}

/// Sums along each piece of a path, from the route's steps between neighbouring points of one
/// segment (a pause between segments adds nothing), each step shared between the pieces it
/// crosses by the length it runs in each.
struct PieceMeasures {
    /// Ground metres and seconds of the steps that moved: both ends timestamped, the later one
    /// later, at a speed inside ``movingSpeeds`` (a stop, a GPS jump, a point kilometres away
    /// for one second, adds nothing, so neither is painted as a sprint).
    var movingDistance: [Double] = []
    var movingTime: [Double] = []
    /// Altitude times metres, and the metres, of the steps with a plausible altitude at both ends
    /// (``TrackFigures/plausibleAltitude``), taken at the step's middle.
    var altitudeSum: [Double] = []
    var altitudeLength: [Double] = []
    /// Metres a second a step may move at to count as moving.
    var movingSpeeds = FeedItem.minimumMovingSpeed...TrackFigures.maximumSpeed

    mutating func reset(pieces: Int) {
        for keyPath in [\PieceMeasures.movingDistance, \.movingTime, \.altitudeSum, \.altitudeLength] {
            self[keyPath: keyPath].removeAll(keepingCapacity: true)
            self[keyPath: keyPath].append(contentsOf: repeatElement(0, count: pieces))
        }
    }

    /// Credits `portion` (0...1) of a step of `length` metres from `from` to `to` to `piece`.
    mutating func credit(
        _ piece: Int, portion: Double, length: Double, from: (time: Double?, altitude: Double?), to: (time: Double?, altitude: Double?)
    ) {
        guard portion > 0, length > 0 else { return }
        if let t0 = from.time, let t1 = to.time, t1 > t0, movingSpeeds.contains(length / (t1 - t0)) {
            movingDistance[piece] += length * portion
            movingTime[piece] += (t1 - t0) * portion
        }
        if let a0 = from.altitude, let a1 = to.altitude {
            altitudeSum[piece] += (a0 + a1) / 2 * length * portion
            altitudeLength[piece] += length * portion
        }
    }
}
