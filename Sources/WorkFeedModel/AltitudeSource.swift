import Foundation

/// How a route's altitudes were measured, as its file tells by who recorded it (a GPX `creator`,
/// a TCX `Creator`'s `Name`, a FIT `file_id`'s manufacturer and product, an Apple Health workout's
/// `sourceName`): it picks the rule its climb is counted by (docs/import.md, "Climb and distance").
/// Never guessed from the numbers: an iPhone writes GPS altitudes with decimals, a Coros Pace 2
/// barometric ones in whole metres.
public enum AltitudeSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A barometric altimeter, or a sport device that filters its altitude itself (Garmin's
    /// watches without one write a smoothed altitude in 0.2 m steps, and count their climb from it).
    case barometric
    /// A GPS receiver's altitude: a phone app, or a watch without an altimeter. Its error wanders
    /// by ten metres and more within minutes.
    case gps

    /// The rule rises are counted by.
    public var climbRule: TrackFigures.ClimbRule {
        switch self {
        case .barometric: .altimeter
        case .gps: .gpsAltitude
        }
    }

    /// Recorders a GPX, TCX or Apple Health file names, as parts of the name (case and accents
    /// ignored), the first that matches deciding. A name none matches is taken for GPS: counting
    /// GPS altitude by the altimeter's rule gave a flat walk in Tokyo 1,737 m of climb (the GPS
    /// rule: 556 m). The other way round costs less where it matters: a barometric device counted
    /// by the GPS rule loses much of its climb (the Wahoo ride: 30 m against its 185 m), but such
    /// devices write their own total, which is shown instead.
    public static let recorders: [(name: String, source: AltitudeSource)] = [
        // Watches and bike computers without a barometric altimeter.
        ("forerunner 305", .gps), ("forerunner305", .gps), ("forerunner 410", .gps), ("polar m400", .gps), ("tomtom", .gps),
        ("fitbit", .gps),
        // Phone apps: the phone's GPS (OpenTracks uses a barometer only to count its own gain).
        ("iphone", .gps), ("open gpx tracker", .gps), ("opentracks", .gps), ("runkeeper", .gps), ("gpslogger", .gps),
        ("osmand", .gps), ("zepp", .gps), ("mapmyride", .gps), ("runtastic", .gps), ("strava", .gps), ("nikeplus", .gps),
        // Devices with a barometric altimeter, and Garmin Connect, which exports their altitude.
        ("apple watch", .barometric), ("garmin connect", .barometric), ("edge", .barometric), ("fenix", .barometric),
        ("oregon", .barometric), ("vivoactive", .barometric), ("forerunner 645", .barometric), ("forerunner 9", .barometric),
        ("wahoo", .barometric), ("elemnt", .barometric), ("coros", .barometric), ("suunto", .barometric),
    ]

    /// The source of a recorder's altitude by its name (``recorders``); GPS for a name none
    /// matches or none at all.
    public init(recorder: String?) {
        let name = (recorder ?? "").folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        self = Self.recorders.first { name.contains($0.name) }?.source ?? .gps
    }

    /// FIT manufacturers (`file_id` field 1) whose sport devices write their own altitude:
    /// Garmin (1), Suunto (23), Wahoo (32), Coros (294).
    public static let fitManufacturers: Set<Int64> = [1, 23, 32, 294]

    /// The source of a FIT file's altitude: a sport device of one of ``fitManufacturers`` writes
    /// its own (barometric, or filtered where it has no barometer: the Venu Sq's rides, in 0.2 m
    /// steps, agree with its own climb within 6 %); any other maker (TomTom, 71; phone apps that
    /// write FIT, Strava's 265) is taken for GPS.
    public init(fitManufacturer manufacturer: Int64?) {
        self = manufacturer.map(Self.fitManufacturers.contains) == true ? .barometric : .gps
    }
}
