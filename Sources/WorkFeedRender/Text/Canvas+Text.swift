/// Drawing laid-out text.
extension Canvas {
    /// Largest halo, in pixels; more would smear a label into a blob.
    static let maximumHaloRadius = 4

    /// Draws `text` with the top-left corner of its ``TextMetrics`` box at pixel (`left`, `top`).
    ///
    /// Ink stays inside the box; a halo reaches `haloRadius` pixels beyond it. The halo is the
    /// text's coverage dilated by `haloRadius` (see ``dilate(_:width:height:reach:)``), painted
    /// under the text, so that every letter keeps a rim of a contrasting colour on a busy map.
    /// Coverage of overlapping glyphs adds up, capped at full. Whatever falls outside the canvas
    /// is clipped.
    ///
    /// - Parameters:
    ///   - halo: the rim's paint, or `nil` for none.
    ///   - haloRadius: clamped to 0...``maximumHaloRadius``; 1 at @1x and 2 at @2x read well.
    func draw(_ text: TextLayout, left: Int, top: Int, paint: Paint, halo: Paint? = nil, haloRadius: Int = 1) {
        // Far outside the canvas nothing shows; the bound also keeps the sums below from overflowing.
        let near = -(1 << 40)..<(1 << 40)
        guard near.contains(left), near.contains(top) else { return }
        draw(
            glyphs: text.glyphs.map { (glyph: $0.glyph, left: left + $0.x, top: top + $0.y) },
            box: (left, top, left + text.metrics.width, top + text.metrics.height), paint: paint, halo: halo, haloRadius: haloRadius)
    }

    /// Draws glyph bitmaps with their top-left corners at the given pixels, as one text: their
    /// coverage adds up (capped at full), the halo is that coverage dilated by `haloRadius`.
    ///
    /// - Parameter box: `(minX, minY, maxX, maxY)`, maxima excluded, holding every glyph's ink;
    ///   `nil` works it out from the glyphs.
    func draw(
        glyphs: [(glyph: Glyph, left: Int, top: Int)], box: (Int, Int, Int, Int)? = nil, paint: Paint, halo: Paint? = nil,
        haloRadius: Int = 1
    ) {
        let reach = halo == nil ? 0 : min(max(haloRadius, 0), Self.maximumHaloRadius)
        let near = -(1 << 40)..<(1 << 40)
        guard !glyphs.isEmpty, glyphs.allSatisfy({ near.contains($0.left) && near.contains($0.top) }) else { return }
        var (left, top, right, bottom) = box ?? (Int.max, Int.max, Int.min, Int.min)
        if box == nil {
            for placed in glyphs {
                left = min(left, placed.left)
                top = min(top, placed.top)
                right = max(right, placed.left + placed.glyph.width)
                bottom = max(bottom, placed.top + placed.glyph.height)
            }
        }
        // The canvas pixels that may change, [x0, x1) x [y0, y1).
        let x0 = max(left - reach, 0)
        let y0 = max(top - reach, 0)
        let x1 = min(right + reach, width)
        let y1 = min(bottom + reach, height)
        guard x0 < x1, y0 < y1 else { return }

        // Text coverage over those pixels and `reach` around them, where the halo looks for ink.
        let maskLeft = x0 - reach
        let maskTop = y0 - reach
        let maskWidth = x1 - x0 + 2 * reach
        let maskHeight = y1 - y0 + 2 * reach
        var mask = [UInt8](repeating: 0, count: maskWidth * maskHeight)
        for placed in glyphs {
            let glyph = placed.glyph
            let gx = placed.left - maskLeft
            let gy = placed.top - maskTop
            let firstRow = max(0, -gy)
            let lastRow = min(glyph.height, maskHeight - gy)
            let firstColumn = max(0, -gx)
            let lastColumn = min(glyph.width, maskWidth - gx)
            guard firstRow < lastRow, firstColumn < lastColumn else { continue }
            for row in firstRow..<lastRow {
                let source = row * glyph.width
                let target = (gy + row) * maskWidth + gx
                for column in firstColumn..<lastColumn {
                    let sum = Int(mask[target + column]) + Int(glyph.coverage[source + column])
                    mask[target + column] = UInt8(min(sum, 255))
                }
            }
        }

        let rim = halo == nil ? [] : Self.dilate(mask, width: maskWidth, height: maskHeight, reach: reach)
        for y in y0..<y1 {
            let line = row(y)
            let my = y - maskTop
            for x in x0..<x1 {
                let mx = x - maskLeft
                if let halo {
                    // Twice the ink's coverage, capped: a halo is solid around thin strokes
                    // too (a 10-pixel stroke of Noto Sans never covers a pixel whole).
                    let cover = rim[my * maskWidth + mx]
                    if cover > 0 { Canvas.blend(line, x, halo, min(Float(cover) / 127.5, 1)) }
                }
                let ink = mask[my * maskWidth + mx]
                if ink > 0 { Canvas.blend(line, x, paint, Float(ink) / 255) }
            }
        }
    }

    /// The largest value of `mask` within a disc of radius `reach` + 0.5 around each pixel: the
    /// pixels whose centres lie within `reach` pixels of ink, with that ink's coverage.
    ///
    /// A disc is rows of different widths, so it is taken as the maximum over its rows of
    /// horizontal maxima, each width built from the narrower one; a dozen byte operations a
    /// pixel instead of one per pixel of the disc.
    static func dilate(_ mask: [UInt8], width: Int, height: Int, reach: Int) -> [UInt8] {
        guard reach > 0 else { return mask }
        // rows[e][x] is the largest of mask[x - e ... x + e] in the same row.
        var rows = [mask]
        for _ in 1...reach {
            let previous = rows[rows.count - 1]
            var next = previous
            for y in 0..<height {
                let base = y * width
                for x in 0..<width {
                    var value = previous[base + x]
                    if x > 0 { value = max(value, previous[base + x - 1]) }
                    if x + 1 < width { value = max(value, previous[base + x + 1]) }
                    next[base + x] = value
                }
            }
            rows.append(next)
        }
        let radiusSquared = (Float(reach) + 0.5) * (Float(reach) + 0.5)
        var rim = [UInt8](repeating: 0, count: mask.count)
        for dy in -reach...reach {
            let extent = min(Int((radiusSquared - Float(dy * dy)).squareRoot()), reach)
            let source = rows[extent]
            let first = max(0, -dy)
            let last = min(height, height - dy)
            guard first < last else { continue }
            for y in first..<last {
                let to = y * width
                let from = (y + dy) * width
                for x in 0..<width { rim[to + x] = max(rim[to + x], source[from + x]) }
            }
        }
        return rim
    }
}
