public import Foundation

/// One recorded position of a route.
public struct RoutePoint: Sendable, Hashable {
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// Metres above sea level, when the source has it.
    public var elevation: Double?
    /// When the point was recorded, when the source has it.
    public var time: Date?

    public init(latitude: Double, longitude: Double, elevation: Double? = nil, time: Date? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.time = time
    }

    /// Whether the coordinates are finite and inside the globe's ranges.
    public var isValidCoordinate: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// A route: its segments in recording order. A pause splits a route into segments, and nothing
/// is ever drawn between two segments.
public struct Route: Sendable, Hashable {
    public var segments: [[RoutePoint]]
    /// How its altitudes were measured, as its file says (``AltitudeSource``): the readers set it;
    /// `nil` (a route made in code, or decoded from the index, which keeps no such thing) counts
    /// as GPS. It decides how the track's climb is counted (``TrackFigures/climbRule(for:)``).
    public var altitudeSource: AltitudeSource?

    public init(segments: [[RoutePoint]] = [], altitudeSource: AltitudeSource? = nil) {
        self.segments = segments.filter { !$0.isEmpty }
        self.altitudeSource = altitudeSource
    }

    public var pointCount: Int { segments.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { pointCount == 0 }
    public var points: FlattenSequence<[[RoutePoint]]> { segments.joined() }
}

/// One heart-rate reading.
public struct HeartRateSample: Sendable, Hashable {
    public var time: Date
    /// Beats per minute.
    public var bpm: Double

    public init(time: Date, bpm: Double) {
        self.time = time
        self.bpm = bpm
    }
}
