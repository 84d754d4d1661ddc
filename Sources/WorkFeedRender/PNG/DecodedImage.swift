import WorkFeedModel
public import WorkFeedStyle

/// A decoded picture as 8-bit RGBA rows, top to bottom, for tests and verification.
public struct DecodedImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// `width * height * 4` bytes, row-major, no padding.
    public var rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The pixel at column `x`, row `y` (from the top left). Out-of-range coordinates are clamped
    /// to the edge so that probing near a border never traps.
    public func pixel(x: Int, y: Int) -> RGBA {
        guard width > 0, height > 0, rgba.count >= width * height * 4 else { return RGBA(red: 0, green: 0, blue: 0, alpha: 0) }
        let cx = min(max(x, 0), width - 1)
        let cy = min(max(y, 0), height - 1)
        let offset = (cy * width + cx) * 4
        return RGBA(red: rgba[offset], green: rgba[offset + 1], blue: rgba[offset + 2], alpha: rgba[offset + 3])
    }
}
