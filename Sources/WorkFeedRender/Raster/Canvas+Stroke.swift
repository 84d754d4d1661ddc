/// Turning a distance field into paint.
extension Canvas {
    /// Composites an outline band and a line over the pixels the field touched.
    ///
    /// Coverage at distance `d` is `clamp(halfWidth + 0.5 - d, 0, 1)` for the line and
    /// `clamp(halfWidth + outlineWidth + 0.5 - d, 0, 1)` for the outline under it: a one-pixel
    /// linear ramp centred on the exact edge, which is what area sampling gives for an edge
    /// crossing a pixel straight. Either paint may be missing (turned off).
    ///
    /// Only the blocks of eight pixels the field marked are read: every other pixel is `+inf`,
    /// far from any line.
    func stroke(_ field: DistanceField, halfWidth: Float, line: Paint?, outlineWidth: Float, outline: Paint?) {
        let area = field.touched
        guard !area.isEmpty else { return }
        let lineEdge = halfWidth + 0.5
        let outlineEdge = halfWidth + outlineWidth + 0.5
        let reach = max(line == nil ? 0 : lineEdge, outline == nil ? 0 : outlineEdge)
        let reachSquared = reach * reach
        // Inside the line's solid core an opaque line is simply its colour: no blending needed.
        let core = halfWidth - 0.5
        let coreSquared: Float = line.map { $0.opacity >= 1 && core > 0 } == true ? core * core : -1
        let solid: (UInt8, UInt8, UInt8) = line.map { (UInt8($0.red + 0.5), UInt8($0.green + 0.5), UInt8($0.blue + 0.5)) } ?? (0, 0, 0)
        // Likewise an opaque outline where it covers its pixel whole (a road's casing): the
        // composite at coverage 1 is the paint's own colour, so it is written without a square
        // root or a blend, to the same bytes.
        let outlineCore = halfWidth + outlineWidth - 0.5
        let outlineCoreSquared: Float = outline.map { $0.opacity >= 1 && outlineCore > 0 } == true ? outlineCore * outlineCore : -1
        let outlineSolid: (UInt8, UInt8, UInt8) =
            outline.map { (UInt8($0.red + 0.5), UInt8($0.green + 0.5), UInt8($0.blue + 0.5)) } ?? (0, 0, 0)
        let lineReachSquared: Float = line == nil ? -1 : lineEdge * lineEdge
        let fieldWidth = field.width
        for y in area.minY...area.maxY {
            let distances = field.row(y)
            let pixels = row(y)
            let words = field.marks.row(y)
            for word in 0..<field.marks.wordsPerRow {
                var bits = words[word]
                while bits != 0 {
                    let start = (word &<< 6 | bits.trailingZeroBitCount) &<< 3
                    bits &= bits &- 1
                    let end = min(start &+ 8, fieldWidth)
                    // Most of a marked block may still be far from the line: skip it at once.
                    if end &- start == 8 {
                        let block = UnsafeRawPointer(distances + start).loadUnaligned(as: SIMD8<Float>.self)
                        if !any(block .< reachSquared) { continue }
                        // Inside a wide line or casing at @2x and @3x, all eight are one colour.
                        if all(block .<= coreSquared) {
                            Canvas.fill(pixels, start..<end, solid)
                            continue
                        }
                        if all(block .<= outlineCoreSquared .& block .>= lineReachSquared) {
                            Canvas.fill(pixels, start..<end, outlineSolid)
                            continue
                        }
                    }
                    for x in start..<end {
                        let squared = distances[x]
                        guard squared < reachSquared else { continue }
                        if squared <= coreSquared {
                            let p = pixels + 3 * x
                            (p[0], p[1], p[2]) = solid
                            continue
                        }
                        if squared <= outlineCoreSquared, squared >= lineReachSquared {
                            let p = pixels + 3 * x
                            (p[0], p[1], p[2]) = outlineSolid
                            continue
                        }
                        Canvas.blend(
                            pixels, x, distance: squared.squareRoot(), outer: outline, outerEdge: outlineEdge, inner: line,
                            innerEdge: lineEdge)
                    }
                }
            }
        }
    }
}
