/// Exact anti-aliased coverage of filled polygons, by accumulating each edge's signed area
/// (the method of stb_truetype and font-rs).
///
/// Every edge adds, to the cells it crosses, how much of each pixel lies to its right, with the
/// sign of its direction; a running sum along a row then gives each pixel's winding coverage.
/// Because the sums of all polygons of one layer go into one buffer before anything is painted,
/// two polygons that share an edge (the same area cut at a tile edge, two tiles' land squares)
/// cancel exactly there: no seam, no doubled edge. Coverage is `min(|sum|, 1)`, so overlapping
/// polygons of one layer paint once and a hole (opposite winding) stays empty.
final class AreaMask {
    private(set) var width = 0
    private(set) var height = 0
    /// `width + 2` cells a row: edges right of the picture land in the two spare cells.
    private var stride = 0
    private var cells = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// Per row, the first and last cell written since the last paint; `Int.max`/`Int.min` if none.
    /// (Buffers rather than arrays: a class's array mutated in the edge loop paid an exclusivity
    /// check and a uniqueness check at every row.)
    private var rowMin = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var rowMax = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var firstRow = Int.max
    private var lastRow = Int.min

    init() {}

    deinit {
        cells.deallocate()
        rowMin.deallocate()
        rowMax.deallocate()
    }

    var isEmpty: Bool { firstRow > lastRow }

    /// Sizes the mask for a `width` x `height` picture, empty.
    func prepare(width: Int, height: Int) {
        reset()
        let stride = width + 2
        if cells.count < stride * height {
            cells.deallocate()
            cells = .allocate(capacity: stride * height)
            cells.initialize(repeating: 0)
        }
        if rowMin.count < height {
            rowMin.deallocate()
            rowMax.deallocate()
            rowMin = .allocate(capacity: height)
            rowMax = .allocate(capacity: height)
            rowMin.initialize(repeating: .max)
            rowMax.initialize(repeating: .min)
        }
        self.width = width
        self.height = height
        self.stride = stride
    }

    /// Adds a closed ring (the last vertex joins the first).
    func addRing(_ points: ArraySlice<SIMD2<Float>>) {
        guard points.count >= 3, var previous = points.last else { return }
        for point in points {
            addEdge(previous, point)
            previous = point
        }
    }

    /// Adds an axis-aligned rectangle, wound like an exterior ring.
    func addRectangle(minX: Float, minY: Float, maxX: Float, maxY: Float) {
        addEdge(SIMD2(minX, minY), SIMD2(maxX, minY))
        addEdge(SIMD2(maxX, minY), SIMD2(maxX, maxY))
        addEdge(SIMD2(maxX, maxY), SIMD2(minX, maxY))
        addEdge(SIMD2(minX, maxY), SIMD2(minX, minY))
    }

