public import WorkFeedModel
public import WorkFeedTiles

/// A picture cannot be drawn now. Mostly from these inputs, and trying again with the same inputs
/// gives the same answer: the job becomes `failed-no-retry` with ``reason``. A failure whose code
/// is one of the worker's surroundings (``FailureCode/isEnvironmental``: ``basemapDiffers``,
/// ``mapUnavailable(_:)``) is reported as transient instead, and the job is drawn again later.
public struct RenderFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the worker reports and the index stores, groups and selects by (``FailureCode``).
    public var code: FailureCode
    /// A short phrase for people; the feed and operators see it as the job's reason.
    public var reason: String

    public init(code: FailureCode, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    /// The route has no points at all.
    public static let noRoute = RenderFailure(code: .noRoute, reason: "no route")
    /// Not one point has finite, in-range coordinates.
    public static let everyPointInvalid = RenderFailure(code: .everyPointInvalid, reason: "every point invalid")
    /// After dropping invalid points, fewer than two remain.
    public static let fewerThanTwoUsablePoints = RenderFailure(code: .tooFewPoints, reason: "fewer than two usable points")
    /// Every usable point lies within a metre of the others: there is no line to draw.
    public static let singlePlace = RenderFailure(code: .singlePlace, reason: "route is a single place")
    /// A heatmap has no heart-rate sample inside the route's time span.
    public static let noHeartRateSamples = RenderFailure(code: .noHeartRate, reason: "no heart-rate samples")
    /// A pace picture's route has no step between two timestamped points that moved
    /// (``RouteMeasure/pace``, ``RouteMeasure/speed``).
    public static let noTimes = RenderFailure(code: .noTimes, reason: "no timestamps")
    /// An elevation picture's route has no plausible altitude.
    public static let noElevation = RenderFailure(code: .noElevation, reason: "no elevation")
    /// The picture's size or scale is outside what the renderer draws (1...2048 pixels a side,
    /// ``PictureSpec/scaleRange``).
    public static let pictureSizeOutOfRange = RenderFailure(code: .pictureSize, reason: "picture size out of range")
    /// The heatmap style's thresholds and colours do not fit together.
    public static let invalidHeatmapStyle = RenderFailure(code: .heatmapStyle, reason: "heatmap style invalid")
    /// A pace or elevation picture's ramp is missing or its colours and pieces do not make one.
    public static let invalidRampStyle = RenderFailure(code: .rampStyle, reason: "ramp style invalid")
    /// A share card's spec without its words (``PictureSpec/card``).
    public static let missingCardText = RenderFailure(code: .cardText, reason: "share card without its text")
    /// No font could be opened to draw a share card's words.
    public static let noFont = RenderFailure(code: .renderFailed, reason: "no font to draw the card's words")
    /// The style turns every element off, which would give a blank picture.
    public static let styleDrawsNothing = RenderFailure(code: .styleDrawsNothing, reason: "style draws nothing")

    /// The job asks for a basemap this renderer does not have (another tileset or font). Workers
    /// check this before drawing and report it as a transient failure: another worker can draw it.
    public static let basemapDiffers = RenderFailure(code: .basemapDiffers, reason: "the worker's basemap differs from the job's")

    /// A remote tileset could not give a tile the picture needs (no answer, a timeout, HTTP 5xx,
    /// an archive that changed since it was opened): the picture is not drawn without it, and the
    /// worker reports a transient failure, so that it is drawn once the tileset answers again.
    public static func mapUnavailable(_ error: TileError) -> RenderFailure {
        RenderFailure(code: .mapUnavailable, reason: "map tiles cannot be fetched now: \(error)")
    }

    /// libpng could not encode the picture, or the cache key cannot be written as PNG text.
    static func encoding(_ error: PNGError) -> RenderFailure {
        RenderFailure(code: .renderFailed, reason: error.description)
    }

    /// libwebp could not encode the picture.
    static func encoding(_ error: WebPError) -> RenderFailure {
        RenderFailure(code: .renderFailed, reason: error.description)
    }
}
