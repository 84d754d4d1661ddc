public import Foundation

/// What the index holds of a workout that its share card shows: the columns its title, date and
/// figures are worked out from, read with the job wherever its key is compared or recorded
/// (`PictureInputs.figures`), so that a re-import that changes a figure makes the card stale.
public struct WorkoutFigures: Sendable, Hashable {
    public var name: String?
    public var start: Date?
    public var end: Date?
    public var timeZoneOffset: Int?
    /// Metres.
    public var distance: Double
    /// Seconds (``WorkoutTimes``' `duration`).
    public var duration: Double?
    public var deviceFigures: [String]?
    /// Metres.
    public var elevationGain: Double?
    public var heartRateAverage: Double?
    /// The populated place it started in (``WorkoutRecord/place``).
    public var place: String?

    /// The workout columns they are read from, in order (every index names them so).
    public static let columnNames = [
        "name", "start_at", "end_at", "tz_offset", "distance", "duration", "device_figures", "elevation_gain", "hr_avg", "place",
    ]

    public init(
        name: String? = nil, start: Date? = nil, end: Date? = nil, timeZoneOffset: Int? = nil, distance: Double = 0, duration: Double? = nil,
        deviceFigures: [String]? = nil, elevationGain: Double? = nil, heartRateAverage: Double? = nil, place: String? = nil
    ) {
        self.name = name
        self.start = start
        self.end = end
        self.timeZoneOffset = timeZoneOffset
        self.distance = distance
        self.duration = duration
        self.deviceFigures = deviceFigures
        self.elevationGain = elevationGain
        self.heartRateAverage = heartRateAverage
        self.place = place
    }

    /// A stored workout's.
    public init(record: WorkoutRecord) {
        self.init(
            name: record.name, start: record.start, end: record.end, timeZoneOffset: record.timeZoneOffset, distance: record.distance,
            duration: record.duration, deviceFigures: record.deviceFigures, elevationGain: record.elevationGain,
            heartRateAverage: record.heartRateAverage, place: record.place)
    }
}

/// A figure a share card can show, by the name the owner's `cardFigures` setting gives it; in the
/// order a card shows them when the owner has not chosen.
public enum ShareCardFigure: String, Sendable, Hashable, Codable, CaseIterable {
    case distance
    case movingTime
    /// Pace for runs and walks, speed for rides and the rest (as the feed gives one or the other).
    case pace
    case climb
    case heartRate
}

/// The words a share card shows, worked out from the feed's figures (``FeedItem``) in the owner's
/// units: its title, its local date and time, and each figure as a value and a label ("10.01 km"
/// over "Distance"). Built by the coordinator into the picture's spec, so that the card's key
/// follows every word on it; the renderer only lays them out.
public struct ShareCardText: Sendable, Hashable, Codable {
    public var title: String
    /// "Saturday, 21 November 2026 at 23:05" (metric), "Saturday, November 21, 2026 at 11:05 PM"
    /// (imperial); `nil` for a workout without a start.
    public var date: String?
    /// Where it started: "Heidelberg, Baden-Württemberg" (``WorkoutRecord/place``); `nil` where no place is near.
    public var place: String?
    public var figures: [Figure]
    /// The units its figures are in (the owner's): its map's scale bar is in them too.
    public var units: UnitSystem

    /// One figure: what it is ("Distance") and its value with its unit ("10.01 km").
    public struct Figure: Sendable, Hashable, Codable {
        public var label: String
        public var value: String

        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    public init(title: String, date: String?, place: String? = nil, figures: [Figure], units: UnitSystem) {
        self.title = title
        self.date = date
        self.place = place
        self.figures = figures
        self.units = units
    }

