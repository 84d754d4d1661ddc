public import Foundation

/// A workout's row in the index: what the feed needs to draw its list without loading the route.
public struct WorkoutRecord: Sendable, Hashable, Codable {
    public var id: WorkoutID
    /// Whose workout it is (``Owner``).
    public var owner: String
    public var source: WorkoutSource
    /// The source's identifier, or `sha256:<hash>` of the content when the format has none.
    public var sourceID: String
    public var activity: ActivityType
    public var name: String?
    /// UTC start and end.
    public var start: Date?
    public var end: Date?
    /// The original time zone's offset from UTC in seconds, kept so the feed can show local time.
    public var timeZoneOffset: Int?
    /// The IANA id of the zone it took place in (``ImportedWorkout/timeZone``), when known.
    public var timeZone: String?
    /// Where the offset and zone came from; `nil` for workouts stored before index schema v11
    /// (`workctl reimport` fills both in).
    public var timeZoneSource: TimeZoneSource?
    /// The populated place it started in (`Sluis, Zeeland`; docs/places.md), worked out by the
    /// index from the route's first position; `nil` without a route or far from every place.
    public var place: String?
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: Double?
    /// Metres.
    public var elevationGain: Double?
    public var heartRateAverage: Double?
    public var heartRateMax: Double?
    /// Kilocalories, when the device wrote them.
    public var calories: Double?
    public var pointCount: Int
    /// How many heart-rate samples are stored.
    public var heartRateSamples: Int?
    /// Where the device's own figures came from (`FIT session`, `TCX laps`, …), and which of
    /// them the summary took from it; `nil` when every figure was computed from the track.
    public var deviceSource: String?
    public var deviceFigures: [String]?
    /// The file the stored copy was read from; `nil` for workouts imported before files were
    /// remembered.
    public var file: WorkoutFile?
    /// Whether the original file is kept (compressed, in the cache's `files/`), so that
    /// `workctl reimport` can read it again.
    public var originalKept: Bool?
    /// Starts at 1 and goes up each time a re-import brings a different route or heart-rate series.
    public var routeVersion: Int
    /// SHA-256 of the stored route series.
    public var routeHash: String
    /// SHA-256 of the stored heart-rate series.
    public var heartRateHash: String
    /// The anchor of the last change to this workout.
    public var anchor: Int64

    public init(
        id: WorkoutID, owner: String = Owner.defaultName, source: WorkoutSource, sourceID: String, activity: ActivityType, name: String?,
        summary: WorkoutSummary, timeZoneOffset: Int?, routeVersion: Int, routeHash: String,
        heartRateHash: String, anchor: Int64
    ) {
        self.id = id
        self.owner = owner
        self.source = source
        self.sourceID = sourceID
        self.activity = activity
        self.name = name
        self.start = summary.start
        self.end = summary.end
        self.timeZoneOffset = timeZoneOffset
        self.distance = summary.distance
        self.duration = summary.duration
        self.elevationGain = summary.elevationGain
        self.heartRateAverage = summary.heartRateAverage
        self.heartRateMax = summary.heartRateMax
        self.calories = summary.calories
        self.pointCount = summary.pointCount
        self.routeVersion = routeVersion
        self.routeHash = routeHash
        self.heartRateHash = heartRateHash
        self.anchor = anchor
    }
}

/// One picture's state, as `workctl show` and the feed see it.
public struct PictureRecord: Sendable, Hashable, Codable {
    public var picture: PictureID
    public var status: JobStatus
    /// Why it failed (for `failed-no-retry`), or the last transient failure.
    public var reason: String?
    /// The cache key of the PNG in the cache, for `generated`.
    public var cacheKey: String?
    /// How many times it was leased and came back without a picture.
    public var attempts: Int
    public var updatedAt: Date
    /// For `generated`: how much of the picture the basemap covered (`none`: the plain background).
    public var map: MapCoverage?
    /// The stable code of `reason` (``FailureCode``), when there is a reason.
    public var reasonCode: String?

    public init(
        picture: PictureID, status: JobStatus, reason: String?, cacheKey: String?, attempts: Int, updatedAt: Date,
        map: MapCoverage? = nil, reasonCode: String? = nil
    ) {
        self.reasonCode = reasonCode
        self.picture = picture
        self.status = status
        self.reason = reason
        self.cacheKey = cacheKey
        self.attempts = attempts
        self.updatedAt = updatedAt
        self.map = map
    }

    /// Where the PNG is, relative to the cache root.
    public var relativePath: String { CacheLayout.relativePath(for: picture) }
}
