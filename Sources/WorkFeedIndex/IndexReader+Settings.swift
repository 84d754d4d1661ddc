import Foundation
import GRDB
public import WorkFeedModel

// MARK: Owner settings (docs/settings.md)

extension IndexReader {
    /// An owner's settings; empty when they set none.
    /// - Throws: ``IndexError`` naming the column of a stored value this version cannot read.
    public func ownerSettings(owner: String) throws -> OwnerSettings {
        guard
            let row = try Row.fetchOne(db, sql: "SELECT \(Self.settingsColumns) FROM owner_settings WHERE owner = ?", arguments: [owner])
        else { return OwnerSettings() }
        return try Self.ownerSettings(row)
    }

    /// The columns of `owner_settings` ``ownerSettings(_:)`` reads, in its order.
    public static let settingsColumns = "owner, hr_maximum, hr_bounds, units, time_zone, first_weekday, card_figures"

    /// The columns of `owner_settings` an owner's settings are written to, in the order of ``storedValues(_:)``.
    public static let writtenSettingsColumns = "hr_maximum, hr_bounds, units, time_zone, first_weekday, card_figures"

    /// Validated settings as stored, in the order of ``writtenSettingsColumns``: zones as a maximum
    /// heart rate or as bounds in JSON (one of them), the rest as their words and numbers.
    public static func storedValues(_ settings: OwnerSettings) -> [StoredValue] {
        var maximum = StoredValue.null
        var bounds = StoredValue.null
        switch settings.heartRateZones {
        case .maximumHeartRate(let value)?: maximum = .real(value)
        case .bounds(let values)?:
            // Validated settings hold finite numbers, which JSON always encodes.
            bounds = (try? JSONEncoder().encode(values)).map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null
        case nil: break
        }
        return [
            maximum, bounds, settings.units.map { .text($0.rawValue) } ?? .null, settings.timeZone.map(StoredValue.text) ?? .null,
            settings.firstWeekday.map { .integer(Int64($0.rawValue)) } ?? .null,
            // The figures' names, comma-separated; "" for a card of no figures.
            settings.cardFigures.map { .text($0.map(\.rawValue).joined(separator: ",")) } ?? .null,
        ]
    }

    /// Settings from a row of ``settingsColumns``.
    static func ownerSettings(_ row: some StoredRow) throws(IndexError) -> OwnerSettings {
        let decoder = RowDecoder(row, table: "owner_settings")
        var settings = OwnerSettings()
        settings.heartRateZones = try heartRateZones(decoder, row: row)
        settings.units = try decoder.optionalKnown(3, "units")
        settings.timeZone = try decoder.optionalValue(4, "time_zone")
        if let number: Int = try decoder.optionalValue(5, "first_weekday") {
            guard let day = Weekday(rawValue: number) else { throw decoder.corrupt("first_weekday", row.storedValue(5)) }
            settings.firstWeekday = day
        }
        if let text: String = try decoder.optionalValue(6, "card_figures") {
            do {
                settings.cardFigures = try OwnerSettings.cardFigures(text.split(separator: ",").map(String.init))
            } catch {
                throw decoder.corrupt("card_figures", row.storedValue(6))
            }
        }
        return settings
    }

    /// The settings of every owner who set `units` or `cardFigures`.
    public func pictureSettings() throws -> [String: OwnerSettings] {
        var settings: [String: OwnerSettings] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.settingsColumns) FROM owner_settings WHERE \(Self.picturesSettingsCondition)")
        while let row = try rows.next() {
            let decoder = RowDecoder(row, table: "owner_settings")
            settings[try decoder.value(0, "owner")] = try Self.ownerSettings(row)
        }
        return settings
    }

    /// The rows of owners whose settings are in pictures' specs besides their heart-rate zones.
    public static let picturesSettingsCondition = "units IS NOT NULL OR card_figures IS NOT NULL"

    /// Every owner's heart-rate zone setting, for the owners that have one (read at start, for the
    /// cache keys of their heatmaps).
    public func heartRateZoneSettings() throws -> [String: HeartRateZoneSetting] {
        var settings: [String: HeartRateZoneSetting] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT owner, hr_maximum, hr_bounds FROM owner_settings WHERE hr_maximum IS NOT NULL OR hr_bounds IS NOT NULL")
        while let row = try rows.next() {
            let decoder = RowDecoder(row, table: "owner_settings")
            settings[try decoder.value(0, "owner")] = try Self.heartRateZones(decoder, row: row)
        }
        return settings
    }

    /// The zones of a row whose columns 1 and 2 are `hr_maximum` and `hr_bounds`, checked as they
    /// were when stored: a value changed outside WorkFeed is a corrupt row, not a zone.
    private static func heartRateZones<Source: StoredRow>(_ decoder: RowDecoder<Source>, row: Source) throws(IndexError) -> HeartRateZoneSetting? {
        let setting: HeartRateZoneSetting
        if let maximum: Double = try decoder.optionalValue(1, "hr_maximum") {
            setting = .maximumHeartRate(maximum)
            guard (try? setting.validate()) != nil else { throw decoder.corrupt("hr_maximum", row.storedValue(1)) }
        } else if let text: String = try decoder.optionalValue(2, "hr_bounds") {
            guard let bounds = try? JSONDecoder().decode([Double].self, from: Data(text.utf8)) else {
                throw decoder.corrupt("hr_bounds", row.storedValue(2))
            }
            setting = .bounds(bounds)
            guard (try? setting.validate()) != nil else { throw decoder.corrupt("hr_bounds", row.storedValue(2)) }
        } else {
            return nil
        }
        return setting
    }
}
