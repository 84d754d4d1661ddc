import WorkFeedModel
import WorkFeedTiles

extension Renderer {
    /// Draws the map's attribution in the bottom-right corner, on a translucent box that keeps it
    /// legible over any map, as web maps show theirs.
    ///
    /// The text is laid out by FreeType at `style.attributionSize` points (times the scale), so it
    /// has the same size on the screen at @1x and @2x. A text too long for the picture is cut at
    /// the left edge rather than shrunk below legibility.
    func drawAttribution(_ text: String, style: MapStyle, scale: Int) {
        guard !text.isEmpty, let font = attributionFont() else { return }
        let size = max(Int((style.attributionSize * Double(scale)).rounded()), 1)
        let layout = font.layout(text, pixelSize: size)
        let padX = 4 * scale
        let padY = 2 * scale
        let boxWidth = layout.metrics.width + 2 * padX
        let boxHeight = layout.metrics.height + 2 * padY
        let left = canvas.width - boxWidth
        let top = canvas.height - boxHeight
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRectangle(minX: Float(max(left, 0)), minY: Float(max(top, 0)), maxX: Float(canvas.width), maxY: Float(canvas.height))
        area.paint(onto: canvas, Paint(style.attributionBackground))
        canvas.draw(layout, left: left + padX, top: top + padY, paint: Paint(style.attributionText))
    }

    /// The font for attributions, opened on first use from the basemap's font file. `nil` (and no
    /// attribution) only if the file stopped being a font after the basemap checked it.
    private func attributionFont() -> FontFace? {
        if let font { return font }
        guard let path = basemap?.identity.fontPath else { return nil }
        font = try? FontFace(path: path)
        return font
    }
}
