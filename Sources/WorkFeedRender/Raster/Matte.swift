public import WorkFeedStyle

/// A see-through picture's pixels from two drawings of it, one on black and one on white
/// (difference matting): a pixel the drawing covers with opacity α (0 to 255) and colour F reads
/// `b = αF/255` on black and `w = b + 255 - α` on white, so `α = 255 - (w - b)` and `F = 255b/α`.
///
/// Every drawing operation of the renderer lays a colour over what is there, the same on either
/// matte, so this gives back what was drawn to within the rounding of the two drawings (a unit or
/// two of a channel where α is small). Integer arithmetic only: the same drawings give the same
/// bytes everywhere.
enum Matte {
    /// Straight-alpha RGBA pixels (as PNG stores them): what was drawn, laid over `under` (the
    /// theme's background, with its own alpha; fully transparent in the shipped theme).
    /// - Parameters:
    ///   - onBlack: the RGB pixels drawn on black;
    ///   - onWhite: the same drawing's on white, as many bytes.
    ///   - pixels: replaced by four bytes a pixel.
    static func straightAlpha(onBlack: [UInt8], onWhite: UnsafeRawBufferPointer, under: RGBA, into pixels: inout [UInt8]) {
        precondition(onBlack.count == onWhite.count && onBlack.count % 3 == 0, "two drawings of one picture")
        let count = onBlack.count / 3
        pixels.removeAll(keepingCapacity: true)
        pixels.reserveCapacity(count * 4)
        let backgroundAlpha = Int(under.alpha)
        let background = [Int(under.red), Int(under.green), Int(under.blue)]
        for index in 0..<count {
            let base = index * 3
            var spread = 0
            for channel in 0..<3 { spread += Int(onWhite[base + channel]) - Int(onBlack[base + channel]) }
            // The mean of the three channels' estimates, rounded; rounding can make one negative.
            let alpha = 255 - min(255, max(0, (spread + 1) / 3))
            // Scaled by 255: the drawing's opacity plus the background's share of what it leaves.
            let left = backgroundAlpha * (255 - alpha)
            let total = alpha * 255 + left
            guard total > 0 else {
                pixels.append(contentsOf: [0, 0, 0, 0])
                continue
            }
            for channel in 0..<3 {
                // The drawn colour times its opacity (each out of 255) is 255 times what the black
                // drawing holds; scaled by 255 as `total` is.
                let drawn = Int(onBlack[base + channel]) * 255 * 255
                let value = (drawn + background[channel] * left + total / 2) / total
                pixels.append(UInt8(min(255, value)))
            }
            pixels.append(UInt8((total + 127) / 255))
        }
    }
}
