public import WorkFeedModel
/// The part of a route that a picture may show under a ``PrivacyPolicy``.
public struct PrivacyCutResult: Sendable, Hashable {
    /// The visible pieces, each a segment of its own: nothing is drawn between them, so no line
    /// crosses a hidden circle. The route itself, unchanged, when nothing was hidden.
    public var route: Route
    /// Whether any part of the route was hidden.
    public var isCut: Bool
    /// Whether a route with points has nothing left to draw.
    public var isWhollyHidden: Bool

    public init(route: Route, isCut: Bool, isWhollyHidden: Bool) {
        self.route = route
        self.isCut = isCut
        self.isWhollyHidden = isWhollyHidden
    }
}

extension PrivacyPolicy {
    /// Visible pieces shorter than this many metres are dropped: they would draw a dot.
    public static let minimumPieceMetres = 1.0

    /// The route as a picture may show it: without any point inside a zone's
    /// ``hiddenCircle(for:)``, without a secret distance more on either side of each hidden
    /// circle, and without the jittered end trim at its start and end.
    ///
    /// Positions are metres along the route: the sum of its steps within segments (a pause
    /// between segments adds nothing). Everything hidden is a range of them, so:
    /// - a route starting in a zone shows nothing before its first exit from the hidden circle
    ///   plus the extra distance, and nothing after its last entry less the extra distance;
    /// - a route passing through a zone is split there, with the extra distance hidden on both
    ///   sides (two secret distances per workout and zone: one before each entry, one after each
    ///   exit);
    /// - the end trim hides the first and last metres of the route as recorded, counted from its
    ///   start and end whatever zones hide, so that it does not depend on where the zones are.
    ///
    /// A cut falls between recorded points, and the new end point is interpolated on the route's
    /// step, with its time and elevation (`nil` unless both neighbours have them). Points with
    /// invalid coordinates are dropped from a route that is cut, as the renderer skips them.
    ///
    /// - Parameters:
    ///   - route: the workout's route.
    ///   - workoutID: a stable identity of the workout, which picks its secret distances: the
    ///     same text always gives the same cut. The route's content hash serves well, as it is
    ///     already part of the picture's cache key.
    /// - Returns: the route itself when the policy ``hidesNothing`` or no zone and no trim
    ///   touches it; the whole route hidden when the policy fails ``validate()``.
    public func cut(_ route: Route, workoutID: String) -> PrivacyCutResult {
        if hidesNothing || route.isEmpty { return PrivacyCutResult(route: route, isCut: false, isWhollyHidden: false) }
        // Fail closed: a policy that cannot hide safely hides everything.
        guard (try? validate()) != nil else { return PrivacyCutResult(route: Route(), isCut: true, isWhollyHidden: true) }

        let path = MeasuredRoute(route)
        var hidden: [ClosedRange<Double>] = []
        // Only the zones whose circle the route's box meets, as its pictures' keys hold them
        // (``meeting(_:)``): the others have nothing of the route inside them.
        let meeting = RouteBounds(route).map { circles(meeting: $0) } ?? []
        for (zone, circle) in meeting {
            let radius = Self.effectiveRadius(zone)
            let draw = secretUniforms("crossing\n\(workoutID.utf8.count):\(workoutID)\n\(zone.canonicalText)")
            let before = radius * Self.value(in: Self.crossingExtraFraction, at: draw[0])
            let after = radius * Self.value(in: Self.crossingExtraFraction, at: draw[1])
            hidden += path.ranges(inside: circle, before: before, after: after)
        }
        if endTrimMetres > 0 {
            let draw = secretUniforms("trim\n\(workoutID.utf8.count):\(workoutID)")
            hidden.append(-Double.infinity...endTrimMetres * Self.value(in: Self.endTrimJitter, at: draw[0]))
            hidden.append(path.length - endTrimMetres * Self.value(in: Self.endTrimJitter, at: draw[1])...Double.infinity)
        }
        let merged = Self.merge(hidden)
        if merged.isEmpty { return PrivacyCutResult(route: route, isCut: false, isWhollyHidden: false) }
        let visible = Route(segments: path.pieces(outside: merged, minimumLength: Self.minimumPieceMetres))
        return PrivacyCutResult(route: visible, isCut: true, isWhollyHidden: visible.isEmpty)
    }

