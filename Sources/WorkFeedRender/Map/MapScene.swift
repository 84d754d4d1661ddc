import Foundation
import WorkFeedModel
import WorkFeedTiles
import WorkFeedStyle

/// A raster tile's picture placed in pixels: the whole tile's square at `origin` with side
/// `size`, of which the part inside `min...max` is drawn (a position's own square, or a quarter).
struct ImagePlacement {
    var image: TileImage
    var originX: Double
    var originY: Double
    var size: Double
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double
}

/// A picture's map features in pixels, one group per ``MapFeatureKind``, kept by the renderer
/// between pictures so that its arrays are reused.
struct MapScene {
    var groups = [MapTile.Group](repeating: MapTile.Group(), count: MapFeatureKind.count)
    var landSquares: [TileClip] = []
    var images: [ImagePlacement] = []
    var drawnSources: Set<Int> = []
    /// The names the tiles offer, in pixels: each point inside its own tile's square (a tile's
    /// buffer repeats its neighbours' names), each line cut to it.
    var labels: [TileLabel] = []
    /// The kinds of names the picture's style shows at its zoom; the others are not gathered.
    var shownLabels: Set<MapLabelKind> = []
    private var clipper = TileClip(minX: 0, minY: 0, maxX: 0, maxY: 0)
    private var placed: [SIMD2<Float>] = []

    mutating func reset() {
        for index in groups.indices {
            groups[index].points.removeAll(keepingCapacity: true)
            groups[index].starts.removeAll(keepingCapacity: true)
        }
        landSquares.removeAll(keepingCapacity: true)
        images.removeAll(keepingCapacity: true)
        drawnSources.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
    }

    /// Adds `tile`'s features, placed at `origin` with side `size` in pixels and cut to `clip`
    /// (and so to the picture).
    mutating func add(
        _ tile: MapTile, origin: SIMD2<Float>, size: Float, clip: TileClip, picture: (Float, Float), margin: Float
    ) {
        var square = clip
        // Nothing outside the picture is drawn: cutting to it, with a margin, saves the work.
        square.minX = max(square.minX, -margin)
        square.minY = max(square.minY, -margin)
        square.maxX = min(square.maxX, picture.0 + margin)
        square.maxY = min(square.maxY, picture.1 + margin)
        guard square.minX < square.maxX, square.minY < square.maxY else { return }
        addLabels(tile, origin: origin, size: size, clip: clip, picture: picture)
        clipper.minX = square.minX
        clipper.minY = square.minY
        clipper.maxX = square.maxX
        clipper.maxY = square.maxY
        for kind in MapFeatureKind.allCases {
            let source = tile.groups[kind.rawValue]
            guard !source.isEmpty else { continue }
            for index in source.starts.indices {
                placed.removeAll(keepingCapacity: true)
                var low = SIMD2<Float>(repeating: .infinity)
                var high = SIMD2<Float>(repeating: -.infinity)
                for point in source.part(index) {
                    let pixel = origin + point * size
                    placed.append(pixel)
                    low = pointwiseMin(low, pixel)
                    high = pointwiseMax(high, pixel)
                }
                // Parts wholly outside the square are skipped before any clipping work.
                guard high.x >= clipper.minX, low.x <= clipper.maxX, high.y >= clipper.minY, low.y <= clipper.maxY else {
                    continue
                }
                let inside = low.x >= clipper.minX && high.x <= clipper.maxX && low.y >= clipper.minY && high.y <= clipper.maxY
                if kind.isArea {
                    let ring = inside ? placed : clipper.clip(ring: placed)
                    guard ring.count >= 3 else { continue }
                    groups[kind.rawValue].starts.append(Int32(truncatingIfNeeded: groups[kind.rawValue].points.count))
                    groups[kind.rawValue].points.append(contentsOf: ring)
                } else if inside {
                    groups[kind.rawValue].starts.append(Int32(truncatingIfNeeded: groups[kind.rawValue].points.count))
                    groups[kind.rawValue].points.append(contentsOf: placed)
                } else {
                    addClippedLine(kind: kind)
                }
            }
        }
    }

