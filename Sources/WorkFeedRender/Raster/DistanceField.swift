/// Per pixel, the squared distance from its centre to the nearest stroked segment.
///
/// Stroking by distance gives exact anti-aliased coverage with round caps and joins for free: a
/// pixel's coverage is `clamp(halfWidth + 0.5 - distance, 0, 1)`, whichever segments it is near,
/// so joins never darken twice and there are no seams between segments. Outside a render every
/// value is `+inf`.
///
/// The field remembers which blocks of eight pixels of each row a stamp wrote (``marks``),
/// and a stroke reads, and ``clear()`` resets, only those: a map's road class spread over the
/// whole picture costs the pixels near its lines, not its bounding rectangle (at @3x a class's
/// rectangle is most of 2.4 million pixels, read once to stroke and written once to clear).
final class DistanceField {
    private(set) var width = 0
    private(set) var height = 0
    private var storage = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// What has been stamped since the last ``clear()``: the rows, and the columns' bounds.
    private(set) var touched = PixelRect()
    /// The blocks of eight pixels a stamp may have written since the last ``clear()``; every pixel
    /// of an unmarked block is `+inf`.
    private(set) var marks = BlockMarks()
    /// The rows stamps write; the whole picture after ``prepare(width:height:)``. A caller that
    /// draws a band of rows at a time (the map's lines) stamps each band in turn.
    var band = 0..<0

    init() {}

    deinit { storage.deallocate() }

    /// Makes room for a `width` x `height` picture; memory is only reallocated when it grows.
    func prepare(width: Int, height: Int) {
        clear()
        if storage.count < width * height {
            storage.deallocate()
            storage = .allocate(capacity: width * height)
            storage.initialize(repeating: .infinity)
        }
        marks.prepare(width: width, height: height)
        self.width = width
        self.height = height
        band = 0..<height
    }