    /// The union of `ranges` as disjoint ranges in ascending order; touching ranges join.
    static func merge(_ ranges: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        var merged: [ClosedRange<Double>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

/// A route's valid points with their positions in metres along it, counted over all segments.
private struct MeasuredRoute {
    var segments: [[RoutePoint]] = []
    /// `positions[k][i]`: metres from the route's start to point `i` of segment `k`.
    var positions: [[Double]] = []
    var length = 0.0

    init(_ route: Route) {
        for segment in route.segments {
            let points = segment.filter(\.isValidCoordinate)
            guard !points.isEmpty else { continue }
            var along = [length]
            for index in points.indices.dropFirst() {
                length += LocalPlane.stepLength(points[index - 1], points[index])
                along.append(length)
            }
            segments.append(points)
            positions.append(along)
        }
    }

    /// The ranges of positions inside `circle`, widened by `before` metres before and `after`
    /// metres after each; one range per step that enters the circle (``PrivacyPolicy/merge(_:)``
    /// joins them).
    func ranges(inside circle: HiddenCircle, before: Double, after: Double) -> [ClosedRange<Double>] {
        let plane = LocalPlane(latitude: circle.latitude, longitude: circle.longitude)
        let radiusSquared = circle.radius * circle.radius
        var ranges: [ClosedRange<Double>] = []
        for (points, along) in zip(segments, positions) {
            let xy = points.map(plane.project)
            if xy.count == 1, (xy[0] * xy[0]).sum() <= radiusSquared {
                ranges.append(along[0] - before...along[0] + after)
            }
            for index in xy.indices.dropFirst() {
                // The step is a + t d for t in 0...1; it is inside where |a + t d|² <= r².
                let a = xy[index - 1]
                let d = xy[index] - a
                let quadratic = (d * d).sum()
                let linear = (a * d).sum()
                let constant = (a * a).sum() - radiusSquared
                let entry: Double
                let exit: Double
                if quadratic == 0 {
                    guard constant <= 0 else { continue }
                    (entry, exit) = (0, 1)
                } else {
                    let discriminant = linear * linear - quadratic * constant
                    guard discriminant >= 0 else { continue }
                    let root = discriminant.squareRoot()
                    entry = max(0, (-linear - root) / quadratic)
                    exit = min(1, (-linear + root) / quadratic)
                    guard entry <= exit else { continue }
                }
                let start = along[index - 1]
                let step = along[index] - start
                ranges.append(start + entry * step - before...start + exit * step + after)
            }
        }
        return ranges
    }

    /// The pieces of each segment outside the `hidden` ranges (disjoint and ascending), each
    /// with points interpolated at its ends; a segment that no range touches is kept whole.
    func pieces(outside hidden: [ClosedRange<Double>], minimumLength: Double) -> [[RoutePoint]] {
        var pieces: [[RoutePoint]] = []
        for (points, along) in zip(segments, positions) {
            let first = along[0]
            let last = along[along.count - 1]
            let touching = hidden.filter { $0.upperBound >= first && $0.lowerBound <= last }
            if touching.isEmpty {
                pieces.append(points)
                continue
            }
            var visible: [(from: Double, to: Double)] = []
            var cursor = first
            for range in touching {
                if range.lowerBound > cursor { visible.append((cursor, range.lowerBound)) }
                cursor = max(cursor, range.upperBound)
            }
            if cursor < last { visible.append((cursor, last)) }
            for (from, to) in visible where to - from >= minimumLength {
                var piece = [point(at: from, points, along)]
                for index in points.indices where along[index] > from && along[index] < to { piece.append(points[index]) }
                piece.append(point(at: to, points, along))
                pieces.append(piece)
            }
        }
        return pieces
    }

    /// The point at `position` metres along a segment, on the step that holds it.
    private func point(at position: Double, _ points: [RoutePoint], _ along: [Double]) -> RoutePoint {
        guard let index = along.firstIndex(where: { $0 >= position }) else { return points[points.count - 1] }
        if index == 0 { return points[0] }
        let step = along[index] - along[index - 1]
        return LocalPlane.interpolate(points[index - 1], points[index], fraction: step > 0 ? (position - along[index - 1]) / step : 1)
    }
}
