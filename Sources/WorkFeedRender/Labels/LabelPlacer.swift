import Foundation
import WorkFeedModel
import WorkFeedStyle

/// A name placed on the picture: its boxes (what it takes, without the spacing kept around it)
/// and how to draw it.
struct PlacedLabel {
    enum Drawing {
        /// Upright text with the top-left corner of its box at (`left`, `top`).
        case upright(TextLayout, left: Int, top: Int)
        /// Glyphs along a line, each with its pen origin in pixels and its angle in whole degrees
        /// clockwise.
        case along([AlongGlyph], font: FontFace, pixelSize: Int)
    }

    var kind: MapLabelKind
    var text: String
    /// The boxes the text's ink and halo lie in: one for upright text, one per glyph along a line.
    var boxes: [LabelBox]
    var drawing: Drawing
}

/// One glyph of a name along a line.
struct AlongGlyph {
    var index: UInt32
    var origin: SIMD2<Float>
    var angle: Int
}

/// Places a picture's names the way MapLibre's symbol placement does, simplified: candidates in
/// order of importance (kind, then the tile's rank), each placed where it overlaps nothing placed
/// before it and nothing reserved (the route, its marks, the legend, the attribution), or left out.
///
/// - Places, peaks, water and parks: upright, centred on their point, or just above or below it.
/// - Streets, paths and rivers: glyph by glyph along the line, upright (read left to right),
///   never across a bend sharper than ``maximumBend`` between letters or ``maximumTurn`` over the
///   whole name; a street is named once per picture unless it is long enough to be named again
///   ``repeatDistance`` points further on.
///
/// Deterministic: candidates are sorted by kind, rank, text and position, so the same tiles and
/// picture always give the same names in the same places.
struct LabelPlacer {
    /// Largest turn between two neighbouring letters along a line, in radians (25°).
    static let maximumBend: Float = 25 * .pi / 180
    /// Largest turn over a whole name along a line, in radians (50°).
    static let maximumTurn: Float = 50 * .pi / 180
    /// Points between two names of the same street.
    static let repeatDistance: Float = 300
    /// Points kept free around each name, so names do not crowd.
    static let spacing: Float = 3
    /// Points of picture each name needs: a 512-point square holds at most about 20 names,
    /// which is what a MapKit snapshot of a city shows at that size.
    static let areaPerLabel: Float = 115 * 115

    var grid = LabelGrid()
    private(set) var placed: [PlacedLabel] = []
    private var anchors: [String: [SIMD2<Float>]] = [:]

    mutating func reset(width: Int, height: Int, scale: Int) {
        grid.reset(width: width, height: height, cell: Float(2 * scale))
        placed.removeAll(keepingCapacity: true)
        anchors.removeAll(keepingCapacity: true)
    }

    /// Places the names of `candidates` (points in pixels) that the style shows at `zoom`.
    mutating func place(
        _ candidates: [TileLabel], style: MapLabelStyle, zoom: Double, scale: Int, fonts: FontSet
    ) {
        let scaleFactor = Float(scale)
        let halo = Float(Self.haloRadius(style: style, scale: scale))
        let spacing = Self.spacing * scaleFactor
        let pictureArea = Float(grid.width * grid.height) / (scaleFactor * scaleFactor)
        let limit = max(Int(pictureArea / Self.areaPerLabel), 3)
        let kindOrder = Dictionary(uniqueKeysWithValues: MapLabelKind.allCases.enumerated().map { ($1, $0) })

        // Each shown candidate with its kind's order and, for lines, its length in pixels; a line
        // too short for even a narrow name of its length is dropped before any shaping.
        var shown: [(label: TileLabel, order: Int, length: Float)] = []
        for candidate in candidates {
            let kindStyle = style[candidate.kind]
            guard kindStyle.show, kindStyle.size > 0, (kindStyle.minZoom...kindStyle.maxZoom).contains(zoom) else { continue }
            let length = candidate.isLine ? Self.length(candidate.points) : 0
            if candidate.isLine {
                let narrowest = Float(kindStyle.size) * scaleFactor * 0.3 * Float(min(candidate.preferred.count, 40))
                guard length >= narrowest else { continue }
            }
            shown.append((candidate, kindOrder[candidate.kind] ?? 0, length))
        }
        shown.sort { a, b in
            if a.order != b.order { return a.order < b.order }
            if a.label.rank != b.label.rank { return a.label.rank < b.label.rank }
            // Longer lines first: a street's name goes on its longest stretch in the picture.
            if a.length != b.length { return a.length > b.length }
            if a.label.preferred != b.label.preferred { return a.label.preferred < b.label.preferred }
            let (pa, pb) = (a.label.points[0], b.label.points[0])
            return pa.x != pb.x ? pa.x < pb.x : pa.y < pb.y
        }

        for (candidate, _, _) in shown {
            guard placed.count < limit else { break }
            guard let (font, text) = fonts.resolve(name: candidate.name, latin: candidate.latin) else { continue }
            let key = "\(candidate.kind.rawValue)\u{1F}\(text)"
            let previous = anchors[key] ?? []
            let kindStyle = style[candidate.kind]
            let pixelSize = max(Int((kindStyle.size * Double(scale)).rounded()), 1)
            let label: PlacedLabel?
            if candidate.isLine {
                let repeatDistance = Self.repeatDistance * scaleFactor
                label = placeAlong(
                    candidate.points, text: text, kind: candidate.kind, font: font, pixelSize: pixelSize, halo: halo,
                    spacing: spacing, avoiding: previous, repeatDistance: repeatDistance)
            } else {
                guard previous.isEmpty else { continue }
                label = placeUpright(
                    at: candidate.points[0], text: text, kind: candidate.kind, font: font, pixelSize: pixelSize, halo: halo,
                    spacing: spacing)
            }
            guard let label else { continue }
            placed.append(label)
            anchors[key, default: []].append(Self.centre(of: label.boxes))
        }
    }

