/// Where a workout's time-zone offset and zone came from (docs/import.md, "Time zones").
public enum TimeZoneSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The file's timestamps carry the offset (`+02:00` in GPX or TCX, FIT's `local_timestamp`).
    /// The zone, when there is one, is the position's, kept only when its offset at the start
    /// is the file's.
    case file
    /// Apple Health's `HKTimeZone` metadata entry: the zone, and the offset from its rules.
    case appleHealth = "apple-health"
    /// No offset in the file: the zone looked up from the first valid position, the offset from
    /// its rules at the start (daylight saving included).
    case position

    /// How `workctl show` says it.
    public var phrase: String {
        switch self {
        case .file: "from the file"
        case .appleHealth: "from Apple Health's time-zone metadata"
        case .position: "looked up from where it started"
        }
    }
}
