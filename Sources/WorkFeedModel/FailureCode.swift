/// Why a picture failed, as a short stable code: what `workctl failed --group` counts by, what
/// `workctl retry --reason` selects, and the metrics' label. The reason stored beside it is the
/// detail for people (it may name an errno, a worker, a count of attempts), never what is grouped.
///
/// Codes are lower-case words joined by `-`. A worker may send codes this version does not know;
/// they are kept as sent.
public struct FailureCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // The inputs cannot make a picture (failed-no-retry at once).
    public static let noRoute = FailureCode("no-route")
    public static let everyPointInvalid = FailureCode("every-point-invalid")
    public static let tooFewPoints = FailureCode("too-few-points")
    public static let singlePlace = FailureCode("single-place")
    public static let noHeartRate = FailureCode("no-heart-rate")
    /// A pace picture's route has no two points with timestamps a moving step apart.
    public static let noTimes = FailureCode("no-timestamps")
    /// An elevation picture's route has no plausible altitude.
    public static let noElevation = FailureCode("no-elevation")
    public static let pictureSize = FailureCode("picture-size")
    public static let heatmapStyle = FailureCode("heatmap-style")
    public static let rampStyle = FailureCode("ramp-style")
    /// A share card's spec without its words.
    public static let cardText = FailureCode("card-text")
    public static let styleDrawsNothing = FailureCode("style-draws-nothing")
    public static let specUnreadable = FailureCode("spec-unreadable")
    public static let seriesUnreadable = FailureCode("series-unreadable")
    /// Every part of the route lies in its owner's privacy zones (or their end trim): there is
    /// nothing the picture may show (docs/privacy.md).
    public static let hiddenByPrivacy = FailureCode("hidden-by-privacy-zone")
    /// Any other failure of the renderer (the PNG encoder, say).
    public static let renderFailed = FailureCode("render-failed")
    /// The picture's theme is no longer among the coordinator's configured `themes`: it is not
    /// drawn (listing the theme again and `workctl retry --reason theme-not-configured` draws it).
    public static let themeNotConfigured = FailureCode("theme-not-configured")

    // The worker's surroundings, not the job: retried with a back-off that grows to minutes,
    // without counting attempts (see ``isEnvironmental``).
    /// No space (ENOSPC) or quota (EDQUOT) left on the cache's file system.
    public static let cacheFull = FailureCode("cache-full")
    /// The cache may not be written by this worker (EACCES, EPERM).
    public static let cacheDenied = FailureCode("cache-denied")
    /// The cache's file system is read-only (EROFS).
    public static let cacheReadOnly = FailureCode("cache-read-only")
    /// Any other failure to write the cache (EIO, a missing directory, ...).
    public static let cacheIO = FailureCode("cache-io")
    /// An object store cannot answer now or asks to slow down (connection refused, timeout, HTTP
    /// 500/503, S3's `SlowDown`).
    public static let cacheUnavailable = FailureCode("cache-unavailable")
    /// The worker draws on another basemap than the job's.
    public static let basemapDiffers = FailureCode("basemap-differs")
    /// A remote tileset (`https://`, `s3://`) could not give a tile the picture needs: no answer,
    /// a timeout, HTTP 5xx, or an archive that changed since the worker opened it.
    public static let mapUnavailable = FailureCode("map-unavailable")

    // The pool: the job was in the hands of a worker that went away or did not answer in time.
    public static let workerSilent = FailureCode("worker-silent")
    public static let workerRestarted = FailureCode("worker-restarted")
    public static let workerUnreachable = FailureCode("worker-unreachable")
    public static let timedOut = FailureCode("timed-out")
    /// A worker reported the picture generated under a cache key that is not the job's.
    public static let keyMismatch = FailureCode("key-mismatch")
    /// A transient failure a worker gave no code for.
    public static let transient = FailureCode("transient")

    /// Every code this version gives. A code not in this list (one a newer worker sent) is kept in
    /// the index as sent, but counted in the metrics as `other`, so that a metric's label set stays
    /// bounded whatever a worker sends. A new code goes here too.
    public static let known: [FailureCode] = [
        .noRoute, .everyPointInvalid, .tooFewPoints, .singlePlace, .noHeartRate, .noTimes, .noElevation, .pictureSize, .heatmapStyle, .rampStyle,
        .cardText,
        .styleDrawsNothing,
        .specUnreadable, .seriesUnreadable, .hiddenByPrivacy, .renderFailed, .themeNotConfigured, .cacheFull, .cacheDenied, .cacheReadOnly, .cacheIO,
        .cacheUnavailable, .basemapDiffers, .mapUnavailable, .workerSilent, .workerRestarted, .workerUnreachable, .timedOut, .keyMismatch, .transient,
    ]

    /// Failures of a worker's surroundings: the job is not at fault, so they do not count as
    /// attempts and the job is retried, later and later, for as long as it takes.
    public var isEnvironmental: Bool {
        [Self.cacheFull, .cacheDenied, .cacheReadOnly, .cacheIO, .cacheUnavailable, .basemapDiffers, .mapUnavailable].contains(self)
    }

    /// Whether the worker's cache is what failed: the worker stops taking jobs until it can write
    /// there again.
    public var isCacheFailure: Bool {
        [Self.cacheFull, .cacheDenied, .cacheReadOnly, .cacheIO, .cacheUnavailable].contains(self)
    }

    /// Whether `text` may be sent as a code: 1 to 64 lower-case letters, digits and `-`.
    public static func isWellFormed(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
    }
}
