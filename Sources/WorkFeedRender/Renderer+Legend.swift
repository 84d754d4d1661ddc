import WorkFeedModel
import WorkFeedStyle

/// A heatmap's legend laid out in one corner: what it measures and in what unit on top ("Heart
/// rate (bpm)"), then a colour swatch and bpm range per zone, hottest zone first.
struct HeatmapLegend {
    var box: LabelBox
    var title: TextLayout
    var rows: [(colour: RGBA, text: TextLayout)]
    var padding: Int
    var rowHeight: Int
    var swatch: Int
    var gap: Int
}

extension Renderer {
    /// The legend's text size in points.
    static let legendTextSize = 10.0

    /// The legend's first line: what the colours measure, with the unit of the rows below it.
    static let legendTitle = "Heart rate (bpm)"

    /// The bpm range each zone's row shows: "< 100", "100–139", …, "180+" (the unit is in the title).
    static func legendTexts(thresholds: [Double]) -> [String] {
        let bounds = thresholds.map { Int($0.rounded()) }
        guard let first = bounds.first, let last = bounds.last else { return [] }
        var texts = ["< \(first)"]
        for index in bounds.indices.dropFirst() {
            texts.append("\(bounds[index - 1])–\(bounds[index] - 1)")
        }
        // "≥" is not in Noto Sans; "180+" is how watches write an open top zone.
        texts.append("\(last)+")
        return texts
    }

    /// Lays out the legend of `zones` in the corner of the picture the route uses least
    /// (``legendCorner(spec:width:height:routeReach:)``).
    func layOutLegend(spec: PictureSpec, zones: HeartRateZones, routeReach: Float) -> HeatmapLegend? {
        guard let font = mapFonts()?.main else { return nil }
        let scale = spec.scale
        let size = max(Int((Self.legendTextSize * Double(scale)).rounded()), 1)
        let texts = Self.legendTexts(thresholds: zones.thresholds)
        let layouts = texts.map { font.layout($0, pixelSize: size) }
        let title = font.layout(Self.legendTitle, pixelSize: size)
        let padding = 4 * scale
        let gap = 4 * scale
        let rowHeight = (layouts + [title]).map(\.metrics.height).max() ?? size
        let swatch = max(rowHeight * 6 / 10, 1)
        let textWidth = layouts.map(\.metrics.width).max() ?? 0
        let width = Float(padding * 2 + max(swatch + gap + textWidth, title.metrics.width))
        let height = Float(padding * 2 + rowHeight * (layouts.count + 1))
        guard let box = legendCorner(spec: spec, width: width, height: height, routeReach: routeReach) else { return nil }
        let colours = Array(zones.colours.reversed())
        return HeatmapLegend(
            box: box, title: title, rows: zip(colours, layouts.reversed()).map { ($0, $1) }, padding: padding, rowHeight: rowHeight,
            swatch: swatch, gap: gap)
    }

    /// Where a legend of `width` by `height` pixels goes: the corner of the picture the route
    /// uses least (never the attribution's corner on a map), so that it hides as little of the
    /// route as it can; `nil` when it would take more than a third of either side (a thumbnail
    /// too small for one has none).
    func legendCorner(spec: PictureSpec, width: Float, height: Float, routeReach: Float) -> LabelBox? {
        let scale = spec.scale
        let margin = Float(6 * scale)
        let (w, h) = (Float(spec.pixelWidth), Float(spec.pixelHeight))
        guard width + 2 * margin <= w / 3, height + 2 * margin <= h / 3 else { return nil }

        // Top-left, top-right, bottom-left, then bottom-right (where a map's attribution goes).
        var corners = [
            LabelBox(minX: margin, minY: margin, maxX: margin + width, maxY: margin + height),
            LabelBox(minX: w - margin - width, minY: margin, maxX: w - margin, maxY: margin + height),
            LabelBox(minX: margin, minY: h - margin - height, maxX: margin + width, maxY: h - margin),
        ]
        if spec.map == nil {
            corners.append(LabelBox(minX: w - margin - width, minY: h - margin - height, maxX: w - margin, maxY: h - margin))
        }
        legendGrid.reset(width: spec.pixelWidth, height: spec.pixelHeight, cell: Float(2 * scale))
        for run in path.runs {
            legendGrid.take(line: path.vertices[run.start..<run.end], reach: routeReach)
        }
        let marks = markBoxes(style: spec.style, scale: scale, margin: Float(2 * scale))
        var best = corners[0]
        var bestCost = Int.max
        for corner in corners {
            // A mark under the legend costs more than any stretch of line.
            var cost = legendGrid.takenCells(in: corner)
            if marks.contains(where: { $0.intersects(corner) }) { cost += 1_000_000 }
            if cost < bestCost {
                best = corner
                bestCost = cost
            }
        }
        return best
    }

    /// A legend's box and text colours in the theme: the map's attribution colours on a map, the
    /// plain background's otherwise.
    func legendColours(spec: PictureSpec) -> (background: RGBA, ink: RGBA) {
        if let map = spec.map, !drawnSources.isEmpty {
            return (map.attributionBackground, map.attributionText)
        }
        var plain = spec.style.background
        plain.alpha = 0xd9
        let light = Int(plain.red) * 3 + Int(plain.green) * 6 + Int(plain.blue) > 128 * 10
        return (plain, light ? RGBA(red: 0x33, green: 0x33, blue: 0x33) : RGBA(red: 0xe0, green: 0xe0, blue: 0xe0))
    }

    /// A filled rectangle of `colour`, at its own opacity.
    func fill(minX: Float, minY: Float, maxX: Float, maxY: Float, _ colour: RGBA) {
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRectangle(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        area.paint(onto: canvas, Paint(colour))
    }

    /// Draws the legend on a translucent box in the theme's colours (``legendColours(spec:)``).
    func drawLegend(_ legend: HeatmapLegend, spec: PictureSpec) {
        let (background, ink) = legendColours(spec: spec)
        let box = legend.box
        fill(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, background)
        let left = Int(box.minX) + legend.padding
        var top = Int(box.minY) + legend.padding
        canvas.draw(legend.title, left: left, top: top, paint: Paint(ink))
        top += legend.rowHeight
        for row in legend.rows {
            let swatchTop = top + (legend.rowHeight - legend.swatch) / 2
            var opaque = row.colour
            opaque.alpha = 0xff
            fill(
                minX: Float(left), minY: Float(swatchTop), maxX: Float(left + legend.swatch), maxY: Float(swatchTop + legend.swatch),
                opaque)
            canvas.draw(row.text, left: left + legend.swatch + legend.gap, top: top, paint: Paint(ink))
            top += legend.rowHeight
        }
    }
}

extension LabelGrid {
    /// How many cells of `box` are taken.
    func takenCells(in box: LabelBox) -> Int {
        var count = 0
        var y = box.minY
        while y < box.maxY {
            var x = box.minX
            while x < box.maxX {
                if !isFree(LabelBox(minX: x, minY: y, maxX: x + 0.01, maxY: y + 0.01)) { count += 1 }
                x += cell
            }
            y += cell
        }
        return count
    }
}
