/// A figure with its unit named, in the owner's units: `{"unit": "km", "value": 10.0125}`.
///
/// The one shape of every figure whose unit follows the owner's `units` setting (metric or
/// imperial): a workout's distance, elevation gain, pace and speed (``FeedItem``), a summary
/// bucket's distance and elevation gain and its longest and fastest workouts' (``SummaryFigures``),
/// in the API, the control protocol's FEED, SHOW and SUMMARY, `workctl feed --json` and `workctl
/// summary --json`, and the feed page. A figure whose unit is the same for every owner (seconds,
/// beats a minute, kilocalories) is a bare number in that unit (docs/gateway.md, "Figures").
///
/// Built by ``distance(metres:units:)``, ``elevation(metres:units:)``, ``FeedItem/pace(distance:seconds:units:)``
/// and ``FeedItem/speed(distance:seconds:units:)``, each rounding as its figure is measured.
public struct Quantity: Codable, Sendable, Hashable {
    public var value: Double
    public var unit: Unit

    public init(value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Every unit a ``Quantity`` is given in: one per figure and unit system.
    public enum Unit: String, Codable, Sendable, Hashable, CaseIterable {
        case kilometres = "km"
        case miles = "mi"
        case metres = "m"
        case feet = "ft"
        case secondsPerKilometre = "s/km"
        case secondsPerMile = "s/mi"
        case kilometresPerHour = "km/h"
        case milesPerHour = "mph"

        /// The unit of a distance in `units`.
        public static func distance(in units: UnitSystem) -> Unit {
            switch units {
            case .metric: .kilometres
            case .imperial: .miles
            }
        }

        /// The unit of an elevation in `units`.
        public static func elevation(in units: UnitSystem) -> Unit {
            switch units {
            case .metric: .metres
            case .imperial: .feet
            }
        }

        /// Metres in one of this unit, for lengths; `nil` for a pace or a speed.
        public var metres: Double? {
            switch self {
            case .kilometres: 1000
            case .miles: 1609.344
            case .metres: 1
            case .feet: 0.3048
            case .secondsPerKilometre, .secondsPerMile, .kilometresPerHour, .milesPerHour: nil
            }
        }
    }

    /// The length in metres, for a distance or an elevation; `nil` for a pace or a speed.
    public var metres: Double? { unit.metres.map { value * $0 } }

    /// A distance in kilometres or miles, to a millionth of one (a millimetre, or 1.6 mm: the
    /// unit the summaries keep, so that a feed's distances add up to its buckets' to the digit in
    /// kilometres, and within a millionth a workout in miles).
    public static func distance(metres: Double, units: UnitSystem) -> Quantity {
        let unit = Unit.distance(in: units)
        return Quantity(value: rounded(metres / unit.metres!, places: 1_000_000), unit: unit)
    }

    /// An elevation gain in metres or feet, to a thousandth (a millimetre, or 0.3 mm).
    public static func elevation(metres: Double, units: UnitSystem) -> Quantity {
        let unit = Unit.elevation(in: units)
        return Quantity(value: rounded(metres / unit.metres!, places: 1000), unit: unit)
    }

    /// The same length in `units` (a distance stays a distance, an elevation an elevation); a
    /// pace or a speed as it is (it is built in the owner's units from the start).
    public func expressed(in units: UnitSystem) -> Quantity {
        guard let metres else { return self }
        switch unit {
        case .kilometres, .miles: return .distance(metres: metres, units: units)
        case .metres, .feet: return .elevation(metres: metres, units: units)
        case .secondsPerKilometre, .secondsPerMile, .kilometresPerHour, .milesPerHour: return self
        }
    }

    /// `value` to the nearest `1 / places`, halves away from zero; the noise of the division
    /// (10.0125000000001) is gone once written.
    static func rounded(_ value: Double, places: Double) -> Double { (value * places).rounded() / places }
}