    /// The halo's radius in whole pixels at `scale`.
    static func haloRadius(style: MapLabelStyle, scale: Int) -> Int {
        min(max(Int((style.haloWidth * Double(scale)).rounded()), 0), Canvas.maximumHaloRadius)
    }

    private mutating func placeUpright(
        at anchor: SIMD2<Float>, text: String, kind: MapLabelKind, font: FontFace, pixelSize: Int, halo: Float, spacing: Float
    ) -> PlacedLabel? {
        let layout = font.layout(text, pixelSize: pixelSize)
        let width = Float(layout.metrics.width)
        let height = Float(layout.metrics.height)
        guard width > 0, height > 0 else { return nil }
        // Places sit on their point; the rest may move just above or below it.
        let offsets: [Float] = Self.isPlace(kind) ? [0] : [0, -0.9 * height, 0.9 * height]
        for offset in offsets {
            let left = (anchor.x - width / 2).rounded()
            let top = (anchor.y + offset - height / 2).rounded()
            let box = LabelBox(minX: left - halo, minY: top - halo, maxX: left + width + halo, maxY: top + height + halo)
            guard grid.isFree(box.expanded(by: spacing)) else { continue }
            grid.take(box.expanded(by: spacing))
            return PlacedLabel(kind: kind, text: text, boxes: [box], drawing: .upright(layout, left: Int(left), top: Int(top)))
        }
        return nil
    }

