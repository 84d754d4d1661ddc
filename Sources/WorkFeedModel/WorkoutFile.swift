import Foundation

/// The file a workout was read from, as the index remembers it: enough to find the file again, to
/// tell whether another file is the same one, and to know which reader read it.
public struct WorkoutFile: Sendable, Hashable, Codable {
    /// The file's name, with the entry inside an archive (`export.zip:apple_health_export/export.xml`).
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// The lower-case hex SHA-256 of its bytes.
    public var sha256: String
    /// `gpx`, `tcx`, `fit` or `apple-health`.
    public var format: String
    /// The version of WorkFeedImport's readers that read it (``WorkoutFile/currentReaderVersion``
    /// when it was imported): a later version may read the same bytes better, and `workctl reimport`
    /// reads the kept original again.
    public var readerVersion: Int

    /// The readers' version. Raise it whenever a reader's output for some file changes, so that
    /// `workctl reimport` knows which workouts an improved reader may read differently.
    /// - 1: the readers before files were remembered.
    /// - 2: device summary figures, lenient `<extensions>`, Strava numeric types, Apple Health
    ///   `WorkoutStatistics` and totals.
    /// - 3: devices' climb (FIT `total_ascent`, `TrackStatsExtension` `Ascent`, Apple Health
    ///   `HKElevationAscended`); a FIT altitude of raw 0 (-500 m) is no altitude.
    /// - 4: the time zone of the start (`timeZone`, `timeZoneSource`; docs/import.md, "Time
    ///   zones"); a FIT `local_timestamp` equal to its UTC timestamp gives no offset.
    /// - 5: the track's climb is counted by the rule of how the file says its altitudes were
    ///   measured (``Route/altitudeSource``: the GPX `creator`, TCX `Creator`, FIT manufacturer,
    ///   Apple Health `sourceName`), not by whether they have decimals; UTC in any spelling
    ///   (`+00:00`, `-00:00`, `+0000`) is no offset, as `Z` is, and the zone comes from the
    ///   position; the activity from the workout's and the file's names where the format's type
    ///   says only other (issue 36).
    public static let currentReaderVersion = 5

    public init(name: String, size: Int64, sha256: String, format: String, readerVersion: Int = WorkoutFile.currentReaderVersion) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.format = format
        self.readerVersion = readerVersion
    }

    /// Describes the bytes of a file.
    public init(name: String, bytes: [UInt8], format: String) {
        self.init(name: name, size: Int64(bytes.count), sha256: SHA256.hex(bytes), format: format)
    }
}

/// Summary figures a device wrote into the file itself (a FIT `session`, TCX laps, Garmin's GPX
/// `TrackStatsExtension`, an Apple Health workout's totals and statistics). Where the file has
/// them they are what the feed shows, because they are what the watch showed; figures the file
/// lacks are computed from the track.
public struct DeviceSummary: Sendable, Hashable, Codable {
    /// Where the figures were read, for people: `FIT session`, `TCX laps`, `GPX TrackStatsExtension`,
    /// `Apple Health workout`.
    public var source: String
    /// Metres.
    public var distance: Double?
    /// Metres climbed (FIT `total_ascent`, `TrackStatsExtension` `Ascent`, Apple Health
    /// `HKElevationAscended`). A 0 is only taken when the track does not climb either
    /// (``shown(trackElevationGain:)``).
    public var elevationGain: Double?
    /// Seconds of recording: the timer time, pauses excluded, as a watch shows it.
    public var duration: Double?
    /// Kilocalories.
    public var calories: Double?
    public var heartRateAverage: Double?
    public var heartRateMax: Double?

    public init(
        source: String, distance: Double? = nil, duration: Double? = nil, calories: Double? = nil, heartRateAverage: Double? = nil,
        heartRateMax: Double? = nil, elevationGain: Double? = nil
    ) {
        self.source = source
        self.distance = distance
        self.elevationGain = elevationGain
        self.duration = duration
        self.calories = calories
        self.heartRateAverage = heartRateAverage
        self.heartRateMax = heartRateMax
    }

    /// Keeps only finite values in sensible ranges: a figure a file gets wrong (a negative
    /// distance, a heart rate of 0 or 900) is dropped, and the track's figure is used instead.
    /// So is a distance faster over the device's own timer time than any workout moves
    /// (``TrackFigures/maximumSpeed``): OpenTracks' export of a track with a 220 km GPS jump says
    /// 222 km in 56 s, and a card would have read 14,280 km/h.
    public func sanitized() -> DeviceSummary? {
        func keep(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
            guard let value, value.isFinite, range.contains(value) else { return nil }
            return value
        }
        var result = self
        result.distance = keep(distance, 0...100_000_000)
        result.elevationGain = keep(elevationGain, 0...1_000_000)
        result.duration = keep(duration, 0...100_000_000)
        result.calories = keep(calories, 0...1_000_000)
        result.heartRateAverage = keep(heartRateAverage, 1...400)
        result.heartRateMax = keep(heartRateMax, 1...400)
        if let distance = result.distance, let duration = result.duration, duration > 0, distance / duration > TrackFigures.maximumSpeed {
            result.distance = nil
        }
        return result.figures.isEmpty ? nil : result
    }

    /// The figures the feed shows from the device: ``sanitized()``, and a climb of 0 dropped when
    /// the track clearly climbs (``TrackFigures/clearClimb`` metres or more): devices without an
    /// altimeter (the TomTom Runner 3) write 0 for "not recorded".
    public func shown(trackElevationGain: Double?) -> DeviceSummary? {
        guard var result = sanitized() else { return nil }
        if result.elevationGain == 0, let trackElevationGain, trackElevationGain >= TrackFigures.clearClimb {
            result.elevationGain = nil
        }
        return result.figures.isEmpty ? nil : result
    }

    /// The name ``figures`` gives the device's timer time (moving time, ``FeedItem/movingTime``).
    public static let durationFigure = "duration"

    /// The names of the figures present, as `workctl show` lists them.
    public var figures: [String] {
        var names: [String] = []
        if distance != nil { names.append("distance") }
        if elevationGain != nil { names.append("climb") }
        if duration != nil { names.append(Self.durationFigure) }
        if calories != nil { names.append("calories") }
        if heartRateAverage != nil || heartRateMax != nil { names.append("heart rate") }
        return names
    }
}
