/// Start and end marks.
extension Canvas {
    /// Draws an anti-aliased filled disc with an outline ring around it, both optional.
    func disc(at centre: SIMD2<Float>, radius: Float, fill: Paint?, outlineWidth: Float, outline: Paint?) {
        guard radius > 0 else { return }
        let fillEdge = radius + 0.5
        let outlineEdge = radius + outlineWidth + 0.5
        let reach = outline == nil ? fillEdge : outlineEdge
        let box = PixelRect.around(
            minX: centre.x, minY: centre.y, maxX: centre.x, maxY: centre.y, reach: reach, width: width, height: height)
        guard !box.isEmpty else { return }
        for y in box.minY...box.maxY {
            let pixels = row(y)
            let dy = Float(y) + 0.5 - centre.y
            for x in box.minX...box.maxX {
                let dx = Float(x) + 0.5 - centre.x
                Canvas.blend(
                    pixels, x, distance: (dx * dx + dy * dy).squareRoot(), outer: outline, outerEdge: outlineEdge, inner: fill,
                    innerEdge: fillEdge)
            }
        }
    }
}
