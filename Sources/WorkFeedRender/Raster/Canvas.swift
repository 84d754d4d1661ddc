import WorkFeedModel
import WorkFeedStyle

/// The picture being drawn: opaque 8-bit RGB rows, the layout libpng encodes directly.
final class Canvas {
    private(set) var width = 0
    private(set) var height = 0
    private var storage = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    init() {}

    deinit { storage.deallocate() }

    /// The pixels as libpng reads them; valid until the next ``prepare(width:height:background:)``.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.baseAddress, count: width * height * 3)
    }

    /// Sizes the canvas (reallocating only to grow) and fills it with `background`, opaque.
    func prepare(width: Int, height: Int, background: RGBA) {
        let count = width * height * 3
        if storage.count < count {
            storage.deallocate()
            storage = .allocate(capacity: count)
        }
        self.width = width
        self.height = height
        guard count > 0, let base = storage.baseAddress else { return }
        let first = base
        for x in 0..<width {
            first[3 * x] = background.red
            first[3 * x + 1] = background.green
            first[3 * x + 2] = background.blue
        }
        let rowBytes = 3 * width
        for y in 1..<max(height, 1) {
            (base + y * rowBytes).update(from: first, count: rowBytes)
        }
    }

    /// Row `y`, 3 bytes a pixel.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
        // prepare() sized storage to width * height * 3; callers stay within the picture.
        storage.baseAddress.unsafelyUnwrapped + y * width * 3
    }

    /// Writes `colour` over `columns` of `line`: sixteen pixels (48 bytes, three vector stores) at
    /// a time, for the long runs inside areas at @2x and @3x.
    @inline(__always)
    static func fill(_ line: UnsafeMutablePointer<UInt8>, _ columns: Range<Int>, _ colour: (UInt8, UInt8, UInt8)) {
        var p = line + 3 * columns.lowerBound
        var left = columns.count
        if left >= 16 {
            var pattern = (SIMD16<UInt8>(), SIMD16<UInt8>(), SIMD16<UInt8>())
            withUnsafeMutableBytes(of: &pattern) { bytes in
                for pixel in 0..<16 {
                    bytes[3 * pixel] = colour.0
                    bytes[3 * pixel + 1] = colour.1
                    bytes[3 * pixel + 2] = colour.2
                }
            }
            while left >= 16 {
                let raw = UnsafeMutableRawPointer(p)
                raw.storeBytes(of: pattern.0, as: SIMD16<UInt8>.self)
                raw.storeBytes(of: pattern.1, toByteOffset: 16, as: SIMD16<UInt8>.self)
                raw.storeBytes(of: pattern.2, toByteOffset: 32, as: SIMD16<UInt8>.self)
                p += 48
                left &-= 16
            }
        }
        for _ in 0..<left {
            (p[0], p[1], p[2]) = colour
            p += 3
        }
    }

    /// Lays an outer band (`outer`, reaching `outerEdge`) and an inner shape over it (`inner`,
    /// reaching `innerEdge`) over pixel `x` of `line`, whose centre is `distance` from the shape's
    /// centre line or point: each with a one-pixel linear ramp at its edge. Either may be off.
    @inline(__always)
    static func blend(
        _ line: UnsafeMutablePointer<UInt8>, _ x: Int, distance: Float, outer: Paint?, outerEdge: Float, inner: Paint?,
        innerEdge: Float
    ) {
        if let outer {
            let coverage = min(max(outerEdge - distance, 0), 1)
            if coverage > 0 { blend(line, x, outer, coverage) }
        }
        if let inner {
            let coverage = min(max(innerEdge - distance, 0), 1)
            if coverage > 0 { blend(line, x, inner, coverage) }
        }
    }

    /// Lays `paint` over pixel `x` of `line` with `coverage` (0...1) times the paint's opacity.
    @inline(__always)
    static func blend(_ line: UnsafeMutablePointer<UInt8>, _ x: Int, _ paint: Paint, _ coverage: Float) {
        let alpha = coverage * paint.opacity
        let p = line + 3 * x
        let r = Float(p[0])
        let g = Float(p[1])
        let b = Float(p[2])
        p[0] = UInt8(r + (paint.red - r) * alpha + 0.5)
        p[1] = UInt8(g + (paint.green - g) * alpha + 0.5)
        p[2] = UInt8(b + (paint.blue - b) * alpha + 0.5)
    }
}
