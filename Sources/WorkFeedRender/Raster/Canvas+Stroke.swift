/// Turning a distance field into paint.
extension Canvas {
    /// Composites an outline band and a line over the pixels the field touched.
    ///
    /// Coverage at distance `d` is `clamp(halfWidth + 0.5 - d, 0, 1)` for the line and
    /// `clamp(halfWidth + outlineWidth + 0.5 - d, 0, 1)` for the outline under it: a one-pixel
    /// linear ramp centred on the exact edge, which is what area sampling gives for an edge
    /// crossing a pixel straight. Either paint may be missing (turned off).
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
        for y in area.minY...area.maxY {
            let distances = field.row(y)
            let pixels = row(y)
            var x = area.minX
            while x <= area.maxX {
                // Most of the touched area is far from the line: skip it eight pixels at a time.
                if x &+ 7 <= area.maxX {
                    let block = UnsafeRawPointer(distances + x).loadUnaligned(as: SIMD8<Float>.self)
                    if !any(block .< reachSquared) {
                        x &+= 8
                        continue
                    }
                }
                let squared = distances[x]
                defer { x &+= 1 }
                guard squared < reachSquared else { continue }
                if squared <= coreSquared {
                    let p = pixels + 3 * x
                    (p[0], p[1], p[2]) = solid
                    continue
                }
                let distance = squared.squareRoot()
                if let outline {
                    let coverage = min(max(outlineEdge - distance, 0), 1)
                    if coverage > 0 { Canvas.blend(pixels, x, outline, coverage) }
                }
                if let line {
                    let coverage = min(max(lineEdge - distance, 0), 1)
                    if coverage > 0 { Canvas.blend(pixels, x, line, coverage) }
                }
            }
        }
    }
}
