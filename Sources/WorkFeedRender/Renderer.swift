public import WorkFeedModel
public import WorkFeedPlaces
import WorkFeedTiles
public import WorkFeedStyle

/// Draws route, heatmap, pace and elevation pictures and share cards into PNG bytes.
///
/// One renderer per render thread: it is not thread-safe, and it keeps its pixel buffers,
/// distance field and vertex arrays between renders, so a thread's memory is bounded by the
/// largest picture it has drawn rather than growing with each job.
///
/// ```swift
/// let renderer = Renderer()
/// let png = try renderer.render(spec: spec, route: route, heartRate: samples, cacheKey: key)
/// ```
public final class Renderer {
    let field = DistanceField()
    let area = AreaMask()
    let canvas = Canvas()
    var path = Path()
    var scene = MapScene()
    let encoder = PNGEncoder()
    let webpEncoder = WebPEncoder()
    /// The tilesets maps are drawn from; `nil` draws every picture on the plain background.
    public let basemap: Basemap?
    /// The tilesets the current picture drew, whose attribution goes in its corner.
    var drawnSources: Set<Int> = []
    /// The map's fonts (names and attribution), opened on first use (FreeType faces belong to one
    /// thread).
    var fonts: FontSet?
    /// Where the names of the last picture went.
    var labelPlacer = LabelPlacer()
    /// Where the route lies, for choosing the heatmap legend's corner.
    var legendGrid = LabelGrid()
    /// Where the last heatmap's legend went; `nil` after a route picture or without a legend.
    var legendBox: LabelBox?
    /// Where a share card's words, zone bar and profile went, in drawing order; empty after
    /// another kind.
    var cardBoxes: [LabelBox] = []
    /// The current picture's attribution, laid out once: its box is reserved before the names are
    /// placed and it is drawn last.
    var attribution: AttributionLayout?
    /// The populated places a picture without a map is captioned with (``StartPlace``); `nil`
    /// captions such pictures with their scale bar alone.
    public let places: PlaceMap?
    /// The route whose start the current picture's caption names, looked up only when a picture
    /// without a map lays its caption out; `nil` names no place (a share card's map part: the
    /// card's words say where).
    var captionRoute: Route?
    /// The current picture's caption when it has no map (laid out with the background, drawn last).
    var caption: CaptionLayout?
    /// The opaque colour a see-through picture is being drawn on (black, then white), `nil` otherwise.
    var matte: RGBA?
    /// A see-through picture's RGBA pixels, kept between pictures like the canvas.
    var transparentPixels: [UInt8] = []
    /// Whether pictures without a map get their caption; internal and settable so that tests of
    /// the route's geometry see it alone.
    var drawsCaption = true

    /// What the last successful render did.
    public private(set) var lastStatistics = RenderStatistics()

    /// Largest picture side, in pixels. A render keeps about 13 bytes a pixel (distance field 4,
    /// canvas 3, the encoder's rows 3 and its compressed scratch 3), so 2048 x 2048 bounds a
    /// renderer's buffers at about 55 MB.
    public static let maximumPixelSide = PictureSpec.maximumPixelSide
    /// Dropped points lie within this many pixels of the drawn line (see docs/rendering.md);
    /// internal and settable so that tests can compare against no simplification at all.
    var simplificationTolerance: Float = 0.1
    /// Pixels (the field's and the canvas's rows) in a band of the map's lines: with the field's
    /// 4 bytes and the canvas's 3 a pixel, about 900 KB, under the 2 MB of a core's L2 cache here.
    /// Internal and settable so that tests can compare against one band.
    var lineBandPixels = 1 << 17

    /// - Parameters:
    ///   - basemap: shared by every renderer of the process; without it, pictures whose spec asks
    ///     for a map cannot be drawn.
    ///   - places: the shipped places file (``PlaceMap/shipped``) unless told otherwise; part of
    ///     what a renderer version draws (docs/places.md, "A new places file").
    public init(basemap: Basemap? = nil, places: PlaceMap? = try? PlaceMap.shipped.get()) {
        self.basemap = basemap
        self.places = places
    }

