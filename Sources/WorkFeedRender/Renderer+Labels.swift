import WorkFeedModel
import WorkFeedTiles
import WorkFeedStyle

extension Renderer {
    /// Places and draws the map's names, after the map and before the route: the route lies over
    /// its map as a MapKit overlay does, and no name is placed under it, under its start and end
    /// marks, under the legend or the attribution (`reserved`).
    ///
    /// - Parameters:
    ///   - routeReach: pixels from the route's centre line that its line and outline cover.
    func drawLabels(spec: PictureSpec, style: MapStyle, zoom: Double, routeReach: Float, reserved: [LabelBox]) {
        // The placer was reset for this picture by prepareBackground.
        guard let fonts = mapFonts(), !scene.labels.isEmpty else { return }
        let scale = Float(spec.scale)
        // The route, a little wider than drawn, so that a name never touches it.
        for run in path.runs {
            labelPlacer.grid.take(line: path.vertices[run.start..<run.end], reach: routeReach + 2 * scale)
        }
        for box in reserved { labelPlacer.grid.take(box) }
        labelPlacer.place(scene.labels, style: style.labels, zoom: zoom, scale: spec.scale, fonts: fonts)

        let haloRadius = LabelPlacer.haloRadius(style: style.labels, scale: spec.scale)
        let halo = haloRadius > 0 ? Paint(style.labels.halo) : nil
        for label in labelPlacer.placed {
            let paint = Paint(style.labels[label.kind].color)
            switch label.drawing {
            case .upright(let layout, let left, let top):
                canvas.draw(layout, left: left, top: top, paint: paint, halo: halo, haloRadius: haloRadius)
            case .along(let glyphs, let font, let pixelSize):
                var bitmaps: [(glyph: Glyph, left: Int, top: Int)] = []
                bitmaps.reserveCapacity(glyphs.count)
                for placed in glyphs {
                    let x = placed.origin.x.rounded(.down)
                    let y = placed.origin.y.rounded(.down)
                    guard abs(x) < 1e6, abs(y) < 1e6 else { continue }
                    let glyph = font.rotatedGlyph(
                        placed.index, pixelSize: pixelSize, angle: placed.angle, phaseX: Int((placed.origin.x - x) * 16),
                        phaseY: Int((placed.origin.y - y) * 16))
                    guard glyph.width > 0, glyph.height > 0 else { continue }
                    bitmaps.append((glyph, Int(x) + glyph.left, Int(y) - glyph.top))
                }
                canvas.draw(glyphs: bitmaps, paint: paint, halo: halo, haloRadius: haloRadius)
            }
        }
    }

    /// The map's fonts for this thread, opened on first use from the basemap's font files. `nil`
    /// (and no names or attribution) only if a file stopped being a font after the basemap
    /// checked it.
    /// Without a basemap (plain pictures, whose heatmaps still carry a legend) the default font.
    func mapFonts() -> FontSet? {
        if let fonts { return fonts }
        let paths = basemap.map { [$0.identity.fontPath] + $0.identity.fallbackFontPaths } ?? [BasemapDefaults.fontPath]
        let set = FontSet(paths: paths)
        guard set.main != nil else { return nil }
        fonts = set
        return set
    }

    /// The boxes the start and end marks take, at `scale`, with `margin` pixels around them.
    func markBoxes(style: RouteStyle, scale: Int, margin: Float) -> [LabelBox] {
        let reach = markReach(style: style, scale: scale) + margin
        guard reach > margin else { return [] }
        return [LabelBox.around(path.first, half: reach), LabelBox.around(path.last, half: reach)]
    }
}
