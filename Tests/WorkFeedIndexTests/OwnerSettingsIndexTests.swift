import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Owners' settings in a real index file (docs/settings.md): stored and read back as they were
/// set, per owner, kept across a restart, refused before storing when out of range, and a row
/// changed behind the index's back named as corrupt.
@Suite struct OwnerSettingsIndexTests {
    @Test func settingsRoundTripPerOwnerAndSurviveARestart() throws {
        let temporary = try TemporaryIndex()
        let alice = OwnerSettings(
            heartRateZones: .maximumHeartRate(190), units: .imperial, timeZone: "America/New_York", firstWeekday: .sunday,
            cardFigures: [.pace, .distance, .heartRate])
        let bob = OwnerSettings(heartRateZones: .bounds([115, 145.5, 172]), firstWeekday: .monday)
        try temporary.index.write { transaction in
            try transaction.setOwnerSettings(alice, owner: "alice")
            try transaction.setOwnerSettings(bob, owner: "bob")
            try transaction.setOwnerSettings(OwnerSettings(units: .metric), owner: "carol")
        }
        #expect(try temporary.index.read { try $0.ownerSettings(owner: "alice") } == alice)
        #expect(try temporary.index.read { try $0.ownerSettings(owner: "bob") } == bob)
        #expect(try temporary.index.read { try $0.ownerSettings(owner: "nobody") }.isEmpty)
        // Only owners with zones of their own are listed for the cache keys.
        let zones = try temporary.index.read { try $0.heartRateZoneSettings() }
        #expect(zones == ["alice": .maximumHeartRate(190), "bob": .bounds([115, 145.5, 172])])
        // Owners whose units or card figures are in their pictures' specs; a card of no figures is
        // a choice too, not unset.
        try temporary.index.write { try $0.setOwnerSettings(OwnerSettings(cardFigures: []), owner: "dan") }
        let pictures = try temporary.index.read { try $0.pictureSettings() }
        #expect(pictures.keys.sorted() == ["alice", "carol", "dan"] && pictures["alice"] == alice && pictures["dan"]?.cardFigures == [])

        let reopened = try temporary.restart()
        #expect(try reopened.read { try $0.ownerSettings(owner: "alice") } == alice)
        // Replacing is whole: what is left out is unset; nothing set removes the row.
        try reopened.write { try $0.setOwnerSettings(OwnerSettings(units: .metric), owner: "alice") }
        #expect(try reopened.read { try $0.ownerSettings(owner: "alice") } == OwnerSettings(units: .metric))
        try reopened.write { try $0.setOwnerSettings(OwnerSettings(), owner: "alice") }
        let rows = try reopened.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM owner_settings WHERE owner = 'alice'") }
        #expect(rows == 0)
        #expect(try reopened.write { try $0.removeOwnerSettings(owner: "bob") })
        #expect(try reopened.read { try $0.heartRateZoneSettings() }.isEmpty)
    }

    @Test func settingsOutOfRangeAreRefusedAndNothingIsStored() throws {
        let temporary = try TemporaryIndex()
        try temporary.index.write { try $0.setOwnerSettings(OwnerSettings(units: .imperial), owner: "alice") }
        for (bad, field) in [
            (OwnerSettings(heartRateZones: .maximumHeartRate(400)), "heartRateZones.maximumHeartRate"),
            (OwnerSettings(heartRateZones: .bounds([150, 140])), "heartRateZones.bounds[1]"), (OwnerSettings(timeZone: "Nowhere/Land"), "timeZone"),
        ] {
            // The index names the write that failed; the cause names the setting.
            let error = try #require(throws: IndexError.self) { try temporary.index.write { try $0.setOwnerSettings(bad, owner: "alice") } }
            #expect((error.cause as? SettingsError)?.field == field)
        }
        #expect(try temporary.index.read { try $0.ownerSettings(owner: "alice") } == OwnerSettings(units: .imperial))
    }

    @Test(arguments: [
        ("hr_bounds", "'[140, 120]'"), ("hr_bounds", "'not json'"), ("hr_maximum", "900"), ("units", "'cubits'"), ("first_weekday", "9"),
    ])
    func aCorruptRowIsNamed(column: String, value: String) throws {
        let temporary = try TemporaryIndex()
        try temporary.index.write {
            try $0.setOwnerSettings(OwnerSettings(heartRateZones: .bounds([120, 140]), units: .metric, firstWeekday: .monday), owner: "alice")
        }
        let queue = try DatabaseQueue(path: temporary.path)
        try queue.write { db in
            if column == "hr_maximum" { try db.execute(sql: "UPDATE owner_settings SET hr_bounds = NULL") }
            try db.execute(sql: "UPDATE owner_settings SET \(column) = \(value)")
        }
        try queue.close()
        let error = try #require(throws: IndexError.self) { try temporary.index.read { try $0.ownerSettings(owner: "alice") } }
        #expect(error.corruptRow?.table == "owner_settings" && error.corruptRow?.column == column && error.corruptRow?.row == "alice")
    }
}
