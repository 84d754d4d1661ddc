import Foundation
import WorkFeedModel
import WorkFeedTiles
import WorkFeedStyle

extension Renderer {
    /// The map's zoom as MapLibre counts it (512-point tiles), for a fit at `scale`.
    static func mapZoom(fit: PictureFit, scale: Int) -> Double {
        log2(fit.zoom / Double(scale) / 512)
    }

    /// Draws the basemap under the route: the land of every tile found, then areas, waterways,
    /// road casings, road fills and rail, each layer gathered from all tiles before it is painted
    /// so that nothing changes at a tile edge.
    ///
    /// - Returns: how much of the picture the map covered, and the tilesets that were drawn.
    func drawBasemap(
        spec: PictureSpec, style: MapStyle, basemap: Basemap, fit: PictureFit, statistics: inout RenderStatistics
    ) -> Set<Int> {
        let zoom = Self.mapZoom(fit: fit, scale: spec.scale)
        // Only names the style shows at this zoom are gathered: at a city's zoom most of a tile's
        // names are paths and tracks, which are shown only closer in.
        scene.shownLabels = Set(
            MapLabelKind.allCases.filter { kind in
                let kindStyle = style.labels[kind]
                return kindStyle.show && (kindStyle.minZoom...kindStyle.maxZoom).contains(zoom)
            })
        let scene = gatherScene(basemap: basemap, fit: fit, zoom: zoom, statistics: &statistics)
        guard !scene.drawnSources.isEmpty else { return [] }
        let scale = Float(spec.scale)

        // Land: one square per tile found, in one mask, so that neighbouring squares leave no seam.
        area.prepare(width: canvas.width, height: canvas.height)
        for square in scene.landSquares {
            area.addRectangle(minX: square.minX, minY: square.minY, maxX: square.maxX, maxY: square.maxY)
        }
        area.paint(onto: canvas, Paint(style.land))
        // Raster tiles are the ground where a raster tileset has the position.
        for placement in scene.images {
            canvas.draw(placement)
        }

        for kind in MapFeatureKind.allCases {
            guard let mapArea = kind.area else { continue }
            let group = scene.groups[kind.rawValue]
            guard !group.isEmpty else { continue }
            for index in group.starts.indices {
                area.addRing(group.part(index))
            }
            area.paint(onto: canvas, Paint(style[mapArea]))
        }

        field.prepare(width: canvas.width, height: canvas.height)
        // Lines are drawn a band of rows at a time, every line layer in a band before the next
        // band: the band's distances and pixels stay in the processor's cache (at @3x the field is
        // 9 MB and the canvas 7 MB, and each of up to 21 layers went over both), and every pixel
        // sees the same layers in the same order, so the bytes are the same as in one band.
        let extents = LineExtents(scene: scene)
        let bandRows = max(16, lineBandPixels / max(canvas.width, 1))
        for first in stride(from: 0, to: canvas.height, by: bandRows) {
            field.band = first..<min(first + bandRows, canvas.height)
            drawLines(scene: scene, extents: extents, style: style, zoom: zoom, scale: scale)
        }
        field.band = 0..<canvas.height
        return scene.drawnSources
    }

    /// Strokes the map's lines within ``DistanceField/band``: waterways, road casings, road fills
    /// and rail.
    private func drawLines(scene: MapScene, extents: LineExtents, style: MapStyle, zoom: Double, scale: Float) {
        for line in [MapLine.stream, .river] { strokeLine(line, scene: scene, extents: extents, style: style, zoom: zoom, scale: scale) }
        // Every class's casing before any fill: a casing never cuts across a road drawn earlier.
        for road in RoadClass.allCases {
            let roadStyle = style[road]
            let kind = MapFeatureKind(road: road)
            let group = scene.groups[kind.rawValue]
            let fillWidth = Float(roadStyle.width.width(atZoom: zoom)) * scale
            let casingWidth = Float(roadStyle.casingWidth.width(atZoom: zoom)) * scale
            guard !group.isEmpty, fillWidth > 0, casingWidth > 0 else { continue }
            let halfWidth = max(fillWidth / 2, 0.5)
            let reach = halfWidth + casingWidth + 0.5
            for index in extents.parts(kind, within: field.band, reach: reach) {
                field.stamp(group.part(index), reach: reach)
            }
            canvas.stroke(field, halfWidth: halfWidth, line: nil, outlineWidth: casingWidth, outline: Paint(roadStyle.casing))
            field.clear()
        }
        for road in RoadClass.allCases {
            let roadStyle = style[road]
            strokeLines(
                MapFeatureKind(road: road), scene: scene, extents: extents, width: roadStyle.width, zoom: zoom, scale: scale,
                paint: Paint(roadStyle.fill))
        }
        strokeLine(.rail, scene: scene, extents: extents, style: style, zoom: zoom, scale: scale)
    }

