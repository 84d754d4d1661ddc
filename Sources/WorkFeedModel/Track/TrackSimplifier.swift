import Foundation

/// Douglas-Peucker simplification of a route's pieces to a bound of points (``WorkoutTrack``).
///
/// Each interior point gets the tolerance below which Douglas-Peucker keeps it (its distance to
/// the chord when its range is split, never more than its parent's), computed once without
/// recursion; the bound then keeps the points of highest tolerance, which is exactly
/// Douglas-Peucker at the smallest tolerance that fits. Each piece keeps its two ends. Distances
/// are metres on a local plane at the piece's first point (equirectangular: at a workout's size
/// the error is far below a pixel of any picture).
enum TrackSimplifier {
    static func simplify(_ pieces: [[RoutePoint]], maximumPoints: Int) -> (pieces: [[RoutePoint]], tolerance: Double) {
        let total = pieces.reduce(0) { $0 + $1.count }
        guard total > maximumPoints else { return (pieces, 0) }
        var importance: [[Double]] = pieces.map(Self.importance)
        var interior: [(piece: Int, index: Int, tolerance: Double)] = []
        for (piece, values) in importance.enumerated() {
            for index in values.indices.dropFirst().dropLast() { interior.append((piece, index, values[index])) }
        }
        let budget = max(0, maximumPoints - 2 * pieces.count)
        interior.sort { $0.tolerance > $1.tolerance }
        let tolerance = interior.count > budget ? interior[budget].tolerance : 0
        for dropped in interior.dropFirst(budget) { importance[dropped.piece][dropped.index] = -1 }
        let kept = pieces.indices.map { piece in pieces[piece].indices.filter { importance[piece][$0] >= 0 }.map { pieces[piece][$0] } }
        return (kept, tolerance)
    }

    /// Every `step`-th point of `piece`, its last one too.
    static func thin(_ piece: [RoutePoint], every step: Int) -> [RoutePoint] {
        guard step > 1, piece.count > 2 else { return piece }
        var kept = Swift.stride(from: 0, to: piece.count, by: step).map { piece[$0] }
        if (piece.count - 1) % step != 0 { kept.append(piece[piece.count - 1]) }
        return kept
    }

    /// Each point's Douglas-Peucker tolerance; the ends are infinite.
    static func importance(_ piece: [RoutePoint]) -> [Double] {
        var values = [Double](repeating: 0, count: piece.count)
        guard piece.count > 2 else { return [Double](repeating: .infinity, count: piece.count) }
        values[0] = .infinity
        values[piece.count - 1] = .infinity
        let plane = piece.map(Self.projector(origin: piece[0]))
        var ranges = [(start: 0, end: piece.count - 1, limit: Double.infinity)]
        while let range = ranges.popLast() {
            guard range.end - range.start > 1 else { continue }
            var farthest = range.start + 1
            var distance = -1.0
            for index in (range.start + 1)..<range.end {
                let away = Self.distance(plane[index], from: plane[range.start], to: plane[range.end])
                if away > distance {
                    distance = away
                    farthest = index
                }
            }
            let value = min(distance, range.limit)
            values[farthest] = value
            ranges.append((range.start, farthest, value))
            ranges.append((farthest, range.end, value))
        }
        return values
    }

    /// Metres east and north of `origin`.
    static func projector(origin: RoutePoint) -> (RoutePoint) -> (x: Double, y: Double) {
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        let east = metresPerDegree * cos(origin.latitude * Double.pi / 180)
        return { point in ((point.longitude - origin.longitude) * east, (point.latitude - origin.latitude) * metresPerDegree) }
    }

    /// The distance from `point` to the segment from `a` to `b`.
    static func distance(_ point: (x: Double, y: Double), from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let squared = dx * dx + dy * dy
        let t = squared > 0 ? min(1, max(0, ((point.x - a.x) * dx + (point.y - a.y) * dy) / squared)) : 0
        return hypot(point.x - (a.x + t * dx), point.y - (a.y + t * dy))
    }
}

/// Google's encoded polyline algorithm format
/// (developers.google.com/maps/documentation/utilities/polylinealgorithm): latitude and longitude
/// rounded to `precision` decimal digits, each the difference from the point before, zig-zag
/// signed, in 5-bit chunks from the lowest with 0x20 on every chunk but the last, plus 63.
public enum Polyline {
    public static func encode(_ points: [RoutePoint], precision: Int = 5) -> String {
        let scale = pow(10, Double(precision))
        var text: [UInt8] = []
        var previous = (latitude: Int64(0), longitude: Int64(0))
        for point in points where point.isValidCoordinate {
            let latitude = Int64((point.latitude * scale).rounded())
            let longitude = Int64((point.longitude * scale).rounded())
            append(latitude - previous.latitude, to: &text)
            append(longitude - previous.longitude, to: &text)
            previous = (latitude, longitude)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func append(_ value: Int64, to text: inout [UInt8]) {
        var remaining = UInt64(bitPattern: value < 0 ? ~(value << 1) : value << 1)
        while remaining >= 0x20 {
            text.append(UInt8((remaining & 0x1F) | 0x20) + 63)
            remaining >>= 5
        }
        text.append(UInt8(remaining) + 63)
    }
}