    /// A card's words for a workout of `activity` with `figures`, in `units`, with the feed's
    /// figures (``FeedItem/init(record:pictures:units:pictureSize:)``'s helpers, so that the card
    /// and the feed agree to the digit): distance, moving time (the elapsed time, "Time", where
    /// the device kept no timer), pace or speed, climb and average heart rate, each where the
    /// workout has it; a distance of 0 is left out (a workout without a route).
    /// - Parameter shown: the figures the owner chose (their `cardFigures` setting), in the
    ///   order they are shown; every one, in that order, by default.
    public init(figures: WorkoutFigures, activity: ActivityType, units: UnitSystem, shown chosen: [ShareCardFigure] = ShareCardFigure.allCases) {
        let metres = FeedItem.thousandths(figures.distance) ?? 0
        let times = WorkoutTimes(
            start: figures.start, end: figures.end, duration: figures.duration, deviceFigures: figures.deviceFigures, distance: figures.distance)
        let localStart = figures.start.map { FeedItem.localTime($0, offset: figures.timeZoneOffset ?? 0) }
        var all: [ShareCardFigure: Figure] = [:]
        if metres > 0 {
            all[.distance] = Figure(label: "Distance", value: Self.distance(.distance(metres: metres, units: units)))
        }
        if let seconds = times.movingOrElapsed {
            all[.movingTime] = Figure(label: times.moving == nil ? "Time" : "Moving time", value: Self.duration(seconds))
        }
        switch FeedItem.Measure(activity) {
        case .pace:
            if let pace = FeedItem.pace(distance: metres, seconds: times.movingOrElapsed, units: units) {
                all[.pace] = Figure(label: "Pace", value: Self.pace(pace))
            }
        case .speed:
            if let speed = FeedItem.speed(distance: metres, seconds: times.movingOrElapsed, units: units) {
                all[.pace] = Figure(label: "Speed", value: Self.speed(speed))
            }
        case .none: break
        }
        if let climb = FeedItem.thousandths(figures.elevationGain) {
            all[.climb] = Figure(label: "Climb", value: Self.elevation(.elevation(metres: climb, units: units)))
        }
        if let heartRate = FeedItem.beatsPerMinute(figures.heartRateAverage) {
            all[.heartRate] = Figure(label: "Avg heart rate", value: "\(Int(heartRate)) bpm")
        }
        let shown = chosen.compactMap { all[$0] }
        self.init(
            title: FeedItem.title(name: figures.name, activity: activity, localStart: localStart),
            date: localStart.flatMap { Self.date(localStart: $0, units: units) }, place: figures.place, figures: shown, units: units)
    }

    /// A distance as a card shows it: to a hundredth of a kilometre or mile ("10.01 km", "6.22 mi").
    public static func distance(_ quantity: Quantity) -> String {
        let hundredths = Int((quantity.value * 100).rounded())
        let unit = quantity.unit == .miles ? "mi" : "km"
        return "\(hundredths / 100).\(two(hundredths % 100)) \(unit)"
    }

    /// A time as watches show it: "50:50", "1:02:05".
    public static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// A pace: minutes and seconds a kilometre or a mile ("5:04 /km").
    public static func pace(_ quantity: Quantity) -> String {
        duration(quantity.value) + (quantity.unit == .secondsPerMile ? " /mi" : " /km")
    }

    /// A speed to a tenth ("24.5 km/h", "15.2 mph").
    public static func speed(_ quantity: Quantity) -> String {
        let tenths = Int((quantity.value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)" + (quantity.unit == .milesPerHour ? " mph" : " km/h")
    }

    /// A climb in whole metres or feet ("142 m", "466 ft").
    public static func elevation(_ quantity: Quantity) -> String {
        "\(Int(quantity.value.rounded())) " + (quantity.unit == .feet ? "ft" : "m")
    }

    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// The local date and time of `localStart` (`2026-11-21T23:05:00+01:00`, ``FeedItem/localStart``),
    /// as people of each unit system write it: "Saturday, 21 November 2026 at 23:05" (metric),
    /// "Saturday, November 21, 2026 at 11:05 PM" (imperial). Worked out from the text's own digits,
    /// so that it is the workout's local date whatever the machine's zone.
    public static func date(localStart: String, units: UnitSystem) -> String? {
        let digits = Array(localStart.utf8)
        guard digits.count >= 16 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? { Int(String(decoding: digits[from..<(from + count)], as: UTF8.self)) }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2), let minute = number(14, 2),
            (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        let weekday = weekdays[weekdayIndex(year: year, month: month, day: day)]
        switch units {
        case .metric:
            return "\(weekday), \(day) \(months[month - 1]) \(year) at \(two(hour)):\(two(minute))"
        case .imperial:
            let twelve = hour % 12 == 0 ? 12 : hour % 12
            return "\(weekday), \(months[month - 1]) \(day), \(year) at \(twelve):\(two(minute)) \(hour < 12 ? "AM" : "PM")"
        }
    }

    /// Monday 0 … Sunday 6 of a Gregorian date (Sakamoto's method).
    static func weekdayIndex(year: Int, month: Int, day: Int) -> Int {
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = month < 3 ? year - 1 : year
        let sunday0 = (y + y / 4 - y / 100 + y / 400 + offsets[month - 1] + day) % 7
        return (sunday0 + 6) % 7
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
}
