/// Places a route's Web Mercator bounds in the picture: as large as fits inside the padding,
/// aspect ratio kept, centred.
struct PictureFit {
    /// Pixels per world unit.
    let zoom: Double
    let centreX: Double
    let centreY: Double
    let pixelCentreX: Double
    let pixelCentreY: Double
    /// Metres on the ground a pixel spans at the route's middle latitude (a scale bar's length).
    let metresPerPixel: Double

    /// Routes smaller than this on the ground are one place, not a line.
    static let singlePlaceMetres = 1.0
    /// The closest zoom: half a metre per point. Without it a 20-metre stroll would fill the
    /// picture like a marathon and GPS jitter would look like a scribble.
    static let minimumMetresPerPoint = 0.5

    /// - Parameters:
    ///   - padding: free space on each side, in pixels; at most a quarter of the smaller side is
    ///     kept free, so that tiny pictures still show the route.
    /// - Throws: ``RenderFailure/singlePlace`` when the route's extent is under a metre.
    ///   - minimumSpan: the least ground shown across the picture's smaller side, in metres; 0
    ///     leaves only the half-metre-per-point limit.
    init(
        scan: RouteScan, pixelWidth: Int, pixelHeight: Int, padding: Double, scale: Int, minimumSpan: Double = 0
    ) throws(RenderFailure) {
        let minX = WebMercator.x(longitude: scan.minLongitude)
        let maxX = WebMercator.x(longitude: scan.maxLongitude)
        // y grows south: the northernmost latitude has the smallest y.
        let minY = WebMercator.y(latitude: scan.maxLatitude)
        let maxY = WebMercator.y(latitude: scan.minLatitude)
        let metresPerUnit = WebMercator.metresPerUnit(latitude: (scan.minLatitude + scan.maxLatitude) / 2)
        let extentX = maxX - minX
        let extentY = maxY - minY
        guard max(extentX, extentY) * metresPerUnit >= Self.singlePlaceMetres else { throw .singlePlace }

        let width = Double(pixelWidth)
        let height = Double(pixelHeight)
        let pad = min(max(padding, 0), min(width, height) / 4)
        let availableX = width - 2 * pad
        let availableY = height - 2 * pad
        var zoom = Double.infinity
        if extentX > 0 { zoom = min(zoom, availableX / extentX) }
        if extentY > 0 { zoom = min(zoom, availableY / extentY) }
        var maximumZoom = metresPerUnit * Double(scale) / Self.minimumMetresPerPoint
        if minimumSpan.isFinite, minimumSpan > 0 {
            maximumZoom = min(maximumZoom, min(width, height) * metresPerUnit / minimumSpan)
        }
        self.zoom = min(zoom, maximumZoom)
        metresPerPixel = metresPerUnit / self.zoom
        centreX = (minX + maxX) / 2
        centreY = (minY + maxY) / 2
        pixelCentreX = width / 2
        pixelCentreY = height / 2
    }

    /// Pixel coordinates (pixel `i` spans `i..<i+1`, its centre at `i + 0.5`).
    @inline(__always)
    func pixel(x: Double, y: Double) -> SIMD2<Float> {
        SIMD2(Float(pixelCentreX + (x - centreX) * zoom), Float(pixelCentreY + (y - centreY) * zoom))
    }
}