    private mutating func placeAlong(
        _ line: [SIMD2<Float>], text: String, kind: MapLabelKind, font: FontFace, pixelSize: Int, halo: Float, spacing: Float,
        avoiding previous: [SIMD2<Float>], repeatDistance: Float
    ) -> PlacedLabel? {
        guard let run = font.shapedRun(text, pixelSize: pixelSize) else { return nil }
        let length = Float(run.width) / 64
        let ascent = Float(run.ascent) / 64
        let descent = Float(run.descent) / 64
        let half = (ascent + descent) / 2 + halo
        var distances: [Float] = [0]
        distances.reserveCapacity(line.count)
        for index in line.indices.dropFirst() {
            let d = line[index] - line[index - 1]
            distances.append(distances[distances.count - 1] + (d * d).sum().squareRoot())
        }
        let total = distances[distances.count - 1]
        let margin = length / 2 + spacing
        guard length > 0, total >= 2 * margin else { return nil }

        // From the middle of the line outwards, in steps of half the name.
        let step = max(length / 2, 8)
        var centres: [Float] = [total / 2]
        var k: Float = 1
        while centres.count < 13 {
            let before = total / 2 - k * step
            let after = total / 2 + k * step
            guard before >= margin || after <= total - margin else { break }
            if before >= margin { centres.append(before) }
            if after <= total - margin { centres.append(after) }
            k += 1
        }
        candidates: for centre in centres {
            guard let anchor = Self.point(on: line, distances: distances, at: centre)?.point else { continue }
            for other in previous {
                let d = other - anchor
                if (d * d).sum() < repeatDistance * repeatDistance { return nil }
            }
            // Read left to right: walk the line backwards when it runs leftwards here.
            guard let start = Self.point(on: line, distances: distances, at: centre - length / 2),
                let end = Self.point(on: line, distances: distances, at: centre + length / 2)
            else { continue }
            let forward = end.point.x >= start.point.x
            var glyphs: [AlongGlyph] = []
            var boxes: [LabelBox] = []
            var previousAngle: Float?
            var lowest = Float.infinity
            var highest = -Float.infinity
            for glyph in run.glyphs {
                let along = (Float(glyph.x) + Float(glyph.advance) / 2) / 64
                let at = forward ? centre - length / 2 + along : centre + length / 2 - along
                guard var sample = Self.point(on: line, distances: distances, at: at) else { continue candidates }
                if !forward { sample.angle += sample.angle > 0 ? -.pi : .pi }
                if let previousAngle {
                    var turn = sample.angle - previousAngle
                    if turn > .pi { turn -= 2 * .pi }
                    if turn < -.pi { turn += 2 * .pi }
                    guard abs(turn) <= Self.maximumBend else { continue candidates }
                    sample.angle = previousAngle + turn
                }
                previousAngle = sample.angle
                lowest = min(lowest, sample.angle)
                highest = max(highest, sample.angle)
                guard highest - lowest <= Self.maximumTurn else { continue candidates }
                let direction = SIMD2(cos(sample.angle), sin(sample.angle))
                let down = SIMD2(-direction.y, direction.x)
                // The text's middle on the line: the baseline lies half the ascent less the
                // descent below it.
                let origin =
                    sample.point - direction * (Float(glyph.advance) / 128) + down * ((ascent - descent) / 2 - Float(glyph.y) / 64)
                let degrees = Int((sample.angle * 180 / .pi).rounded())
                glyphs.append(AlongGlyph(index: glyph.index, origin: origin, angle: degrees))
                let box = LabelBox.around(sample.point, half: max(half, Float(glyph.advance) / 128 + halo))
                guard grid.isFree(box.expanded(by: spacing)) else { continue candidates }
                boxes.append(box)
            }
            guard !glyphs.isEmpty else { continue }
            for box in boxes { grid.take(box.expanded(by: spacing)) }
            return PlacedLabel(kind: kind, text: text, boxes: boxes, drawing: .along(glyphs, font: font, pixelSize: run.pixelSize))
        }
        return nil
    }

    /// The point `distance` along `line` and the direction of the segment it lies on (radians,
    /// clockwise from east on the screen); `nil` outside the line.
    static func point(on line: [SIMD2<Float>], distances: [Float], at distance: Float) -> (point: SIMD2<Float>, angle: Float)? {
        guard line.count >= 2, distance >= 0, distance <= distances[distances.count - 1] else { return nil }
        // The segment holding `distance`: binary search over the cumulative lengths.
        var low = 0
        var high = distances.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if distances[middle] <= distance { low = middle } else { high = middle }
        }
        // A zero-length segment has no direction: take the next one that has.
        var a = line[low]
        var b = line[high]
        var t = distances[high] > distances[low] ? (distance - distances[low]) / (distances[high] - distances[low]) : 0
        if a == b {
            var next = high + 1
            while next < line.count, line[next] == a { next += 1 }
            guard next < line.count else { return nil }
            b = line[next]
            t = 0
            a = line[low]
        }
        let d = b - a
        return (a + d * t, atan2(d.y, d.x))
    }

    static func length(_ points: [SIMD2<Float>]) -> Float {
        var total: Float = 0
        for index in points.indices.dropFirst() {
            let d = points[index] - points[index - 1]
            total += (d * d).sum().squareRoot()
        }
        return total
    }

    static func centre(of boxes: [LabelBox]) -> SIMD2<Float> {
        guard !boxes.isEmpty else { return .zero }
        var sum = SIMD2<Float>.zero
        for box in boxes { sum += SIMD2((box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2) }
        return sum / Float(boxes.count)
    }

    static func isPlace(_ kind: MapLabelKind) -> Bool {
        switch kind {
        case .city, .town, .village, .suburb, .neighbourhood, .hamlet: true
        case .majorRoad, .peak, .river, .water, .minorRoad, .park, .path: false
        }
    }
}
