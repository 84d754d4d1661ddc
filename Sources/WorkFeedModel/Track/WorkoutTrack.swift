public import Foundation

/// A workout's route for a detail screen (`GET /v1/workouts/{id}/track`, docs/gateway.md,
/// "A workout's track"): the visible route (privacy zones already applied by the coordinator)
/// simplified to at most ``maximumPoints`` points, as encoded polylines and as GeoJSON, and the
/// elevation and heart-rate series against the distance along it, each at most
/// ``maximumSeriesSamples`` samples.
///
/// Built in one place (``init(id:visible:heartRate:hidden:)``) by the coordinator, which alone
/// holds the privacy secret; the gateway sends it on as written.
public struct WorkoutTrack: Codable, Sendable, Hashable {
    /// A point of a series: metres along the visible route, and the value there.
    public struct Sample: Codable, Sendable, Hashable {
        public var distance: Double
        public var value: Double
    }

    /// A series with its unit, so that a chart can label its axis.
    public struct Series: Codable, Sendable, Hashable {
        public var unit: String
        public var samples: [Sample]
    }

    /// GeoJSON (RFC 7946) geometry: a `MultiLineString` of `[longitude, latitude]` pairs, one line
    /// per visible piece (a cut route, or a pause, must not be joined by a straight line).
    public struct Geometry: Codable, Sendable, Hashable {
        public var type = "MultiLineString"
        public var coordinates: [[[Double]]]
    }

    /// The most points the simplified route keeps, over all its pieces.
    public static let maximumPoints = 1000
    /// The most pieces kept: each keeps its two ends, so that many fill the bound. A route of
    /// more keeps its longest.
    public static let maximumPieces = maximumPoints / 2
    /// The most samples of each series.
    public static let maximumSeriesSamples = 500
    /// The most points Douglas-Peucker is given: a longer route is thinned evenly first (every
    /// k-th point, each piece's ends kept). Douglas-Peucker takes quadratic time on a route made to
    /// split badly (a spiral), so an upload cannot make a read thread spin; 10,000 points are
    /// about 0.3 s in that worst case and milliseconds on a real route.
    public static let maximumSimplifierInput = 10_000
    /// Google's encoded polyline precision: 5 decimal digits (about a metre).
    public static let polylinePrecision = 5

    public var id: WorkoutID
    /// Whether privacy zones (or the trimmed ends) hide part of the route.
    public var hidden: Bool
    /// Points of the visible route before simplification, and after.
    public var sourcePoints: Int
    public var points: Int
    /// The Douglas-Peucker tolerance the bound needed, in metres (0: nothing was dropped).
    public var tolerance: Double
    /// Metres along the visible route (the pieces' lengths added; a hidden part counts nothing).
    public var distance: Double
    /// One encoded polyline (precision 5, latitude first) per visible piece, in order.
    public var polylines: [String]
    public var geometry: Geometry
    /// Metres above sea level against metres along the route; empty without elevations.
    public var elevation: Series
    /// Beats per minute against metres along the route; empty without heart rate, or without
    /// point times to place it.
    public var heartRate: Series

    /// The track of `visible` (the route as its pictures show it) and the heart-rate samples.
    /// Heart rate is kept only where its time falls within a visible piece's times: a sample taken
    /// inside a hidden part is dropped with the part.
    public init(id: WorkoutID, visible: Route, heartRate: [HeartRateSample], hidden: Bool) {
        self.id = id
        self.hidden = hidden
        var pieces = visible.segments.map { $0.filter(\.isValidCoordinate) }.filter { $0.count >= 2 }
        if pieces.count > Self.maximumPieces {
            let kept = Set(pieces.indices.sorted { Self.length(pieces[$0]) > Self.length(pieces[$1]) }.prefix(Self.maximumPieces))
            pieces = pieces.indices.filter(kept.contains).map { pieces[$0] }
        }
        sourcePoints = pieces.reduce(0) { $0 + $1.count }
        let stride = max(1, (sourcePoints + Self.maximumSimplifierInput - 1) / Self.maximumSimplifierInput)
        let thinned = stride == 1 ? pieces : pieces.map { TrackSimplifier.thin($0, every: stride) }
        let simplified = TrackSimplifier.simplify(thinned, maximumPoints: Self.maximumPoints)
        tolerance = (simplified.tolerance * 10).rounded() / 10
        points = simplified.pieces.reduce(0) { $0 + $1.count }
        polylines = simplified.pieces.map { Polyline.encode($0, precision: Self.polylinePrecision) }
        geometry = Geometry(
            coordinates: simplified.pieces.map { piece in piece.map { [Self.rounded($0.longitude, 6), Self.rounded($0.latitude, 6)] } })

        // The series, from every visible point (not the simplified ones).
        var along = 0.0
        var elevations: [Sample] = []
        var timed: [[(time: Date, distance: Double)]] = []
        for piece in pieces {
            var times: [(time: Date, distance: Double)] = []
            for (index, point) in piece.enumerated() {
                if index > 0 { along += WorkoutSummary.haversine(piece[index - 1], point) }
                if let elevation = point.elevation, elevation.isFinite { elevations.append(Sample(distance: along, value: elevation)) }
                if let time = point.time, times.last.map({ $0.time <= time }) ?? true { times.append((time, along)) }
            }
            if times.count >= 2 { timed.append(times) }
        }
        distance = Self.rounded(along, 1)
        var beats: [Sample] = []
        for sample in heartRate.sorted(by: { $0.time < $1.time }) where sample.bpm.isFinite && sample.bpm > 0 {
            guard let piece = timed.first(where: { $0[0].time <= sample.time && sample.time <= $0[$0.count - 1].time }) else { continue }
            beats.append(Sample(distance: Self.distance(at: sample.time, in: piece), value: sample.bpm))
        }
        elevation = Series(unit: "m", samples: Self.downsample(elevations, to: Self.maximumSeriesSamples, valueDigits: 1))
        self.heartRate = Series(unit: "bpm", samples: Self.downsample(beats, to: Self.maximumSeriesSamples, valueDigits: 0))
    }

    /// Metres along a piece at `time`, between the two timed points around it.
    static func distance(at time: Date, in piece: [(time: Date, distance: Double)]) -> Double {
        var low = 0
        var high = piece.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if piece[middle].time <= time { low = middle } else { high = middle }
        }
        let span = piece[high].time.timeIntervalSince(piece[low].time)
        let fraction = span > 0 ? min(1, max(0, time.timeIntervalSince(piece[low].time) / span)) : 0
        return piece[low].distance + fraction * (piece[high].distance - piece[low].distance)
    }

    /// At most `count` samples: runs of consecutive samples, each replaced by its mean distance
    /// and value; distances to a decimetre, values to `valueDigits` digits.
    static func downsample(_ samples: [Sample], to count: Int, valueDigits: Int) -> [Sample] {
        let run = max(1, (samples.count + count - 1) / count)
        return stride(from: 0, to: samples.count, by: run).map { start in
            let slice = samples[start..<min(samples.count, start + run)]
            let size = Double(slice.count)
            return Sample(
                distance: rounded(slice.reduce(0) { $0 + $1.distance } / size, 1),
                value: rounded(slice.reduce(0) { $0 + $1.value } / size, valueDigits))
        }
    }

    static func length(_ piece: [RoutePoint]) -> Double {
        zip(piece, piece.dropFirst()).reduce(0) { $0 + WorkoutSummary.haversine($1.0, $1.1) }
    }

    static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }
}
