import WorkFeedModel
import WorkFeedStyle

extension Renderer {
    /// Background (map and names), the whole route's outline, then each piece in time order in
    /// its zone colour, then the legend and the marks.
    ///
    /// Each piece's zone colour is flattened onto the background at its opacity, so a later piece
    /// covers an earlier one where the route crosses itself or comes back the same way: the later
    /// pass reads on top instead of mixing two zones' colours.
    func drawHeatmap(
        spec: PictureSpec, route: Route, heartRate: [HeartRateSample], statistics: inout RenderStatistics
    ) throws(RenderFailure) {
        let style = spec.style
        guard let heatmap = spec.heatmap, let zones = HeartRateZones(style: heatmap), (1...1000).contains(heatmap.segments) else {
            throw .invalidHeatmapStyle
        }
        let halfWidth = Self.length(heatmap.lineWidth, spec.scale) / 2
        let outlineWidth = halfWidth > 0 ? Self.length(style.outlineWidth, spec.scale) : 0
        guard halfWidth > 0 else { throw .styleDrawsNothing }

        // Everything that can fail is checked before anything is drawn; route reasons come first.
        let scan = RouteScan(route: route, measuresLength: heatmap.segments > 1)
        let fit = try fit(spec: spec, scan: scan)
        guard scan.hasTimeSpan else { throw .noHeartRateSamples }
        let series = HeartRateSeries(samples: heartRate, span: scan.firstTime...scan.lastTime)
        guard !series.isEmpty else { throw .noHeartRateSamples }
        layOut(route: route, scan: scan, fit: fit, pieces: heatmap.segments, statistics: &statistics)
        let legend = layOutLegend(spec: spec, zones: zones, routeReach: halfWidth + outlineWidth)
        legendBox = legend?.box
        prepareBackground(
            spec: spec, fit: fit, routeReach: halfWidth + outlineWidth, reserved: legend.map { [$0.box] } ?? [], statistics: &statistics)
        // On a map, zone colours are flattened over its land, as if laid over the map at their opacity.
        let under = drawnSources.isEmpty ? style.background : (spec.map?.land ?? style.background)
        let paints = piecePaints(series: series, zones: zones, background: under)

        drawPieces(paints: paints, halfWidth: halfWidth, outlineWidth: outlineWidth, outline: style.outline)
        if let legend { drawLegend(legend, spec: spec) }
        drawMarks(style: style, scale: spec.scale)
    }

    /// The whole route's outline, then each piece of ``path`` in time order in its opaque paint, so
    /// that a later piece covers an earlier one where the route comes back; a piece that continues
    /// the one before starts square.
    func drawPieces(paints: [Paint], halfWidth: Float, outlineWidth: Float, outline: RGBA) {
        field.prepare(width: canvas.width, height: canvas.height)
        if outlineWidth > 0 {
            for run in path.runs {
                field.stamp(path.vertices[run.start..<run.end], reach: halfWidth + outlineWidth + 0.5)
            }
            canvas.stroke(field, halfWidth: halfWidth, line: nil, outlineWidth: outlineWidth, outline: Paint(outline))
            field.clear()
        }
        var index = 0
        while index < path.runs.count {
            let piece = path.runs[index].piece
            while index < path.runs.count, path.runs[index].piece == piece {
                let run = path.runs[index]
                let vertices = path.vertices[run.start..<run.end]
                field.stamp(vertices, reach: halfWidth + 0.5, cut: run.buttStart ? cut(vertices, halfWidth: halfWidth) : nil)
                index += 1
            }
            canvas.stroke(field, halfWidth: halfWidth, line: paints[piece], outlineWidth: 0, outline: nil)
            field.clear()
        }
    }

    /// One opaque paint per piece from its average heart rate; a piece without timestamps takes
    /// the rate of the nearest piece before it, or after it at the start of the route.
    private func piecePaints(series: HeartRateSeries, zones: HeartRateZones, background: RGBA) -> [Paint] {
        let count = path.pieceFirstTime.count
        var rates = [Double?](repeating: nil, count: count)
        for piece in 0..<count where path.pieceFirstTime[piece] <= path.pieceLastTime[piece] {
            rates[piece] = series.average(from: path.pieceFirstTime[piece], to: path.pieceLastTime[piece])
        }
        var carried: Double? = nil
        for piece in 0..<count {
            if let rate = rates[piece] { carried = rate } else { rates[piece] = carried }
        }
        carried = nil
        for piece in (0..<count).reversed() {
            if let rate = rates[piece] { carried = rate } else { rates[piece] = carried }
        }
        // The series is not empty, so some piece has a rate unless no piece has a timestamp,
        // which a non-empty time span rules out; the fallback only keeps this total.
        return rates.map { zones.paint(for: $0 ?? 0).flattened(over: background) }
    }

    /// The square start of a piece that continues the previous one, along its first real segment.
    private func cut(_ vertices: ArraySlice<SIMD2<Float>>, halfWidth: Float) -> ButtCut? {
        guard let origin = vertices.first else { return nil }
        for vertex in vertices.dropFirst() where vertex != origin {
            return ButtCut(from: origin, toward: vertex, halfWidth: halfWidth)
        }
        return nil
    }
}
