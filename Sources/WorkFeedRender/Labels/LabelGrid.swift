/// A box in pixels, edges included: what a name, a mark, the legend or the attribution takes.
struct LabelBox: Sendable, Hashable {
    var minX: Float
    var minY: Float
    var maxX: Float
    var maxY: Float

    /// The box grown by `margin` on every side.
    func expanded(by margin: Float) -> LabelBox {
        LabelBox(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    func intersects(_ other: LabelBox) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    /// A square of side `2 * half` around `centre`.
    static func around(_ centre: SIMD2<Float>, half: Float) -> LabelBox {
        LabelBox(minX: centre.x - half, minY: centre.y - half, maxX: centre.x + half, maxY: centre.y + half)
    }
}

/// Which parts of the picture are taken, in cells of a few pixels: by names placed so far, and by
/// what no name may cover (the route and its outline, the start and end marks, the legend, the
/// attribution).
///
/// A cell is taken when anything touches it, so two boxes that take no common cell do not
/// overlap: the grid errs on the side of room. The renderer keeps one and resets it per picture.
struct LabelGrid {
    private(set) var cell: Float = 2
    private(set) var width = 0
    private(set) var height = 0
    private var columns = 0
    private var rows = 0
    private var taken: [Bool] = []

    mutating func reset(width: Int, height: Int, cell: Float) {
        self.cell = max(cell, 1)
        self.width = width
        self.height = height
        columns = max(Int((Float(width) / self.cell).rounded(.up)), 1)
        rows = max(Int((Float(height) / self.cell).rounded(.up)), 1)
        taken.removeAll(keepingCapacity: true)
        taken.append(contentsOf: repeatElement(false, count: columns * rows))
    }

    /// The cells `box` touches, clamped to the grid; `nil` when it lies wholly outside.
    private func cells(_ box: LabelBox) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite else { return nil }
        let x0 = max(Int((box.minX / cell).rounded(.down)), 0)
        let y0 = max(Int((box.minY / cell).rounded(.down)), 0)
        let x1 = min(Int((min(box.maxX, 1e7) / cell).rounded(.down)), columns - 1)
        let y1 = min(Int((min(box.maxY, 1e7) / cell).rounded(.down)), rows - 1)
        guard x0 <= x1, y0 <= y1 else { return nil }
        return (x0...x1, y0...y1)
    }

    /// Whether `box` lies inside the picture, `inset` pixels from its edges, on no taken cell.
    func isFree(_ box: LabelBox, inset: Float = 0) -> Bool {
        guard box.minX >= inset, box.minY >= inset, box.maxX <= Float(width) - inset, box.maxY <= Float(height) - inset,
            let (xs, ys) = cells(box)
        else { return false }
        for y in ys {
            let base = y * columns
            for x in xs where taken[base + x] { return false }
        }
        return true
    }

    mutating func take(_ box: LabelBox) {
        guard let (xs, ys) = cells(box) else { return }
        for y in ys {
            let base = y * columns
            for x in xs { taken[base + x] = true }
        }
    }

    /// Takes every cell within `reach` pixels of the line through `vertices`.
    mutating func take(line vertices: ArraySlice<SIMD2<Float>>, reach: Float) {
        guard var previous = vertices.first else { return }
        // A cell is taken when its centre lies within reach plus half its diagonal of a segment.
        let slack = reach + cell * 0.7072
        for vertex in vertices.dropFirst().isEmpty ? vertices : vertices.dropFirst() {
            let a = previous
            let b = vertex
            previous = vertex
            let box = LabelBox(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y)).expanded(by: slack)
            guard let (xs, ys) = cells(box) else { continue }
            let d = b - a
            let lengthSquared = (d * d).sum()
            for y in ys {
                let base = y * columns
                let cy = (Float(y) + 0.5) * cell
                for x in xs where !taken[base + x] {
                    let p = SIMD2((Float(x) + 0.5) * cell, cy)
                    let t = lengthSquared > 0 ? min(max(((p - a) * d).sum() / lengthSquared, 0), 1) : 0
                    let q = a + d * t - p
                    if (q * q).sum() <= slack * slack { taken[base + x] = true }
                }
            }
        }
    }
}
