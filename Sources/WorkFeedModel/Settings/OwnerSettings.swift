public import Foundation
import WorkFeedTimeZones

/// What an owner has chosen for their own pictures and figures (DESIGN.md, "Owners' settings";
/// docs/settings.md): one shape for the control protocol's SETTINGS, the gateway's
/// `GET`/`PUT /v1/settings` and `workctl settings --json`.
///
/// Every member is optional: absent means unset, and the default applies (the configured heart-rate
/// zones, metric units, the zone of the owner's latest workout, Monday). The heart-rate zones and
/// the units change pictures: the zones are in the specs of the owner's heatmaps and share cards
/// (their zone bar), the units in those of their pace and elevation pictures and share cards
/// (their figures), and the card figures (which figures a share card shows, in order) in those of
/// share cards, so in those pictures' cache keys; time zone and first weekday are kept for the
/// figures and summaries that use them, and change no picture's key.
///
/// ```json
/// {"heartRateZones": {"maximumHeartRate": 190}, "units": "imperial", "timeZone": "Europe/Berlin", "firstWeekday": "monday",
///  "cardFigures": ["distance", "pace", "heartRate"]}
/// ```
///
/// Decoding is strict: a member it does not know is refused with its name (``SettingsError``),
/// so that a misspelt setting is never silently dropped.
public struct OwnerSettings: Sendable, Hashable, Codable {
    public var heartRateZones: HeartRateZoneSetting?
    public var units: UnitSystem?
    /// An IANA time-zone id (`Europe/Berlin`), one the system's tz database knows, links
    /// (`Asia/Calcutta`, `Etc/UTC`) included.
    public var timeZone: String?
    public var firstWeekday: Weekday?
    /// The figures the owner's share cards show, in the order shown (each at most once; none is
    /// a card of its title, date and charts); unset: every figure (``ShareCardFigure/allCases``).
    public var cardFigures: [ShareCardFigure]?