    /// Adds one directed edge in pixel coordinates. Parts above or below the picture add
    /// nothing; parts left or right of it act as if on the picture's border.
    func addEdge(_ a: SIMD2<Float>, _ b: SIMD2<Float>) {
        guard a.y != b.y, a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return }
        let direction: Float = a.y < b.y ? 1 : -1
        let (p0, p1) = a.y < b.y ? (a, b) : (b, a)
        let limit = Float(height)
        guard p1.y > 0, p0.y < limit else { return }
        let dxdy = (p1.x - p0.x) / (p1.y - p0.y)
        let top = max(p0.y, 0)
        let bottom = min(p1.y, limit)
        var x = p0.x + (top - p0.y) * dxdy
        let right = Float(width)
        let first = Int(top)
        let last = min(Int(bottom.rounded(.up)), height) - 1
        guard first <= last else { return }
        firstRow = min(firstRow, first)
        lastRow = max(lastRow, last)
        let base = cells.baseAddress.unsafelyUnwrapped
        for y in first...last {
            let dy = min(Float(y + 1), bottom) - max(Float(y), top)
            let xNext = x + dxdy * dy
            let d = dy * direction
            var x0 = min(x, xNext)
            var x1 = max(x, xNext)
            x0 = min(max(x0, 0), right)
            x1 = min(max(x1, 0), right)
            let row = base + y * stride
            let x0Floor = x0.rounded(.down)
            let x0i = Int(x0Floor)
            let x1Ceil = x1.rounded(.up)
            let x1i = Int(x1Ceil)
            if x1i <= x0i + 1 {
                let middle = 0.5 * (x0 + x1) - x0Floor
                row[x0i] += d - d * middle
                row[x0i + 1] += d * middle
                note(y, x0i, x0i + 1)
            } else {
                let s = 1 / (x1 - x0)
                let x0f = x0 - x0Floor
                let a0 = 0.5 * s * (1 - x0f) * (1 - x0f)
                let x1f = x1 - x1Ceil + 1
                let am = 0.5 * s * x1f * x1f
                row[x0i] += d * a0
                if x1i == x0i + 2 {
                    row[x0i + 1] += d * (1 - a0 - am)
                } else {
                    let a1 = s * (1.5 - x0f)
                    row[x0i + 1] += d * (a1 - a0)
                    var xi = x0i + 2
                    while xi < x1i - 1 {
                        row[xi] += d * s
                        xi += 1
                    }
                    let a2 = a1 + Float(x1i - x0i - 3) * s
                    row[x1i - 1] += d * (1 - a2 - am)
                }
                row[x1i] += d * am
                note(y, x0i, x1i)
            }
            x = xNext
        }
    }

    @inline(__always)
    private func note(_ y: Int, _ low: Int, _ high: Int) {
        if low < rowMin[y] { rowMin[y] = low }
        if high > rowMax[y] { rowMax[y] = high }
    }

    /// Paints the accumulated coverage onto `canvas` with `paint`, and empties the mask.
    ///
    /// Past the last cell an edge touched in a row, the running sum no longer changes, so the rest
    /// of the row is one colour: an opaque area inside a large polygon is filled without blending.
    func paint(onto canvas: Canvas, _ paint: Paint) {
        guard !isEmpty else { return }
        let base = cells.baseAddress.unsafelyUnwrapped
        let opaque = paint.opacity >= 1
        let solid = (UInt8(paint.red + 0.5), UInt8(paint.green + 0.5), UInt8(paint.blue + 0.5))
        for y in firstRow...lastRow {
            let low = rowMin[y]
            guard low != .max else { continue }
            let high = min(rowMax[y], width + 1)
            rowMin[y] = .max
            rowMax[y] = .min
            let row = base + y * stride
            let pixels = canvas.row(y)
            var sum: Float = 0
            var x = low
            while x <= high {
                // Between a polygon's edges the cells are zero and the coverage does not change:
                // eight such pixels at a time take one test, and are skipped or filled at once.
                if x &+ 7 <= high, UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<Float>.self) == .zero {
                    var end = x &+ 8
                    while end &+ 7 <= high, UnsafeRawPointer(row + end).loadUnaligned(as: SIMD8<Float>.self) == .zero { end &+= 8 }
                    Self.fill(pixels, x..<min(end, width), paint, coverage: min(abs(sum), 1), solid: opaque ? solid : nil)
                    x = end
                    continue
                }
                sum += row[x]
                row[x] = 0
                if x < width {
                    let coverage = min(abs(sum), 1)
                    if coverage > 0.002 {
                        if opaque && coverage >= 0.998 {
                            let p = pixels + 3 * x
                            (p[0], p[1], p[2]) = solid
                        } else {
                            Canvas.blend(pixels, x, paint, coverage)
                        }
                    }
                }
                x += 1
            }
            guard x < width else { continue }
            Self.fill(pixels, x..<width, paint, coverage: min(abs(sum), 1), solid: opaque ? solid : nil)
        }
        firstRow = .max
        lastRow = .min
    }

    /// Lays `paint` at one `coverage` over `columns` of a row: nothing when it is nearly none,
    /// `solid` (an opaque paint's colour) when it is nearly whole, else a blend per pixel.
    @inline(__always)
    private static func fill(
        _ pixels: UnsafeMutablePointer<UInt8>, _ columns: Range<Int>, _ paint: Paint, coverage: Float, solid: (UInt8, UInt8, UInt8)?
    ) {
        guard coverage > 0.002, !columns.isEmpty else { return }
        if let solid, coverage >= 0.998 {
            Canvas.fill(pixels, columns, solid)
        } else {
            for column in columns { Canvas.blend(pixels, column, paint, coverage) }
        }
    }

    /// Forgets anything accumulated and not painted.
    func reset() {
        guard !isEmpty, let base = cells.baseAddress else {
            firstRow = .max
            lastRow = .min
            return
        }
        for y in firstRow...lastRow where rowMin[y] != .max {
            let low = rowMin[y]
            let high = min(rowMax[y], stride - 1)
            (base + y * stride + low).update(repeating: 0, count: high - low + 1)
            rowMin[y] = .max
            rowMax[y] = .min
        }
        firstRow = .max
        lastRow = .min
    }
}
