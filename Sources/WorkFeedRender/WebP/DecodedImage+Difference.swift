import Foundation

/// How far one decoded picture is from another, for a lossy format's bound (docs/rendering.md, "WebP").
public struct PictureDifference: Sendable, Hashable {
    /// Peak signal-to-noise ratio over the red, green and blue channels, in dB; infinite for the
    /// same pixels.
    public var psnr: Double
    /// The largest difference of one channel of one pixel, 0...255.
    public var largest: Int
    /// Pixels with a channel more than 32 levels off.
    public var pixelsOver32: Int
}

extension DecodedImage {
    /// The difference between this picture and `other` of the same size, alpha left out (every
    /// picture is opaque); `nil` when the sizes differ.
    public func difference(from other: DecodedImage) -> PictureDifference? {
        guard width == other.width, height == other.height, rgba.count == other.rgba.count, rgba.count == width * height * 4 else {
            return nil
        }
        var squares = 0
        var largest = 0
        var over = 0
        rgba.withUnsafeBufferPointer { a in
            other.rgba.withUnsafeBufferPointer { b in
                var index = 0
                while index < a.count {
                    var pixelLargest = 0
                    for channel in 0..<3 {
                        let d = abs(Int(a[index + channel]) - Int(b[index + channel]))
                        squares += d * d
                        pixelLargest = max(pixelLargest, d)
                    }
                    largest = max(largest, pixelLargest)
                    if pixelLargest > 32 { over += 1 }
                    index += 4
                }
            }
        }
        let meanSquare = Double(squares) / Double(width * height * 3)
        let psnr = meanSquare == 0 ? Double.infinity : 10 * log10(255 * 255 / meanSquare)
        return PictureDifference(psnr: psnr, largest: largest, pixelsOver32: over)
    }
}