    /// Strokes one of the map's lines (waterways, rail) in its style.
    private func strokeLine(_ line: MapLine, scene: MapScene, extents: LineExtents, style: MapStyle, zoom: Double, scale: Float) {
        let lineStyle = style[line]
        strokeLines(
            MapFeatureKind(line: line), scene: scene, extents: extents, width: lineStyle.width, zoom: zoom, scale: scale,
            paint: Paint(lineStyle.color))
    }

    /// Strokes every line of `kind` at the style's width for `zoom`. Lines thinner than a pixel
    /// are drawn one pixel wide at a matching opacity, which is how they look when area-sampled.
    private func strokeLines(
        _ kind: MapFeatureKind, scene: MapScene, extents: LineExtents, width: ZoomWidth, zoom: Double, scale: Float, paint: Paint
    ) {
        let group = scene.groups[kind.rawValue]
        let full = Float(width.width(atZoom: zoom)) * scale
        guard !group.isEmpty, full > 0.05 else { return }
        var paint = paint
        if full < 1 { paint.opacity *= full }
        let halfWidth = max(full / 2, 0.5)
        for index in extents.parts(kind, within: field.band, reach: halfWidth + 0.5) {
            field.stamp(group.part(index), reach: halfWidth + 0.5)
        }
        canvas.stroke(field, halfWidth: halfWidth, line: paint, outlineWidth: 0, outline: nil)
        field.clear()
    }

