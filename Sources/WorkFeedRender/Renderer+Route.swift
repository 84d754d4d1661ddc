import WorkFeedModel
import WorkFeedStyle

extension Renderer {
    /// Background, then the whole route's outline and line from one distance field, then marks.
    func drawRoute(spec: PictureSpec, route: Route, statistics: inout RenderStatistics) throws(RenderFailure) {
        let style = spec.style
        let halfWidth = Self.length(style.lineWidth, spec.scale) / 2
        let outlineWidth = halfWidth > 0 ? Self.length(style.outlineWidth, spec.scale) : 0
        guard halfWidth > 0 || Self.length(style.markRadius, spec.scale) > 0 else { throw .styleDrawsNothing }
        let scan = RouteScan(route: route, measuresLength: false)
        let fit = try fit(spec: spec, scan: scan)
        layOut(route: route, scan: scan, fit: fit, pieces: 1, statistics: &statistics)

        prepareBackground(spec: spec, fit: fit, routeReach: halfWidth + outlineWidth, statistics: &statistics)
        field.prepare(width: spec.pixelWidth, height: spec.pixelHeight)
        if halfWidth > 0 {
            let reach = halfWidth + outlineWidth + 0.5
            for run in path.runs {
                field.stamp(path.vertices[run.start..<run.end], reach: reach)
            }
            canvas.stroke(
                field, halfWidth: halfWidth, line: Paint(style.line),
                outlineWidth: outlineWidth, outline: outlineWidth > 0 ? Paint(style.outline) : nil)
            field.clear()
        }
        drawMarks(style: style, scale: spec.scale)
    }
}