    /// Row `y` of the field.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<Float> {
        // prepare() sized storage to width * height, and callers stay within touched rows.
        storage.baseAddress.unsafelyUnwrapped + y * width
    }

    /// Resets what was stamped to `+inf`: the marked blocks only.
    func clear() {
        guard !touched.isEmpty else { return }
        let far = SIMD8<Float>(repeating: .infinity)
        for y in touched.minY...touched.maxY {
            let words = marks.row(y)
            let line = row(y)
            for word in 0..<marks.wordsPerRow {
                var bits = words[word]
                guard bits != 0 else { continue }
                words[word] = 0
                while bits != 0 {
                    let x = (word &<< 6 | bits.trailingZeroBitCount) &<< 3
                    bits &= bits &- 1
                    if x &+ 8 <= width {
                        UnsafeMutableRawPointer(line + x).storeBytes(of: far, as: SIMD8<Float>.self)
                    } else {
                        (line + x).update(repeating: .infinity, count: width - x)
                    }
                }
            }
        }
        touched = PixelRect()
    }

    /// Stamps every segment of `vertices` for pixels within `reach` of them.
    func stamp(_ vertices: ArraySlice<SIMD2<Float>>, reach: Float, cut: ButtCut? = nil) {
        var index = vertices.startIndex
        while index + 1 < vertices.endIndex {
            stampSegment(vertices[index], vertices[index + 1], reach: reach, cut: cut)
            index += 1
        }
    }

    /// Writes `min(existing, squared distance to segment ab)` for every pixel whose centre is
    /// within `reach` of the segment.
    ///
    /// Rows are limited to the strip of width `2 * reach` around the segment's line, so a
    /// diagonal segment costs its own area rather than its bounding box's.
    func stampSegment(_ a: SIMD2<Float>, _ b: SIMD2<Float>, reach: Float, cut: ButtCut? = nil) {
        var box = PixelRect.around(
            minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y),
            reach: reach, width: width, height: height)
        box.minY = max(box.minY, band.lowerBound)
        box.maxY = min(box.maxY, band.upperBound - 1)
        guard !box.isEmpty else { return }
        // Whole blocks of eight may run past the box (see stampRow); they stay inside the row.
        touched.formUnion(minX: box.minX, minY: box.minY, maxX: min(box.maxX + 7, width - 1), maxY: box.maxY)

        let d = b - a
        let lengthSquared = (d * d).sum()
        let inverse: Float = lengthSquared > 0 ? 1 / lengthSquared : 0
        let length = lengthSquared.squareRoot()
        let steep = abs(d.y) > 1e-3
        let slope = steep ? d.x / d.y : 0
        let halfStrip = steep ? reach * length / abs(d.y) : 0
        var cutHere = cut
        if let c = cut {
            // The box's point nearest to the cut's origin decides whether the cut can matter here.
            let lower = SIMD2<Float>(Float(box.minX), Float(box.minY))
            let upper = SIMD2<Float>(Float(box.maxX + 1), Float(box.maxY + 1))
            let offset: SIMD2<Float> = c.origin.clamped(lowerBound: lower, upperBound: upper) - c.origin
            if (offset * offset).sum() > c.radiusSquared { cutHere = nil }
        }

        for y in box.minY...box.maxY {
            let py = Float(y) + 0.5 - a.y
            var lo = box.minX
            var hi = box.maxX
            if steep {
                let centre = a.x + py * slope
                lo = max(lo, ceilIndex(centre - halfStrip - 0.5, width))
                hi = min(hi, floorIndex(centre + halfStrip - 0.5, width))
                if lo > hi { continue }
            }
            let line = row(y)
            if let c = cutHere {
                stampRowCut(line, lo, hi, py: py, a: a, d: d, inverse: inverse, cut: c)
                marks.mark(y, lo, hi)
            } else {
                Self.stampRow(line, lo, hi, last: width - 1, py: py, ax: a.x, d: d, inverse: inverse)
                // The last block of eight may run up to seven pixels past hi (stampRow).
                marks.mark(y, lo, min(hi &+ 7, width - 1))
            }
        }
    }

    /// The hot loop: eight pixels at a time (two SSE registers on baseline x86-64).
    ///
    /// The last block may run past `hi`, up to the row's `last` pixel: any pixel may receive its
    /// exact distance to any segment without changing the minimum's meaning, and whole blocks avoid
    /// a scalar tail on the short rows that short segments have.
    @inline(__always)
    private static func stampRow(
        _ line: UnsafeMutablePointer<Float>, _ lo: Int, _ hi: Int, last: Int, py: Float, ax: Float, d: SIMD2<Float>,
        inverse: Float
    ) {
        let kx = d.x * inverse
        let tRow = py * d.y * inverse
        let eyRow = py
        var x = lo
        do {
            let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
            let zero = SIMD8<Float>(repeating: 0)
            let one = SIMD8<Float>(repeating: 1)
            while x <= hi, x &+ 7 <= last {
                let px = SIMD8(repeating: Float(x) + 0.5 - ax) + lanes
                var t = px * kx + tRow
                t = t.replacing(with: zero, where: t .< zero)
                t = t.replacing(with: one, where: t .> one)
                let ex = px - t * d.x
                let ey = eyRow - t * d.y
                let squared = ex * ex + ey * ey
                let slot = UnsafeMutableRawPointer(line + x)
                let old = slot.loadUnaligned(as: SIMD8<Float>.self)
                slot.storeBytes(of: old.replacing(with: squared, where: squared .< old), as: SIMD8<Float>.self)
                x &+= 8
            }
        }
        while x <= hi {
            let px = Float(x) + 0.5 - ax
            var t = px * kx + tRow
            t = t < 0 ? 0 : (t > 1 ? 1 : t)
            let ex = px - t * d.x
            let ey = eyRow - t * d.y
            let squared = ex * ex + ey * ey
            if squared < line[x] { line[x] = squared }
            x &+= 1
        }
    }

    /// The row loop with a square cut near a piece's start (see ``ButtCut``).
    @inline(never)
    private func stampRowCut(
        _ line: UnsafeMutablePointer<Float>, _ lo: Int, _ hi: Int, py: Float, a: SIMD2<Float>, d: SIMD2<Float>,
        inverse: Float, cut: ButtCut
    ) {
        let y = py + a.y
        for x in lo...hi {
            let px = Float(x) + 0.5 - a.x
            let t = min(max((px * d.x + py * d.y) * inverse, 0), 1)
            let ex = px - t * d.x
            let ey = py - t * d.y
            var distance = ex * ex + ey * ey
            let fromOrigin = SIMD2(Float(x) + 0.5, y) - cut.origin
            let along = (fromOrigin * cut.direction).sum()
            if (fromOrigin * fromOrigin).sum() < cut.radiusSquared, along < cut.halfWidth {
                let behind = cut.halfWidth - along
                distance = max(distance, behind * behind)
            }
            line[x] = min(line[x], distance)
        }
    }
}

/// `ceil(value)` as an index clamped to `-1...limit`, without a libm call.
@inline(__always)
func ceilIndex(_ value: Float, _ limit: Int) -> Int {
    let clamped = min(max(value, -1), Float(limit))
    let truncated = Int(clamped)
    return Float(truncated) < clamped ? truncated + 1 : truncated
}

/// `floor(value)` as an index clamped to `-1...limit`, without a libm call.
@inline(__always)
func floorIndex(_ value: Float, _ limit: Int) -> Int {
    let clamped = min(max(value, -1), Float(limit))
    let truncated = Int(clamped)
    return Float(truncated) > clamped ? truncated - 1 : truncated
}