    /// Draws `route` as `spec` says and encodes it in `format`: a PNG of `spec.pixelWidth` x
    /// `spec.pixelHeight` pixels (opaque RGB, or RGBA when the theme's background is see-through),
    /// or a WebP of the same pixels (``WebPEncoding/pictures``), encoded instead of the PNG, not
    /// beside it.
    ///
    /// Same inputs, same bytes: nothing depends on time, randomness or dictionary order.
    ///
    /// - Parameters:
    ///   - heartRate: used by heatmaps only; samples outside the route's time span are ignored.
    ///   - cacheKey: written into a `tEXt` chunk with keyword `workfeed:cache-key` (the PNG; a WebP
    ///     carries no text, and its content key follows from this one: ``PictureFormat/contentKey(pictureKey:)``).
    ///   - format: which encoder writes the bytes; the PNG unless told otherwise.
    /// - Throws: ``RenderFailure`` with a stable reason when these inputs can never give a picture,
    ///   and ``RenderFailure/mapUnavailable(_:)`` when a remote tileset could not give a tile now.
    public func render(
        spec: PictureSpec, route: Route, heartRate: [HeartRateSample], cacheKey: String, format: PictureFormat = .standard
    ) throws(RenderFailure) -> [UInt8] {
        let clock = ContinuousClock()
        let started = clock.now
        guard PictureSpec.scaleRange.contains(spec.scale), spec.width > 0, spec.height > 0,
            spec.width <= Self.maximumPixelSide / spec.scale, spec.height <= Self.maximumPixelSide / spec.scale
        else { throw .pictureSizeOutOfRange }
        let text: [UInt8]
        do {
            text = try PNGCodec.textChunkBytes([(keyword: "workfeed:cache-key", value: cacheKey)])
        } catch {
            throw .encoding(error)
        }

        if let wanted = spec.basemap, spec.map != nil, wanted != basemap?.identity.hash {
            throw .basemapDiffers
        }
        var statistics = RenderStatistics()
        var drawn = clock.now
        let bytes: [UInt8]
        if spec.style.isSeeThrough {
            // Drawn twice, on black and on white: what changes between the two is what lets the
            // background through (docs/rendering.md, "Transparent").
            matte = RGBA(red: 0, green: 0, blue: 0)
            defer { matte = nil }
            try draw(spec: spec, route: route, heartRate: heartRate, statistics: &statistics)
            let onBlack = Array(canvas.bytes)
            matte = RGBA(red: 255, green: 255, blue: 255)
            // The second drawing's figures are the picture's (the first's were the same work).
            statistics = RenderStatistics()
            try draw(spec: spec, route: route, heartRate: heartRate, statistics: &statistics)
            Matte.straightAlpha(onBlack: onBlack, onWhite: canvas.bytes, under: spec.style.background, into: &transparentPixels)
            drawn = clock.now
            let encoded = transparentPixels.withUnsafeBytes { pixels in
                Result { () throws(RenderFailure) in try encode(pixels, channels: 4, text: text, format: format) }
            }
            bytes = try encoded.get()
        } else {
            try draw(spec: spec, route: route, heartRate: heartRate, statistics: &statistics)
            drawn = clock.now
            bytes = try encode(canvas.bytes, channels: 3, text: text, format: format)
        }
        statistics.drawing = drawn - started
        statistics.encoding = clock.now - drawn
        lastStatistics = statistics
        return bytes
    }

    /// The canvas's pixels (or a see-through picture's) in `format`: a PNG with the cache key's
    /// text chunk, or a WebP (which carries no text).
    private func encode(_ pixels: UnsafeRawBufferPointer, channels: Int, text: [UInt8], format: PictureFormat) throws(RenderFailure) -> [UInt8] {
        switch format {
        case .png:
            do {
                return try encoder.encode(pixels: pixels, channels: channels, width: canvas.width, height: canvas.height, textChunks: text)
            } catch {
                throw .encoding(error)
            }
        case .webp:
            do {
                return try webpEncoder.encode(pixels: pixels, channels: channels, width: canvas.width, height: canvas.height)
            } catch {
                throw .encoding(error)
            }
        }
    }

    /// Draws the picture onto the canvas, over the matte when one is set: everything but the encoding.
    func draw(spec: PictureSpec, route: Route, heartRate: [HeartRateSample], statistics: inout RenderStatistics) throws(RenderFailure) {
        drawnSources = []
        legendBox = nil
        cardBoxes = []
        attribution = nil
        caption = nil
        captionRoute = route
        // Which renderer draws each kind: the one place besides its declaration (PictureKind)
        // that a new kind adds to (docs/architecture.md, "Adding a picture kind").
        switch spec.kind {
        case .route: try drawRoute(spec: spec, route: route, statistics: &statistics)
        case .heatmap: try drawHeatmap(spec: spec, route: route, heartRate: heartRate, statistics: &statistics)
        case .pace, .elevation: try drawRamp(spec: spec, route: route, statistics: &statistics)
        case .share, .story: try drawShareCard(spec: spec, mapKind: .route, route: route, heartRate: heartRate, statistics: &statistics)
        }
        // A picture missing tiles a remote tileset could not give is never finished: it would be
        // stored without (part of) its map under the key of one with it.
        if let unavailable = statistics.unavailableTile { throw .mapUnavailable(unavailable) }
        if let style = spec.map, let attribution { drawAttribution(attribution, style: style) }
        if let caption { drawCaption(caption, style: spec.style, scale: spec.scale) }
    }

    /// The colour the canvas starts from: the theme's background, or the matte of a see-through one.
    func backdrop(_ spec: PictureSpec) -> RGBA { matte ?? spec.style.background }

    /// Checks the route for deterministic failures and places it in the picture.
    func fit(spec: PictureSpec, scan: RouteScan) throws(RenderFailure) -> PictureFit {
        try scan.validate()
        return try PictureFit(
            scan: scan, pixelWidth: spec.pixelWidth, pixelHeight: spec.pixelHeight,
            padding: Double(Self.length(spec.style.padding, spec.scale)), scale: spec.scale,
            minimumSpan: spec.style.minimumSpan)
    }

