import WorkFeedTiles

/// One tile, made ready once to be placed in any picture. A vector tile is classified into the
/// features the map draws: per ``MapFeatureKind``, its polygon rings or lines in tile units (0...1
/// across the tile; the tile's buffer lies outside that square). A raster tile is its decoded
/// ``TileImage``, drawn as the map's ground.
///
/// Classifying and converting once per tile, not once per picture, keeps string work out of the
/// drawing path: the pictures after the first in an area only transform and draw.
final class MapTile: CachedTile {
    struct Group: Sendable {
        /// Every vertex of every part, in tile units.
        var points: [SIMD2<Float>] = []
        /// Where each part (a ring or a line) starts in `points`; a part ends where the next starts.
        var starts: [Int32] = []

        var isEmpty: Bool { starts.isEmpty }

        /// The vertices of part `index`.
        func part(_ index: Int) -> ArraySlice<SIMD2<Float>> {
            let start = Int(starts[index])
            let end = index + 1 < starts.count ? Int(starts[index + 1]) : points.count
            return points[start..<end]
        }
    }

    /// Indexed by ``MapFeatureKind/rawValue``; empty groups for a raster tile.
    let groups: [Group]
    /// The names the tile offers: places, streets, water, parks, peaks.
    let labels: [TileLabel]
    /// Name fields that could not be a name (not a string, too long, control characters).
    let brokenNames: Int
    /// A raster tile's picture; `nil` for a vector tile.
    let image: TileImage?
    /// Features seen and drawn, for statistics.
    let featureCount: Int
    /// About how much memory the tile holds, for the tile cache's budget.
    let estimatedBytes: Int

    init(vectorTile: VectorTile) {
        var groups = [Group](repeating: Group(), count: MapFeatureKind.count)
        var featureCount = 0
        var labels: [TileLabel] = []
        var brokenNames = 0
        for layer in vectorTile.layers where layer.extent > 0 {
            guard let reader = TileSchema.LabelReader(layer: layer) else { continue }
            let unit = 1 / Float(layer.extent)
            for feature in layer.features {
                labels.append(contentsOf: reader.labels(of: feature, unit: unit, broken: &brokenNames))
            }
        }
        for layer in vectorTile.layers {
            guard let classifier = TileSchema.LayerClassifier(layer: layer), layer.extent > 0 else { continue }
            let unit = 1 / Float(layer.extent)
            for feature in layer.features {
                guard let kind = classifier.kind(of: feature) else { continue }
                let minimum = kind.isArea ? 3 : 2
                var partIndex = 0
                var added = false
                while partIndex < feature.parts.count {
                    let start = Int(feature.parts[partIndex])
                    let end = partIndex + 1 < feature.parts.count ? Int(feature.parts[partIndex + 1]) : feature.points.count
                    partIndex += 1
                    guard start >= 0, end <= feature.points.count, end - start >= minimum else { continue }
                    groups[kind.rawValue].starts.append(Int32(truncatingIfNeeded: groups[kind.rawValue].points.count))
                    for point in feature.points[start..<end] {
                        groups[kind.rawValue].points.append(SIMD2(Float(point.x) * unit, Float(point.y) * unit))
                    }
                    added = true
                }
                if added { featureCount += 1 }
            }
        }
        self.groups = groups
        self.labels = labels
        self.brokenNames = brokenNames
        self.featureCount = featureCount
        image = nil
        estimatedBytes =
            256 + groups.reduce(0) { $0 + $1.points.count * 8 + $1.starts.count * 4 + 64 }
            + labels.reduce(0) { $0 + 96 + $1.name.utf8.count + $1.latin.utf8.count + $1.points.count * 8 }
    }

    init(image: TileImage) {
        groups = [Group](repeating: Group(), count: MapFeatureKind.count)
        labels = []
        brokenNames = 0
        featureCount = 0
        self.image = image
        estimatedBytes = 256 + image.estimatedBytes
    }
}
