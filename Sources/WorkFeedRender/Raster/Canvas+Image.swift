extension Canvas {
    /// Draws the part of a raster tile inside its placement's square, resampled bilinearly
    /// (premultiplied, so transparent pixels leave no dark fringe) and laid over what is there.
    ///
    /// A pixel belongs to the square when its centre does (`min <= centre < max`), so squares
    /// that share an edge fill every pixel along it exactly once.
    func draw(_ placement: ImagePlacement) {
        let image = placement.image
        guard image.width > 0, image.height > 0, placement.size > 0 else { return }
        let firstX = max(0, Int((placement.minX - 0.5).rounded(.up)))
        let endX = min(width, Int((placement.maxX - 0.5).rounded(.up)))
        let firstY = max(0, Int((placement.minY - 0.5).rounded(.up)))
        let endY = min(height, Int((placement.maxY - 0.5).rounded(.up)))
        guard firstX < endX, firstY < endY else { return }

        let scaleX = Double(image.width) / placement.size
        let scaleY = Double(image.height) / placement.size
        // Per column: the two source columns and the weight of the second, computed once.
        let columns = (firstX..<endX).map { x in
            Self.sample((Double(x) + 0.5 - placement.originX) * scaleX - 0.5, limit: image.width)
        }
        image.rgba.withUnsafeBufferPointer { pixels in
            for y in firstY..<endY {
                let (top, bottom, fy) = Self.sample((Double(y) + 0.5 - placement.originY) * scaleY - 0.5, limit: image.height)
                let line = row(y)
                let upper = top * image.width * 4
                let lower = bottom * image.width * 4
                for (offset, column) in columns.enumerated() {
                    let (left, right, fx) = column
                    // The four neighbours, premultiplied, in this order: top left, top right,
                    // bottom left, bottom right (no array per pixel on this path).
                    func premultipliedSample(_ index: Int) -> SIMD4<Float> {
                        let alpha = Float(pixels[index + 3])
                        return SIMD4(
                            Float(pixels[index]) * alpha / 255, Float(pixels[index + 1]) * alpha / 255,
                            Float(pixels[index + 2]) * alpha / 255, alpha)
                    }
                    var premultiplied = SIMD4<Float>(repeating: 0)
                    premultiplied += (1 - fx) * (1 - fy) * premultipliedSample(upper + left * 4)
                    premultiplied += fx * (1 - fy) * premultipliedSample(upper + right * 4)
                    premultiplied += (1 - fx) * fy * premultipliedSample(lower + left * 4)
                    premultiplied += fx * fy * premultipliedSample(lower + right * 4)
                    let keep = 1 - premultiplied.w / 255
                    let p = line + 3 * (firstX + offset)
                    p[0] = UInt8(min(premultiplied.x + Float(p[0]) * keep + 0.5, 255))
                    p[1] = UInt8(min(premultiplied.y + Float(p[1]) * keep + 0.5, 255))
                    p[2] = UInt8(min(premultiplied.z + Float(p[2]) * keep + 0.5, 255))
                }
            }
        }
    }

    /// The two source samples around position `value` (clamped to the image) and the weight of
    /// the second.
    private static func sample(_ value: Double, limit: Int) -> (Int, Int, Float) {
        let clamped = min(max(value, 0), Double(limit - 1))
        let low = Int(clamped.rounded(.down))
        return (low, min(low + 1, limit - 1), Float(clamped - Double(low)))
    }
}
