public import Foundation
import GRDB
public import WorkFeedModel

// MARK: Owner settings (docs/settings.md)

extension IndexTransaction {
    /// Replaces an owner's settings with `settings`, checked first; empty settings remove the
    /// owner's row, so that only owners who set something have one. A new time zone, first
    /// weekday or zones schedules a rebuild of the owner's summaries (``checkSummaryCalendars(owners:)``).
    /// - Throws: ``SettingsError`` for a value out of range (nothing is stored), ``IndexError``.
    public mutating func setOwnerSettings(_ settings: OwnerSettings, owner: String, now: Date = Date()) throws {
        try settings.validate()
        guard !settings.isEmpty else {
            _ = try removeOwnerSettings(owner: owner)
            return
        }
        try db.execute(
            sql: """
                INSERT INTO owner_settings (owner, \(IndexReader.writtenSettingsColumns), updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (owner) DO UPDATE SET hr_maximum = excluded.hr_maximum, hr_bounds = excluded.hr_bounds,
                    units = excluded.units, time_zone = excluded.time_zone, first_weekday = excluded.first_weekday,
                    card_figures = excluded.card_figures, updated_at = excluded.updated_at
                """,
            arguments: StatementArguments(
                [owner.databaseValue] + IndexReader.storedValues(settings).map(\.databaseValue) + [now.timeIntervalSince1970.databaseValue]))
        try checkSummaryCalendars(owners: [owner])
    }

    /// Removes an owner's settings (the owner is leaving).
    /// - Returns: whether there were any.
    public mutating func removeOwnerSettings(owner: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM owner_settings WHERE owner = ?", arguments: [owner])
        let removed = db.changesCount == 1
        try checkSummaryCalendars(owners: [owner])
        return removed
    }
}
