import Foundation
import WorkFeedModel
import WorkFeedStyle

extension Renderer {
    /// A pace or elevation picture: background (map and names), the whole route's outline, then
    /// each piece in time order in its value's colour along the ramp, then the legend and the marks.
    ///
    /// A piece's value is its speed over the steps that moved in it, or its mean altitude
    /// (``PieceMeasures``); a piece without one (a stop, a stretch without altitudes) takes the
    /// value of the piece before it, or after it at the start. The ramp runs over the workout's
    /// own values: from the 5th to the 95th percentile of its pieces' speeds (one sprint or one
    /// crawl does not wash the others out), from its lowest to its highest piece altitude.
    func drawRamp(spec: PictureSpec, route: Route, statistics: inout RenderStatistics) throws(RenderFailure) {
        let style = spec.style
        guard let ramp = spec.ramp, ramp.colours.count >= 2, (2...1000).contains(ramp.segments) else { throw .invalidRampStyle }
        let halfWidth = Self.length(ramp.lineWidth, spec.scale) / 2
        let outlineWidth = halfWidth > 0 ? Self.length(style.outlineWidth, spec.scale) : 0
        guard halfWidth > 0 else { throw .styleDrawsNothing }

        // Everything that can fail is checked before anything is drawn; route reasons come first.
        let scan = RouteScan(route: route, measuresLength: true)
        let fit = try fit(spec: spec, scan: scan)
        path.measures.movingSpeeds = FeedItem.minimumMovingSpeed...Self.fastestStep(ramp.measure)
        layOut(route: route, scan: scan, fit: fit, pieces: ramp.segments, statistics: &statistics)
        let values = try pieceValues(ramp.measure)
        let range = Self.rampRange(ramp.measure, values: values.compactMap { $0 })
        let legend = layOutRampLegend(spec: spec, ramp: ramp, range: range, routeReach: halfWidth + outlineWidth)
        legendBox = legend?.box
        prepareBackground(
            spec: spec, fit: fit, routeReach: halfWidth + outlineWidth, reserved: legend.map { [$0.box] } ?? [], statistics: &statistics)
        let under = drawnSources.isEmpty ? style.background : (spec.map?.land ?? style.background)
        let paints = Self.carried(values).map { Paint(Self.colour(of: $0, range: range, colours: ramp.colours)).flattened(over: under) }

        drawPieces(paints: paints, halfWidth: halfWidth, outlineWidth: outlineWidth, outline: style.outline)
        if let legend { drawRampLegend(legend, spec: spec) }
        drawMarks(style: style, scale: spec.scale)
    }

    /// Metres a second above which a step is a measuring error for `measure`, not a movement: on
    /// foot, faster than the fastest sprinter (12.5 m/s, 45 km/h); on a ride or another activity,
    /// ``TrackFigures/maximumSpeed``.
    static func fastestStep(_ measure: RouteMeasure) -> Double {
        measure == .pace ? 12.5 : TrackFigures.maximumSpeed
    }

    /// Each piece's speed (metres a second) or mean altitude (metres); `nil` for a piece without one.
    /// - Throws: ``RenderFailure/noTimes`` or ``RenderFailure/noElevation`` when no piece has one.
    private func pieceValues(_ measure: RouteMeasure) throws(RenderFailure) -> [Double?] {
        let m = path.measures
        switch measure {
        case .pace, .speed:
            let values = m.movingTime.indices.map { m.movingTime[$0] > 0 ? m.movingDistance[$0] / m.movingTime[$0] : nil }
            guard values.contains(where: { $0 != nil }) else { throw .noTimes }
            return values
        case .elevation:
            let values = m.altitudeLength.indices.map { m.altitudeLength[$0] > 0 ? m.altitudeSum[$0] / m.altitudeLength[$0] : nil }
            guard values.contains(where: { $0 != nil }) else { throw .noElevation }
            return values
        }
    }

    /// The values the ramp's two ends stand for, low first (slowest, lowest).
    static func rampRange(_ measure: RouteMeasure, values: [Double]) -> ClosedRange<Double> {
        let sorted = values.sorted()
        guard let first = sorted.first, let last = sorted.last else { return 0...0 }
        switch measure {
        case .pace, .speed:
            // Nearest-rank percentiles: both are values some piece has.
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))] }
            return percentile(0.05)...percentile(0.95)
        case .elevation:
            return first...last
        }
    }

    /// Fills each piece without a value from the piece before it, or after it at the start.
    static func carried(_ values: [Double?]) -> [Double] {
        var filled = values
        var carried: Double? = nil
        for index in filled.indices {
            if let value = filled[index] { carried = value } else { filled[index] = carried }
        }
        carried = nil
        for index in filled.indices.reversed() {
            if let value = filled[index] { carried = value } else { filled[index] = carried }
        }
        return filled.map { $0 ?? 0 }
    }

    /// `value`'s colour along `colours` (evenly spaced stops from the range's low end to its high
    /// end), mixed channel by channel between the two stops around it; the middle stop's mix when
    /// the range is a single value, the end colours beyond the range.
    static func colour(of value: Double, range: ClosedRange<Double>, colours: [RGBA]) -> RGBA {
        let span = range.upperBound - range.lowerBound
        let position = span > 0 ? min(max((value - range.lowerBound) / span, 0), 1) : 0.5
        let scaled = position * Double(colours.count - 1)
        let low = min(Int(scaled), colours.count - 2)
        let t = scaled - Double(low)
        let (a, b) = (colours[low], colours[low + 1])
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) + (Double(y) - Double(x)) * t).rounded()) }
        return RGBA(red: mix(a.red, b.red), green: mix(a.green, b.green), blue: mix(a.blue, b.blue))
    }
}