    /// The members, by their JSON names: what `unset` names, and what decoding accepts.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable, CodingKey {
        case heartRateZones
        case units
        case timeZone
        case firstWeekday
        case cardFigures
    }

    public init(
        heartRateZones: HeartRateZoneSetting? = nil, units: UnitSystem? = nil, timeZone: String? = nil, firstWeekday: Weekday? = nil,
        cardFigures: [ShareCardFigure]? = nil
    ) {
        self.heartRateZones = heartRateZones
        self.units = units
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.cardFigures = cardFigures
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == OwnerSettings() }

    /// These settings with `other`'s set members taken over (what `workctl settings set` asks for).
    public func merging(_ other: OwnerSettings) -> OwnerSettings {
        OwnerSettings(
            heartRateZones: other.heartRateZones ?? heartRateZones, units: other.units ?? units, timeZone: other.timeZone ?? timeZone,
            firstWeekday: other.firstWeekday ?? firstWeekday, cardFigures: other.cardFigures ?? cardFigures)
    }

    /// These settings with `fields` unset.
    public func unsetting(_ fields: some Sequence<Field>) -> OwnerSettings {
        var settings = self
        for field in fields {
            switch field {
            case .heartRateZones: settings.heartRateZones = nil
            case .units: settings.units = nil
            case .timeZone: settings.timeZone = nil
            case .firstWeekday: settings.firstWeekday = nil
            case .cardFigures: settings.cardFigures = nil
            }
        }
        return settings
    }

    /// Checks every set member: zone bounds (``HeartRateZoneSetting/validate(zoneCount:)``) and a
    /// time zone the system's tz database knows. Units and weekday are checked by decoding.
    /// - Parameter zoneCount: the number of zones the heatmap style has (its colours), which
    ///   explicit bounds must fill; `nil` where it is not known (the gateway), leaving that check
    ///   to the coordinator.
    /// - Throws: ``SettingsError`` naming the member (`heartRateZones.bounds[1]`, `timeZone`).
    public func validate(zoneCount: Int? = nil) throws(SettingsError) {
        try heartRateZones?.validate(zoneCount: zoneCount)
        if let timeZone { try Self.checkTimeZone(timeZone) }
    }

    /// The longest time-zone id accepted (the tz database's longest is 32 bytes).
    public static let maximumTimeZoneBytes = 64

    /// Refuses a time-zone id the system's tz database does not know. The id is looked up in a set
    /// of names read once (`KnownTimeZones`, below), never opened as a path.
    public static func checkTimeZone(_ identifier: String) throws(SettingsError) {
        guard identifier.utf8.count <= maximumTimeZoneBytes, KnownTimeZones.names.contains(identifier) else {
            throw SettingsError(
                .unknownTimeZone, field: Field.timeZone.rawValue,
                message:
                    "'\(String(identifier.prefix(64)).escapedForDisplay)' is not an IANA time-zone id this system knows (such as Europe/Berlin or America/New_York)"
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try AnyKey.refuseUnknown(in: container, known: Field.allCases.map(\.rawValue), at: decoder.codingPath)
        heartRateZones = try container.settingsField(HeartRateZoneSetting.self, Field.heartRateZones.rawValue, expected: "an object")
        units = try container.settingsField(UnitSystem.self, Field.units.rawValue, expected: "metric or imperial")
        timeZone = try container.settingsField(String.self, Field.timeZone.rawValue, expected: "a text (an IANA time-zone id)")
        firstWeekday = try container.settingsField(Weekday.self, Field.firstWeekday.rawValue, expected: "1...7 (1 is Sunday) or a day's name")
        let figureNames = ShareCardFigure.allCases.map(\.rawValue).joined(separator: ", ")
        if let names = try container.settingsField([String].self, Field.cardFigures.rawValue, expected: "a list of figures (\(figureNames))") {
            cardFigures = try Self.cardFigures(names)
        }
    }

    /// The figures named by `names`, each a ``ShareCardFigure`` named once.
    /// - Throws: ``SettingsError`` naming the entry (`cardFigures[2]`).
    public static func cardFigures(_ names: [String]) throws(SettingsError) -> [ShareCardFigure] {
        var figures: [ShareCardFigure] = []
        for (index, name) in names.enumerated() {
            let field = "\(Field.cardFigures.rawValue)[\(index)]"
            guard let figure = ShareCardFigure(rawValue: name) else {
                let known = ShareCardFigure.allCases.map(\.rawValue).joined(separator: ", ")
                throw SettingsError(
                    .outOfRange, field: field, message: "'\(String(name.prefix(40)).escapedForDisplay)' is not a card figure: one of \(known)")
            }
            guard !figures.contains(figure) else {
                throw SettingsError(.outOfRange, field: field, message: "\(name) is named twice: each figure at most once")
            }
            figures.append(figure)
        }
        return figures
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encodeIfPresent(heartRateZones, forKey: .heartRateZones)
        try container.encodeIfPresent(units, forKey: .units)
        try container.encodeIfPresent(timeZone, forKey: .timeZone)
        try container.encodeIfPresent(firstWeekday, forKey: .firstWeekday)
        try container.encodeIfPresent(cardFigures, forKey: .cardFigures)
    }

    /// Settings from a JSON object (a `PUT /v1/settings` body), every member checked that can be
    /// without the coordinator's configuration (``validate(zoneCount:)``).
    /// - Throws: ``SettingsError`` naming the member that is wrong, or ``SettingsError/Code/notAnObject``.
    public static func decode(json: Data) throws(SettingsError) -> OwnerSettings {
        let settings: OwnerSettings
        do {
            settings = try JSONDecoder().decode(OwnerSettings.self, from: json)
        } catch let error as SettingsError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            let field = AnyKey.path(context.codingPath)
            throw SettingsError(.wrongType, field: field, message: "\(field) has the wrong type")
        } catch {
            throw SettingsError(
                .notAnObject, field: nil,
                message:
                    "the body is not a JSON object of settings: send {\"heartRateZones\": {\"maximumHeartRate\": 190}, \"units\": \"metric\", ...}")
        }
        try settings.validate()
        return settings
    }
}

/// An owner's heart-rate zones: from their maximum heart rate, or as explicit bounds.
///
/// `{"maximumHeartRate": 190}` sets each zone's lower bound at a configured percentage of the
/// maximum (`heatmap.max_hr_percentages`, docs/settings.md); `{"bounds": [120, 140, 160]}` gives
/// the lower bounds of the zones above the first in bpm, as the heatmap style's `thresholds` do.
public enum HeartRateZoneSetting: Sendable, Hashable, Codable {
    case maximumHeartRate(Double)
    case bounds([Double])

