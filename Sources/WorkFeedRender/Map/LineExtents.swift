/// Where each line of a scene lies across the rows, so that a band of rows strokes only the lines
/// that reach it (see ``Renderer``'s map drawing).
struct LineExtents {
    /// Per ``MapFeatureKind/rawValue``, per part, its vertices' lowest and highest `y` in pixels.
    private var rows: [[(low: Float, high: Float)]]

    init(scene: MapScene) {
        rows = scene.groups.enumerated().map { kind, group in
            guard MapFeatureKind(rawValue: kind)?.area == nil else { return [] }
            return group.starts.indices.map { index in
                var low = Float.infinity
                var high = -Float.infinity
                for point in group.part(index) {
                    low = min(low, point.y)
                    high = max(high, point.y)
                }
                return (low, high)
            }
        }
    }

    /// The parts of `kind` with a vertex row within `reach` pixels of `band`, in order.
    func parts(_ kind: MapFeatureKind, within band: Range<Int>, reach: Float) -> [Int] {
        let top = Float(band.lowerBound) - reach - 1
        let bottom = Float(band.upperBound) + reach + 1
        return rows[kind.rawValue].indices.filter { index in
            let part = rows[kind.rawValue][index]
            return part.high >= top && part.low <= bottom
        }
    }
}
