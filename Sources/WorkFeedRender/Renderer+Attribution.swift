import WorkFeedModel
import WorkFeedTiles
import WorkFeedStyle

/// The attribution laid out for one picture: the text and the box it is drawn on.
struct AttributionLayout {
    var text: TextLayout
    var box: LabelBox
    var padX: Int
    var padY: Int
}

extension Renderer {
    /// The map's attribution laid out for the bottom-right corner, or `nil` without text or font.
    ///
    /// The text is laid out at `style.attributionSize` points (times the scale), so it has the
    /// same size on the screen at @1x and @2x. A text too long for the picture is cut at the left
    /// edge rather than shrunk below legibility.
    func attributionLayout(_ text: String, style: MapStyle, scale: Int) -> AttributionLayout? {
        guard !text.isEmpty, let font = mapFonts()?.main else { return nil }
        let size = max(Int((style.attributionSize * Double(scale)).rounded()), 1)
        let layout = font.layout(text, pixelSize: size)
        let padX = 4 * scale
        let padY = 2 * scale
        let boxWidth = layout.metrics.width + 2 * padX
        let boxHeight = layout.metrics.height + 2 * padY
        let box = LabelBox(
            minX: Float(max(canvas.width - boxWidth, 0)), minY: Float(max(canvas.height - boxHeight, 0)),
            maxX: Float(canvas.width), maxY: Float(canvas.height))
        return AttributionLayout(text: layout, box: box, padX: padX, padY: padY)
    }

    /// Draws the attribution on a translucent box in the bottom-right corner, as web maps show
    /// theirs, so that it stays legible over any map.
    func drawAttribution(_ attribution: AttributionLayout, style: MapStyle) {
        let box = attribution.box
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRectangle(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY)
        area.paint(onto: canvas, Paint(style.attributionBackground))
        let left = canvas.width - attribution.text.metrics.width - 2 * attribution.padX + attribution.padX
        let top = canvas.height - attribution.text.metrics.height - 2 * attribution.padY + attribution.padY
        canvas.draw(attribution.text, left: left, top: top, paint: Paint(style.attributionText))
    }
}
