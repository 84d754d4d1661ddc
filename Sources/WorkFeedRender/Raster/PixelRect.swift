/// An inclusive rectangle of pixel indices, used to remember what a render touched.
struct PixelRect {
    var minX = Int.max
    var minY = Int.max
    var maxX = Int.min
    var maxY = Int.min

    var isEmpty: Bool { minX > maxX || minY > maxY }

    mutating func formUnion(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.minX = min(self.minX, minX)
        self.minY = min(self.minY, minY)
        self.maxX = max(self.maxX, maxX)
        self.maxY = max(self.maxY, maxY)
    }

    /// The pixels whose centres lie within `reach` of `centre`'s box, clipped to the picture.
    static func around(
        minX: Float, minY: Float, maxX: Float, maxY: Float, reach: Float, width: Int, height: Int
    ) -> PixelRect {
        // Pixel i's centre is i + 0.5; clamping in Float first keeps the conversion in range.
        func first(_ value: Float, _ limit: Int) -> Int { ceilIndex(value - reach - 0.5, limit) }
        func last(_ value: Float, _ limit: Int) -> Int { floorIndex(value + reach - 0.5, limit) }
        return PixelRect(
            minX: max(first(minX, width), 0), minY: max(first(minY, height), 0),
            maxX: min(last(maxX, width), width - 1), maxY: min(last(maxY, height), height - 1))
    }
}