    /// Finds the tiles under the picture and gathers their features, placed in pixels and cut to
    /// each tile's square, into one group per kind.
    ///
    /// The tile zoom is the map zoom rounded, within the tilesets' zooms; past a tileset's highest
    /// zoom its highest tiles are drawn larger (overzoom), and since geometry is vector, lines stay
    /// crisp. Each tile position takes the first tileset, in configured order, that has it.
    func gatherScene(basemap: Basemap, fit: PictureFit, zoom: Double, statistics: inout RenderStatistics) -> MapScene {
        scene.reset()
        let width = Double(canvas.width)
        let height = Double(canvas.height)
        guard let zoomRange = basemap.zoomRange else { return scene }
        let tileZoom = min(max(Int((zoom).rounded()), zoomRange.lowerBound), zoomRange.upperBound)
        let tiles = Double(1 << tileZoom)
        let left = fit.centreX - fit.pixelCentreX / fit.zoom
        let right = fit.centreX + (width - fit.pixelCentreX) / fit.zoom
        let top = fit.centreY - fit.pixelCentreY / fit.zoom
        let bottom = fit.centreY + (height - fit.pixelCentreY) / fit.zoom
        let firstX = Int((left * tiles).rounded(.down))
        let lastX = Int((right * tiles).rounded(.up)) - 1
        let firstY = max(Int((top * tiles).rounded(.down)), 0)
        let lastY = min(Int((bottom * tiles).rounded(.up)) - 1, Int(tiles) - 1)
        guard firstX <= lastX, firstY <= lastY, lastX - firstX < 64, lastY - firstY < 64 else { return scene }
        let tileSize = fit.zoom / tiles
        // Lines are cut this far outside the picture, beyond the reach of the widest stroke, so
        // that no pixel inside misses a piece of line that would have touched it.
        // (The widest default stroke, a motorway at zoom 18 with its casing, reaches 28 px at @3x.)
        let margin: Float = 96

        var positions = 0
        var found = 0
        for ty in firstY...lastY {
            for tx in firstX...lastX {
                positions += 1
                // Unwrapped x places the tile; wrapped x names it (routes across the antimeridian).
                let wrapped = ((tx % Int(tiles)) + Int(tiles)) % Int(tiles)
                let originX = fit.pixelCentreX + (Double(tx) / tiles - fit.centreX) * fit.zoom
                let originY = fit.pixelCentreY + (Double(ty) / tiles - fit.centreY) * fit.zoom
                guard let hit = basemap.tile(at: TileCoordinate(z: tileZoom, x: wrapped, y: ty), statistics: &statistics) else {
                    continue
                }
                found += 1
                scene.drawnSources.insert(hit.source)
                if hit.tile.image != nil {
                    placeImage(
                        hit.tile, tileAt: hit.coordinate, position: TileCoordinate(z: tileZoom, x: tx, y: ty),
                        source: hit.source, basemap: basemap, fit: fit, statistics: &statistics)
                    continue
                }
                // The position's square, and where the (maybe larger, overzoomed) tile lies.
                let square = TileClip(
                    minX: Float(originX), minY: Float(originY), maxX: Float(originX + tileSize), maxY: Float(originY + tileSize))
                let span = 1 << (tileZoom - hit.coordinate.z)
                let parentSize = tileSize * Double(span)
                let parentX = originX - Double(wrapped - hit.coordinate.x * span) * tileSize
                let parentY = originY - Double(ty - hit.coordinate.y * span) * tileSize
                scene.landSquares.append(square)
                scene.add(
                    hit.tile, origin: SIMD2(Float(parentX), Float(parentY)), size: Float(parentSize), clip: square,
                    picture: (Float(width), Float(height)), margin: margin)
            }
        }
        statistics.mapTiles = found
        statistics.mapCoverage = found == 0 ? .none : (found == positions ? .full : .partial)
        scene.joinLabelLines()
        return scene
    }
    /// Places raster tile `tile` (found at `tileAt`) for `position` (its `x` unwrapped). Where the
    /// tileset has sharper tiles than the position's zoom gives, for the picture's pixels (a tile
    /// of 256 pixels where 512 are drawn), its children are placed instead, two levels down at
    /// most; a child the tileset lacks is drawn from its parent's quarter.
    private func placeImage(
        _ tile: MapTile, tileAt: TileCoordinate, position: TileCoordinate, source: Int, basemap: Basemap,
        fit: PictureFit, statistics: inout RenderStatistics, depth: Int = 0
    ) {
        guard let image = tile.image else { return }
        let count = 1 << position.z
        let tiles = Double(count)
        func edgeX(_ x: Int, _ tiles: Double) -> Double { fit.pixelCentreX + (Double(x) / tiles - fit.centreX) * fit.zoom }
        func edgeY(_ y: Int, _ tiles: Double) -> Double { fit.pixelCentreY + (Double(y) / tiles - fit.centreY) * fit.zoom }
        let size = fit.zoom / tiles
        let wrapped = ((position.x % count) + count) % count
        let span = 1 << (position.z - tileAt.z)
        let placed = ImagePlacement(
            image: image,
            originX: edgeX(position.x, tiles) - Double(wrapped - tileAt.x * span) * size,
            originY: edgeY(position.y, tiles) - Double(position.y - tileAt.y * span) * size,
            size: size * Double(span),
            minX: edgeX(position.x, tiles), minY: edgeY(position.y, tiles),
            maxX: edgeX(position.x + 1, tiles), maxY: edgeY(position.y + 1, tiles))

        let sharper =
            depth < 2 && span == 1 && position.z < basemap.maxZoom(source: source)
            && Double(image.width) * 1.5 <= size
        guard sharper else {
            scene.images.append(placed)
            return
        }
        let childTiles = tiles * 2
        for j in 0..<2 {
            for i in 0..<2 {
                let child = TileCoordinate(z: position.z + 1, x: 2 * position.x + i, y: 2 * position.y + j)
                var square = placed
                square.minX = edgeX(child.x, childTiles)
                square.maxX = edgeX(child.x + 1, childTiles)
                square.minY = edgeY(child.y, childTiles)
                square.maxY = edgeY(child.y + 1, childTiles)
                guard square.maxX > 0, square.minX < Double(canvas.width), square.maxY > 0, square.minY < Double(canvas.height)
                else { continue }
                let name = TileCoordinate(z: child.z, x: 2 * wrapped + i, y: child.y)
                if let sharp = basemap.load(source: source, at: name, statistics: &statistics), sharp.image != nil {
                    placeImage(
                        sharp, tileAt: name, position: child, source: source, basemap: basemap, fit: fit,
                        statistics: &statistics, depth: depth + 1)
                } else {
                    scene.images.append(square)
                }
            }
        }
    }
}