    /// Adds `tile`'s names that belong to the square `clip`: points inside it and in the picture,
    /// and the longest piece of each line inside it.
    private mutating func addLabels(_ tile: MapTile, origin: SIMD2<Float>, size: Float, clip: TileClip, picture: (Float, Float)) {
        let own = TileClip(minX: clip.minX, minY: clip.minY, maxX: clip.maxX, maxY: clip.maxY)
        for label in tile.labels where labels.count < Self.maximumLabels && shownLabels.contains(label.kind) {
            var placedLabel = label
            if !label.isLine {
                let point = origin + label.points[0] * size
                guard point.x >= own.minX, point.x < own.maxX, point.y >= own.minY, point.y < own.maxY,
                    point.x >= 0, point.y >= 0, point.x < picture.0, point.y < picture.1
                else { continue }
                placedLabel.points = [point]
                labels.append(placedLabel)
                continue
            }
            var best: [SIMD2<Float>] = []
            var current: [SIMD2<Float>] = []
            var bestLength: Float = 0
            var currentLength: Float = 0
            func close() {
                if current.count >= 2, currentLength > bestLength {
                    best = current
                    bestLength = currentLength
                }
                current.removeAll(keepingCapacity: true)
                currentLength = 0
            }
            var previous = origin + label.points[0] * size
            for point in label.points.dropFirst() {
                let next = origin + point * size
                defer { previous = next }
                guard let (from, to) = own.clip(previous, next) else {
                    close()
                    continue
                }
                if current.last != from {
                    close()
                    current.append(from)
                }
                current.append(to)
                let d = to - from
                currentLength += (d * d).sum().squareRoot()
            }
            close()
            guard best.count >= 2 else { continue }
            placedLabel.points = best
            labels.append(placedLabel)
        }
    }

    /// Pieces of one name joined at most; more stay apart.
    static let maximumPiecesJoined = 64
    /// Names a picture considers at most: many times what a city's tiles offer, and a bound on the
    /// work whatever a tile holds.
    static let maximumLabels = 8192

    /// Joins the pieces of each named line that meet end to end: a street comes split at every
    /// junction and tile edge, and its name needs its whole length to find room.
    mutating func joinLabelLines() {
        var lines: [String: [Int]] = [:]
        for index in labels.indices where labels[index].isLine {
            let label = labels[index]
            lines["\(label.kind.rawValue)\u{1F}\(label.name)\u{1F}\(label.latin)", default: []].append(index)
        }
        guard lines.values.contains(where: { $0.count > 1 }) else { return }
        var removed = Set<Int>()
        func meets(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Bool {
            let d = a - b
            return (d * d).sum() <= 1
        }
        for key in lines.keys.sorted() {
            guard let members = lines[key], members.count > 1 else { continue }
            // Joining is quadratic in a name's pieces: a real street has tens in a picture, and a
            // tile with thousands of pieces of one name keeps the rest apart rather than stall.
            var pending = Array(members.prefix(Self.maximumPiecesJoined))
            while let first = pending.first {
                pending.removeFirst()
                var chain = labels[first].points
                var grew = true
                while grew {
                    grew = false
                    for (position, other) in pending.enumerated() {
                        let points = labels[other].points
                        guard let head = chain.first, let tail = chain.last, let start = points.first, let end = points.last else { continue }
                        if meets(tail, start) {
                            chain += points.dropFirst()
                        } else if meets(tail, end) {
                            chain += points.reversed().dropFirst()
                        } else if meets(head, end) {
                            chain = points + chain.dropFirst()
                        } else if meets(head, start) {
                            chain = points.reversed() + chain.dropFirst()
                        } else {
                            continue
                        }
                        removed.insert(other)
                        pending.remove(at: position)
                        grew = true
                        break
                    }
                }
                labels[first].points = chain
            }
        }
        guard !removed.isEmpty else { return }
        labels = labels.indices.filter { !removed.contains($0) }.map { labels[$0] }
    }

    /// Adds the pieces of the line in `placed` that lie inside the clip square, each as a line.
    private mutating func addClippedLine(kind: MapFeatureKind) {
        var open = false
        var index = 0
        while index + 1 < placed.count {
            let a = placed[index]
            let b = placed[index + 1]
            index += 1
            guard let (from, to) = clipper.clip(a, b) else {
                open = false
                continue
            }
            if !open || from != a {
                groups[kind.rawValue].starts.append(Int32(truncatingIfNeeded: groups[kind.rawValue].points.count))
                groups[kind.rawValue].points.append(from)
            }
            groups[kind.rawValue].points.append(to)
            open = to == b
        }
    }
}
