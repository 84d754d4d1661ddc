import WorkFeedModel

extension Renderer {
    /// Draws the map's attribution in the bottom-right corner on a translucent box.
    func drawAttribution(_ text: String, style: MapStyle, scale: Int) {
        // Wired to FreeType once the text renderer lands.
        _ = (text, style, scale)
    }
}
