public import Foundation

/// A workout as a feed shows it: the one shape of a workout's figures that the gateway's API
/// (`/v1/feed`, `/v1/workouts/{id}`, the upload reply, `/v1/changes?include=workout`), the control
/// protocol's FEED and SHOW summaries, `workctl feed --json` and the feed page all share
/// (docs/openapi.yaml, `Workout`).
///
/// Built in one place (``init(record:pictures:units:pictureSize:)``) from the index's row, the
/// pictures' states and the owner's unit setting; figures that are not finite are left out.
///
/// ```json
/// {"id": "3f2a…", "activity": "running", "start": "2026-11-21T22:05:00Z",
///  "localStart": "2026-11-21T23:05:00+01:00", "timeZoneOffset": 3600, "timeZone": "Europe/Paris",
///  "distance": {"unit": "km", "value": 10.0125}, "elapsedTime": 3130, "movingTime": 3050,
///  "pace": {"unit": "s/km", "value": 304.6}, "heartRateAverage": 148, "pointCount": 3051, "pictures": [...]}
/// ```
///
/// Figures whose unit follows the owner's `units` (distance, elevation gain, pace, speed) are a
/// ``Quantity`` in those units; the others are bare numbers in one unit for everybody (seconds,
/// beats a minute, kilocalories). Written with its keys sorted (docs/gateway.md, "Figures").
public struct FeedItem: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public var activity: ActivityType
    /// The name the file gives it, when it gives one.
    public var name: String?
    /// What a card calls it, always: its ``name`` when it has one, else the part of the day and the
    /// activity ("Morning run", "Evening ride"; ``title(name:activity:localStart:)``).
    public var title: String
    /// UTC, ISO 8601 (`2026-11-21T22:05:00Z`).
    public var start: String?
    public var end: String?
    /// The start in the time zone it was recorded in, with that zone's offset
    /// (`2026-11-21T23:05:00+01:00`): its date and weekday are the workout's own.
    public var localStart: String?
    /// Seconds east of UTC of the time zone it was recorded in.
    public var timeZoneOffset: Int?
    /// The IANA id of that zone (`Europe/Berlin`), or `nil` (written `null`) where it is not known.
    public var timeZone: String?
    /// The populated place it started in (`Sluis, Zeeland`; docs/places.md), left out for a
    /// workout without a route or that started far from every place.
    public var place: String?
    /// Kilometres or miles (the owner's `units`), to a millionth (``Quantity/distance(metres:units:)``);
    /// 0 when the workout has none.
    public var distance: Quantity
    /// Seconds from start to end, pauses included, never less than ``movingTime``
    /// (``WorkoutTimes/elapsed``).
    public var elapsedTime: Double?
    /// Seconds in motion, pauses left out, where the device recorded it (FIT session
    /// `total_timer_time`, TCX laps' `TotalTimeSeconds`, Garmin's GPX `TimerTime`, an Apple Health
    /// workout's `duration`); never computed (``WorkoutTimes/moving``).
    public var movingTime: Double?
    /// Time per kilometre or mile (the owner's `units`), for runs and walks (hikes are walks).
    public var pace: Quantity?
    /// Kilometres or miles an hour (the owner's `units`), for rides.
    public var speed: Quantity?
    /// Metres or feet climbed (the owner's `units`), to a thousandth (``Quantity/elevation(metres:units:)``).
    public var elevationGain: Quantity?
    /// Beats a minute, whole (``beatsPerMinute(_:)``).
    public var heartRateAverage: Double?
    /// Beats a minute, whole.
    public var heartRateMax: Double?
    /// Kilocalories.
    public var calories: Double?
    public var pointCount: Int
    /// The kinds of picture this workout can have (``PictureKind/isPossible(for:)``): `route` when
    /// it has a route, `heatmap` too when it has heart-rate samples; none for a workout without a
    /// route (a card without a picture). Its pictures that were asked for are in ``pictures``.
    public var pictureKinds: [PictureKind]
    public var pictures: [FeedPicture]

    /// Whether an activity's card gives a pace, a speed, or neither. Exhaustive, so that a new
    /// activity must say how it is measured.
    public enum Measure: Sendable, Hashable {
        case pace
        case speed
        case none

        public init(_ activity: ActivityType) {
            switch activity {
            case .running, .walking: self = .pace
            case .cycling: self = .speed
            case .other: self = .none
            }
        }
    }

    public init(
        id: WorkoutID, activity: ActivityType, name: String? = nil, start: String? = nil, end: String? = nil, localStart: String? = nil,
        timeZoneOffset: Int? = nil, timeZone: String? = nil, place: String? = nil, distance: Quantity, elapsedTime: Double? = nil,
        movingTime: Double? = nil,
        pace: Quantity? = nil, speed: Quantity? = nil, elevationGain: Quantity? = nil, heartRateAverage: Double? = nil, heartRateMax: Double? = nil,
        calories: Double? = nil, pointCount: Int, pictureKinds: [PictureKind] = [], pictures: [FeedPicture] = []
    ) {
        self.id = id
        self.activity = activity
        self.name = name
        self.title = Self.title(name: name, activity: activity, localStart: localStart)
        self.start = start
        self.end = end
        self.localStart = localStart
        self.timeZoneOffset = timeZoneOffset
        self.timeZone = timeZone
        self.place = place
        self.distance = distance
        self.elapsedTime = elapsedTime
        self.movingTime = movingTime
        self.pace = pace
        self.speed = speed
        self.elevationGain = elevationGain
        self.heartRateAverage = heartRateAverage
        self.heartRateMax = heartRateMax
        self.calories = calories
        self.pointCount = pointCount
        self.pictureKinds = pictureKinds
        self.pictures = pictures
    }

    /// A workout's item, from its row, its pictures and its owner's unit setting.
    /// - Parameters:
    ///   - pictureSize: every picture's size in points, as the coordinator draws them.
    public init(record: WorkoutRecord, pictures: [PictureRecord], units: UnitSystem, pictureSize: (width: Int, height: Int)?) {
        id = record.id
        activity = record.activity
        name = record.name
        start = record.start.map(ISO8601Time.string(from:))
        end = record.end.map(ISO8601Time.string(from:))
        localStart = record.start.map { Self.localTime($0, offset: record.timeZoneOffset ?? 0) }
        title = Self.title(name: record.name, activity: record.activity, localStart: localStart)
        timeZoneOffset = record.timeZoneOffset
        timeZone = record.timeZone
        place = record.place
        let metres = Self.thousandths(record.distance) ?? 0
        distance = .distance(metres: metres, units: units)
        let times = record.times
        elapsedTime = times.elapsed
        movingTime = times.moving
        elevationGain = Self.thousandths(record.elevationGain).map { .elevation(metres: $0, units: units) }
        heartRateAverage = Self.beatsPerMinute(record.heartRateAverage)
        heartRateMax = Self.beatsPerMinute(record.heartRateMax)
        calories = Self.thousandths(record.calories)
        pointCount = record.pointCount
        pictureKinds = PictureKind.allCases.filter { $0.isPossible(for: record) }
        switch Measure(record.activity) {
        case .pace: pace = Self.pace(distance: metres, seconds: times.movingOrElapsed, units: units)
        case .speed: speed = Self.speed(distance: metres, seconds: times.movingOrElapsed, units: units)
        case .none: break
        }
        self.pictures = pictures.map { FeedPicture($0, size: pictureSize) }
    }

    /// A figure to the unit the summaries keep (millimetres, calories: docs/summaries.md), so that a
    /// sum of floating-point steps (21.599999999999966 m of climb) reads 21.6 and the buckets still
    /// add up to the feed's figures exactly (issue 36); `nil` for nothing or what is not finite.
    public static func thousandths(_ value: Double?) -> Double? {
        value.flatMap { $0.isFinite ? ($0 * 1000).rounded() / 1000 : nil }
    }

    /// A heart rate as a device measures it: whole beats a minute, halves up (docs/gateway.md,
    /// "Figures"). Straps and watches count whole beats (Bluetooth's Heart Rate Measurement and
    /// ANT+ give whole bpm, FIT's `heart_rate` and TCX's `HeartRateBpm` are whole numbers), and
    /// their apps show whole beats: a tenth would claim a precision nothing measured. `nil` for
    /// nothing, or for what rounds to 0 (no reading) or is not finite.
    public static func beatsPerMinute(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        let whole = value.rounded()
        return whole > 0 ? whole : nil
    }

    /// Names that say nothing: what apps write when the person gave none.
    public static let placeholderNames: Set<String> = ["untitled", "untitled activity", "no name", "unnamed"]

    /// A workout's title (docs/import.md, "Titles"): its `name`, trimmed, unless it is empty or a
    /// placeholder (Garmin's "Untitled"); else the part of the day it started in, where it was
    /// (`localStart`'s hour: morning 5-11, afternoon 12-16, evening 17-20, night 21-4), and the
    /// activity: "Morning run", "Afternoon walk", "Evening ride", "Night workout"; "Run" and the
    /// like without a start.
    public static func title(name: String?, activity: ActivityType, localStart: String?) -> String {
        if let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty,
            !placeholderNames.contains(name.lowercased())
        {
            return name
        }
        let noun: String
        switch activity {
        case .running: noun = "run"
        case .walking: noun = "walk"
        case .cycling: noun = "ride"
        case .other: noun = "workout"
        }
        guard let localStart, localStart.count >= 13, let hour = Int(localStart.dropFirst(11).prefix(2)), (0...23).contains(hour)
        else { return noun.prefix(1).uppercased() + noun.dropFirst() }
        let part: String
        switch hour {
        case 5...11: part = "Morning"
        case 12...16: part = "Afternoon"
        case 17...20: part = "Evening"
        default: part = "Night"
        }
        return part + " " + noun
    }

    /// Metres in a kilometre or a mile (``Quantity/Unit/metres``: a length unit has them).
    static func metres(per units: UnitSystem) -> Double { Quantity.Unit.distance(in: units).metres! }

    /// The least distance, in metres, over which a pace or a speed is given.
    public static let minimumMovedDistance = 100.0
    /// The least average speed, in metres a second (1 km/h), at which a pace or a speed is given.
    public static let minimumMovingSpeed = 1000.0 / 3600

    /// Whether a workout of `distance` metres in `seconds` moved enough for a pace or a speed to
    /// mean something (docs/import.md, "Pace and speed"): at least ``minimumMovedDistance`` and at
    /// least ``minimumMovingSpeed`` on average. Below, the figure describes a recording left running
    /// or a receiver's drift (an Apple Watch "run" of 88 m over 43 minutes had a pace of 13:06:16 a
    /// mile), not a movement: no runner or walker goes slower than 1 km/h (a steep climb on foot is
    /// 2-3 km/h).
    public static func moved(distance: Double, seconds: Double?) -> Bool {
        guard let seconds, seconds > 0, distance.isFinite, distance >= minimumMovedDistance else { return false }
        return distance / seconds >= minimumMovingSpeed
    }

    /// Seconds per kilometre or mile, to a tenth, from `distance` metres; `nil` without a distance or a time, or where the
    /// workout did not move enough (``moved(distance:seconds:)``).
    public static func pace(distance: Double, seconds: Double?, units: UnitSystem) -> Quantity? {
        guard let seconds, moved(distance: distance, seconds: seconds) else { return nil }
        let value = (seconds / (distance / metres(per: units)) * 10).rounded() / 10
        guard value.isFinite, value > 0 else { return nil }
        return Quantity(value: value, unit: units == .metric ? .secondsPerKilometre : .secondsPerMile)
    }

    /// Kilometres or miles an hour, to a hundredth, from `distance` metres; `nil` without a distance or a time, or where the
    /// workout did not move enough (``moved(distance:seconds:)``).
    public static func speed(distance: Double, seconds: Double?, units: UnitSystem) -> Quantity? {
        guard let seconds, moved(distance: distance, seconds: seconds) else { return nil }
        let value = (distance / metres(per: units) / (seconds / 3600) * 100).rounded() / 100
        guard value.isFinite else { return nil }
        return Quantity(value: value, unit: units == .metric ? .kilometresPerHour : .milesPerHour)
    }

    /// `date` in the time zone `offset` seconds east of UTC, with that offset written out
    /// (`2026-11-21T23:05:00+01:00`); offsets beyond ±18 h (none exists) are taken as ±18 h.
    ///
    /// An offset with seconds keeps them (`1950-01-01T00:00:00-00:44:30`, Liberia's until 1972;
    /// the local mean times of tzdata's early years): the local time is `date` plus the whole
    /// offset, so an offset cut to minutes would name another instant (issue 37, item 9). ISO 8601
    /// and RFC 3339 offsets have minutes only; `±hh:mm:ss` is what Java's `OffsetDateTime`, Python's
    /// `datetime.fromisoformat` and JavaScript's Temporal read, and only such offsets have it (docs/gateway.md, "Time").
    public static func localTime(_ date: Date, offset: Int) -> String {
        let offset = max(-18 * 3600, min(18 * 3600, offset))
        let text = ISO8601Time.string(from: date.addingTimeInterval(Double(offset)))
        guard text.hasSuffix("Z") else { return text }
        let seconds = abs(offset)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let minutes = (offset < 0 ? "-" : "+") + two(seconds / 3600) + ":" + two(seconds % 3600 / 60)
        return text.dropLast() + minutes + (seconds % 60 == 0 ? "" : ":" + two(seconds % 60))
    }

    // `timeZone` is written as null when unknown, so that an app sees the member.
    private enum CodingKeys: String, CodingKey {
        case id, activity, name, title, start, end, localStart, timeZoneOffset, timeZone, place, distance, elapsedTime, movingTime, pace, speed
        case elevationGain, heartRateAverage, heartRateMax, calories, pointCount, pictureKinds, pictures
    }

    /// Decodes an item; one written before titles (by an older coordinator) gets its title from
    /// its name, activity and local start, as ``title(name:activity:localStart:)`` gives it, and
    /// one written before lengths carried their unit (bare metres) gets them in kilometres and
    /// metres.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(WorkoutID.self, forKey: .id)
        activity = try container.decode(ActivityType.self, forKey: .activity)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        start = try container.decodeIfPresent(String.self, forKey: .start)
        end = try container.decodeIfPresent(String.self, forKey: .end)
        localStart = try container.decodeIfPresent(String.self, forKey: .localStart)
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? Self.title(name: name, activity: activity, localStart: localStart)
        timeZoneOffset = try container.decodeIfPresent(Int.self, forKey: .timeZoneOffset)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        place = try container.decodeIfPresent(String.self, forKey: .place)
        distance = try Self.decodeLength(container, .distance) ?? .distance(metres: 0, units: .metric)
        elapsedTime = try container.decodeIfPresent(Double.self, forKey: .elapsedTime)
        movingTime = try container.decodeIfPresent(Double.self, forKey: .movingTime)
        pace = try container.decodeIfPresent(Quantity.self, forKey: .pace)
        speed = try container.decodeIfPresent(Quantity.self, forKey: .speed)
        elevationGain = try Self.decodeLength(container, .elevationGain)
        heartRateAverage = try container.decodeIfPresent(Double.self, forKey: .heartRateAverage)
        heartRateMax = try container.decodeIfPresent(Double.self, forKey: .heartRateMax)
        calories = try container.decodeIfPresent(Double.self, forKey: .calories)
        pointCount = try container.decode(Int.self, forKey: .pointCount)
        pictureKinds = try container.decode([PictureKind].self, forKey: .pictureKinds)
        pictures = try container.decode([FeedPicture].self, forKey: .pictures)
    }

    /// A length as a ``Quantity``, or as the bare metres an older coordinator wrote.
    private static func decodeLength(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Quantity? {
        if let metres = try? container.decodeIfPresent(Double.self, forKey: key) {
            return key == .distance ? .distance(metres: metres, units: .metric) : .elevation(metres: metres, units: .metric)
        }
        return try container.decodeIfPresent(Quantity.self, forKey: key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(activity, forKey: .activity)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        try container.encodeIfPresent(localStart, forKey: .localStart)
        try container.encodeIfPresent(timeZoneOffset, forKey: .timeZoneOffset)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encodeIfPresent(place, forKey: .place)
        try container.encode(distance, forKey: .distance)
        try container.encodeIfPresent(elapsedTime, forKey: .elapsedTime)
        try container.encodeIfPresent(movingTime, forKey: .movingTime)
        try container.encodeIfPresent(pace, forKey: .pace)
        try container.encodeIfPresent(speed, forKey: .speed)
        try container.encodeIfPresent(elevationGain, forKey: .elevationGain)
        try container.encodeIfPresent(heartRateAverage, forKey: .heartRateAverage)
        try container.encodeIfPresent(heartRateMax, forKey: .heartRateMax)
        try container.encodeIfPresent(calories, forKey: .calories)
        try container.encode(pointCount, forKey: .pointCount)
        try container.encode(pictureKinds, forKey: .pictureKinds)
        try container.encode(pictures, forKey: .pictures)
    }
}

/// One picture of a ``FeedItem`` (docs/openapi.yaml, `Picture`).
public struct FeedPicture: Codable, Sendable, Hashable {
    public var kind: PictureKind
    public var theme: Theme
    public var scale: Int
    public var status: JobStatus
    /// `/v1/pictures/<cache key>.png`, when generated: the picture's name on every gateway.
    public var url: String?
    /// Why it cannot be drawn, for `failed-no-retry`.
    public var reason: String?
    /// In points; the PNG is `width × scale` by `height × scale` pixels.
    public var width: Int?
    public var height: Int?

    public init(
        kind: PictureKind, theme: Theme, scale: Int, status: JobStatus, url: String? = nil, reason: String? = nil, width: Int? = nil,
        height: Int? = nil
    ) {
        self.kind = kind
        self.theme = theme
        self.scale = scale
        self.status = status
        self.url = url
        self.reason = reason
        self.width = width
        self.height = height
    }

    /// A picture's state as a feed shows it: the URL only for a generated picture whose key is
    /// one (64 lower-case hex digits), the reason only for a failed one.
    public init(_ record: PictureRecord, size: (width: Int, height: Int)?) {
        kind = record.picture.kind
        theme = record.picture.theme
        scale = record.picture.scale
        status = record.status
        if record.status == .generated, let key = record.cacheKey, CacheLayout.isCacheKey(key) { url = Self.url(key: key) }
        reason = record.status == .failedNoRetry ? record.reason : nil
        // A share card has its own size (``PictureKindDeclaration/size``), whatever the configured one.
        let own = kind.declaration.size
        width = own?.width ?? size?.width
        height = own?.height ?? size?.height
    }

    /// The gateway's URL of the picture with this cache key.
    public static func url(key: String) -> String { "/v1/pictures/\(key).png" }
}

/// A page of a feed: `/v1/feed`'s answer, FEED's summary and `workctl feed --json` (without `next`).
public struct FeedPage: Codable, Sendable, Hashable {
    public var items: [FeedItem]
    /// Pass as `cursor` for the next page; absent after the last.
    public var next: String?

    public init(items: [FeedItem], next: String?) {
        self.items = items
        self.next = next
    }
}