    /// The maximum heart rates accepted, in bpm.
    public static let maximumHeartRateRange: ClosedRange<Double> = 100...250
    /// Where every bound must lie, in bpm.
    public static let boundRange: ClosedRange<Double> = 30...250
    /// The most bounds (zones less one) accepted.
    public static let maximumBounds = 15

    enum Key: String, CaseIterable {
        case maximumHeartRate
        case bounds
    }

    /// The zones' lower bounds above the first, in bpm: the given bounds, or each percentage of
    /// the maximum, rounded to a whole bpm.
    /// - Parameter percentages: strictly increasing, at least one point apart, so that rounding
    ///   keeps the bounds increasing for any maximum of at least 100 bpm.
    public func thresholds(percentages: [Double]) -> [Double] {
        switch self {
        case .maximumHeartRate(let maximum): percentages.map { (maximum * $0 / 100).rounded() }
        case .bounds(let bounds): bounds
        }
    }

    /// Refuses a maximum outside ``maximumHeartRateRange``; bounds outside ``boundRange``, not
    /// strictly increasing, or (with `zoneCount`) not one fewer than the zones.
    public func validate(zoneCount: Int? = nil) throws(SettingsError) {
        let prefix = OwnerSettings.Field.heartRateZones.rawValue
        switch self {
        case .maximumHeartRate(let maximum):
            let range = Self.maximumHeartRateRange
            guard maximum.isFinite, range.contains(maximum) else {
                throw SettingsError(
                    .outOfRange, field: "\(prefix).\(Key.maximumHeartRate.rawValue)",
                    message: "\(maximum) bpm is outside \(Int(range.lowerBound))...\(Int(range.upperBound)) bpm")
            }
        case .bounds(let bounds):
            let field = "\(prefix).\(Key.bounds.rawValue)"
            guard !bounds.isEmpty, bounds.count <= Self.maximumBounds else {
                throw SettingsError(.outOfRange, field: field, message: "give 1 to \(Self.maximumBounds) bounds, not \(bounds.count)")
            }
            for (index, bound) in bounds.enumerated() {
                guard bound.isFinite, Self.boundRange.contains(bound) else {
                    throw SettingsError(
                        .outOfRange, field: "\(field)[\(index)]",
                        message: "\(bound) bpm is outside \(Int(Self.boundRange.lowerBound))...\(Int(Self.boundRange.upperBound)) bpm")
                }
                if index > 0, !(bounds[index - 1] < bound) {
                    throw SettingsError(
                        .outOfRange, field: "\(field)[\(index)]", message: "\(bound) bpm is not above the bound before it (\(bounds[index - 1]))")
                }
            }
            if let zoneCount, bounds.count != zoneCount - 1 {
                throw SettingsError(
                    .zoneCount, field: field,
                    message:
                        "the heatmap has \(zoneCount) zones, so \(zoneCount - 1) bounds (the lowest bpm of each zone above the first), not \(bounds.count)"
                )
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try AnyKey.refuseUnknown(in: container, known: Key.allCases.map(\.rawValue), at: decoder.codingPath)
        let maximum = try container.settingsField(Double.self, Key.maximumHeartRate.rawValue, expected: "a number (bpm)")
        let bounds = try container.settingsField([Double].self, Key.bounds.rawValue, expected: "a list of numbers (bpm)")
        switch (maximum, bounds) {
        case (let maximum?, nil): self = .maximumHeartRate(maximum)
        case (nil, let bounds?): self = .bounds(bounds)
        case (.some, .some), (nil, nil):
            throw SettingsError(
                .wrongType, field: AnyKey.path(decoder.codingPath),
                message: "heart-rate zones are either {\"maximumHeartRate\": bpm} or {\"bounds\": [bpm, ...]}, one of the two")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        switch self {
        case .maximumHeartRate(let maximum): try container.encode(maximum, forKey: AnyKey(Key.maximumHeartRate.rawValue))
        case .bounds(let bounds): try container.encode(bounds, forKey: AnyKey(Key.bounds.rawValue))
        }
    }
}

/// How distances, paces and speeds are shown.
public enum UnitSystem: String, Sendable, Hashable, Codable, CaseIterable {
    case metric
    case imperial

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let units = UnitSystem(rawValue: text) else {
            let field = AnyKey.path(decoder.codingPath)
            throw SettingsError(.outOfRange, field: field, message: "'\(String(text.prefix(40)).escapedForDisplay)' is not metric or imperial")
        }
        self = units
    }
}

/// A day of the week, numbered as Foundation's `Calendar.firstWeekday` numbers them: 1 is Sunday,
/// 2 Monday, … 7 Saturday. Written as its English name; read from the name or the number.
public enum Weekday: Int, Sendable, Hashable, Codable, CaseIterable {
    case sunday = 1
    case monday, tuesday, wednesday, thursday, friday, saturday

    public var name: String { String(describing: self) }

    /// From `1...7` or a day's English name (any case).
    public init?(text: String) {
        if let number = Int(text) {
            self.init(rawValue: number)
        } else if let day = Self.allCases.first(where: { $0.name == text.lowercased() }) {
            self = day
        } else {
            return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let field = AnyKey.path(decoder.codingPath)
        let problem = SettingsError(.outOfRange, field: field, message: "a weekday is 1...7 (1 is Sunday, 2 Monday) or its name, such as monday")
        if let number = try? container.decode(Int.self) {
            guard let day = Weekday(rawValue: number) else { throw problem }
            self = day
        } else {
            guard let text = try? container.decode(String.self), let day = Weekday(text: text) else { throw problem }
            self = day
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// An owner's settings refused: what is wrong (``Code``, for callers to switch on), which member
/// (``field``, a dotted path such as `heartRateZones.bounds[2]`), and a message for people.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// A member settings do not have.
        case unknownField = "unknown-field"
        /// A member of the wrong JSON type, or a zone setting with both or neither form.
        case wrongType = "wrong-type"
        /// A value outside what is allowed.
        case outOfRange = "out-of-range"
        /// A time zone the tz database does not know.
        case unknownTimeZone = "unknown-time-zone"
        /// Explicit bounds that do not fill the heatmap's zones.
        case zoneCount = "zone-count"
        /// The whole body is not a JSON object.
        case notAnObject = "not-an-object"
    }

    public var code: Code
    /// The member that is wrong; `nil` when it is the whole document.
    public var field: String?
    public var message: String

    public init(_ code: Code, field: String?, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}

/// A JSON member by name: lets settings see every member they were sent, to refuse the unknown.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// `heartRateZones.bounds[2]`: a coding path as settings name their members.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// Refuses the first member (in name order) that is not among `known`.
    static func refuseUnknown(in container: KeyedDecodingContainer<AnyKey>, known: [String], at path: [any CodingKey]) throws {
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !known.contains(key.stringValue) {
            let field = Self.path(path + [AnyKey(String(key.stringValue.prefix(40)))])
            throw SettingsError(.unknownField, field: field, message: "\(field) is not a setting (known here: \(known.joined(separator: ", ")))")
        }
    }
}

extension KeyedDecodingContainer where Key == AnyKey {
    /// A member, `nil` when absent or null; of another type: a ``SettingsError`` naming it.
    fileprivate func settingsField<T: Decodable>(_ type: T.Type, _ name: String, expected: String) throws -> T? {
        let key = AnyKey(name)
        do {
            return try decodeIfPresent(T.self, forKey: key)
        } catch let error as SettingsError {
            throw error
        } catch {
            let field = AnyKey.path(codingPath + [key])
            throw SettingsError(.wrongType, field: field, message: "\(field) must be \(expected)")
        }
    }
}

/// The zone ids settings accept, read once: every zone and link of the system's tz database
/// (``TimeZoneNames/system``, its `tzdata.zi`) and Foundation's known identifiers, each kept only
/// when Foundation opens it, since summaries count in it (docs/settings.md, "Time zones").
private enum KnownTimeZones {
    static let names: Set<String> = TimeZoneNames.system.union(TimeZone.knownTimeZoneIdentifiers).union(["UTC"]).filter {
        TimeZone(identifier: $0) != nil
    }
}