    /// Fills the canvas with the plain background, then draws the map where tiles cover the
    /// picture, and its names where they leave the route, its marks, the attribution and
    /// `reserved` (the legend) free.
    ///
    /// - Parameter routeReach: pixels from the route's centre line that its line and outline cover.
    func prepareBackground(
        spec: PictureSpec, fit: PictureFit, routeReach: Float, reserved: [LabelBox] = [], statistics: inout RenderStatistics
    ) {
        canvas.prepare(width: spec.pixelWidth, height: spec.pixelHeight, background: backdrop(spec))
        labelPlacer.reset(width: canvas.width, height: canvas.height, scale: spec.scale)
        // Where no tileset covers the picture, the place's name and a scale bar say where it is.
        defer {
            if drawnSources.isEmpty, drawsCaption {
                let units = spec.ramp?.units ?? spec.card?.units ?? .metric
                let place = captionRoute.flatMap { route in places.flatMap { StartPlace.label(of: route, map: .success($0)) } }
                caption = captionLayout(place: place, metresPerPixel: fit.metresPerPixel, units: units, spec: spec)
            }
        }
        guard let style = spec.map, let basemap, spec.basemap == basemap.identity.hash else { return }
        let clock = ContinuousClock()
        let started = clock.now
        drawnSources = drawBasemap(spec: spec, style: style, basemap: basemap, fit: fit, statistics: &statistics)
        let drawn = clock.now
        statistics.mapDrawing = drawn - started - statistics.tileLoading - statistics.tileClassifying
        guard !drawnSources.isEmpty else { return }
        var taken = reserved + markBoxes(style: spec.style, scale: spec.scale, margin: Float(2 * spec.scale))
        attribution = attributionLayout(basemap.attribution(for: drawnSources), style: style, scale: spec.scale)
        if let attribution { taken.append(attribution.box) }
        drawLabels(spec: spec, style: style, zoom: Self.mapZoom(fit: fit, scale: spec.scale), routeReach: routeReach, reserved: taken)
        statistics.labelDrawing = clock.now - drawn
        statistics.labels = labelPlacer.placed.count
    }

    /// Projects and simplifies the route into ``path``.
    func layOut(route: Route, scan: RouteScan, fit: PictureFit, pieces: Int, statistics: inout RenderStatistics) {
        path.build(route: route, scan: scan, fit: fit, pieces: pieces, tolerance: simplificationTolerance)
        statistics.invalidPoints = scan.invalidPoints
        statistics.usablePoints = scan.usablePoints
        statistics.drawnVertices = path.vertices.count
    }

    /// A style length in points as pixels; negative or non-finite lengths count as 0 (off).
    static func length(_ points: Double, _ scale: Int) -> Float {
        points.isFinite && points > 0 ? Float(points * Double(scale)) : 0
    }

    /// How much larger than a start or end mark the combined mark of a loop is.
    static let combinedMarkGrowth: Float = 1.3

    /// Start and end marks, on top of everything. When the route ends so near its start that the
    /// two marks would touch (a loop), one combined mark shows both: a disc in the start colour
    /// with the end colour at its centre, so that neither hides the other.
    func drawMarks(style: RouteStyle, scale: Int) {
        let radius = Self.length(style.markRadius, scale)
        let outlineWidth = Self.length(style.outlineWidth, scale)
        let outline = outlineWidth > 0 ? Paint(style.outline) : nil
        if endsAtStart(style: style, scale: scale) {
            let outer = radius * Self.combinedMarkGrowth
            canvas.disc(at: path.first, radius: outer, fill: Paint(style.startMark), outlineWidth: outlineWidth, outline: outline)
            canvas.disc(at: path.first, radius: outer * 0.5, fill: Paint(style.endMark), outlineWidth: 0, outline: nil)
            return
        }
        canvas.disc(at: path.first, radius: radius, fill: Paint(style.startMark), outlineWidth: outlineWidth, outline: outline)
        canvas.disc(at: path.last, radius: radius, fill: Paint(style.endMark), outlineWidth: outlineWidth, outline: outline)
    }

    /// Whether the start and end marks, drawn apart, would touch or overlap.
    func endsAtStart(style: RouteStyle, scale: Int) -> Bool {
        let reach = Self.length(style.markRadius, scale) + Self.length(style.outlineWidth, scale)
        let d = path.last - path.first
        return reach > 0 && (d * d).sum() < (2 * reach + Float(scale)) * (2 * reach + Float(scale))
    }

    /// Pixels from a mark's centre that the largest mark (the combined one) covers.
    func markReach(style: RouteStyle, scale: Int) -> Float {
        let radius = Self.length(style.markRadius, scale)
        guard radius > 0 else { return 0 }
        return radius * Self.combinedMarkGrowth + Self.length(style.outlineWidth, scale)
    }
}
