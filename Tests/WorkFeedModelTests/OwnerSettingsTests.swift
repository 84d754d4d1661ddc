import Foundation
import Testing
import WorkFeedModel
import WorkFeedTesting

/// An owner's settings as the gateway, the wire and workctl read them (docs/settings.md): strict
/// decoding that names the member that is wrong, the checks, and the zones a maximum heart rate gives.
@Suite struct OwnerSettingsTests {
    func decode(_ text: String) throws(SettingsError) -> OwnerSettings { try OwnerSettings.decode(json: Data(text.utf8)) }

    @Test func everySettingReadsAndWritesTheSameShape() throws {
        let settings = try decode(
            #"{"heartRateZones": {"maximumHeartRate": 190}, "units": "imperial", "timeZone": "Europe/Berlin", "firstWeekday": "Sunday"}"#)
        #expect(settings.heartRateZones == .maximumHeartRate(190))
        #expect(settings.units == .imperial && settings.timeZone == "Europe/Berlin" && settings.firstWeekday == .sunday)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(settings), as: UTF8.self)
        #expect(
            text == #"{"firstWeekday":"sunday","heartRateZones":{"maximumHeartRate":190},"timeZone":"Europe\/Berlin","units":"imperial"}"#)
        #expect(try JSONDecoder().decode(OwnerSettings.self, from: Data(text.utf8)) == settings)
        // Weekdays by number too, as Foundation's Calendar numbers them (1 is Sunday).
        #expect(try decode(#"{"firstWeekday": 2}"#).firstWeekday == .monday)
        #expect(try decode(#"{"heartRateZones": {"bounds": [110, 130, 150]}}"#).heartRateZones == .bounds([110, 130, 150]))
        // Nothing set, and nulls, are the defaults.
        #expect(try decode("{}").isEmpty)
        #expect(try decode(#"{"units": null, "timeZone": null}"#).isEmpty)
    }

    /// The card figures are a list of known figures, each once, kept in the owner's order; a
    /// wrong entry is named by its index.
    @Test func cardFiguresAreKnownFiguresInOrderEachOnce() throws {
        #expect(try decode(#"{"cardFigures": ["pace", "distance"]}"#).cardFigures == [.pace, .distance])
        #expect(try decode(#"{"cardFigures": []}"#).cardFigures == [])
        #expect(try decode(#"{"cardFigures": null}"#).isEmpty)
        for (body, field) in [
            (#"{"cardFigures": ["distance", "speed"]}"#, "cardFigures[1]"), (#"{"cardFigures": ["pace", "pace"]}"#, "cardFigures[1]"),
            (#"{"cardFigures": "pace"}"#, "cardFigures"), (#"{"cardFigures": [3]}"#, "cardFigures"),
        ] {
            #expect(throws: SettingsError.self, "\(body)") { try decode(body) }
            do {
                _ = try decode(body)
            } catch {
                #expect(error.field == field, "\(body): \(error)")
            }
        }
        let patch = try OwnerSettingsPatch.decode(json: Data(#"{"cardFigures": null}"#.utf8))
        #expect(patch.applied(to: OwnerSettings(units: .imperial, cardFigures: [.climb])) == OwnerSettings(units: .imperial))
    }

    /// `PATCH /v1/settings` bodies: a value sets, `null` unsets, absence keeps (RFC 7396).
    @Test func aMergePatchSetsUnsetsAndKeeps() throws {
        let stored = OwnerSettings(heartRateZones: .maximumHeartRate(190), units: .metric, timeZone: "Europe/Berlin")
        let patch = try OwnerSettingsPatch.decode(json: Data(#"{"units": "imperial", "timeZone": null}"#.utf8))
        #expect(patch.set == OwnerSettings(units: .imperial) && patch.unset == [.timeZone])
        #expect(patch.applied(to: stored) == OwnerSettings(heartRateZones: .maximumHeartRate(190), units: .imperial))
        // Zones are one value: a patch replaces them whole.
        let zones = try OwnerSettingsPatch.decode(json: Data(#"{"heartRateZones": {"bounds": [120, 140, 160]}}"#.utf8))
        #expect(zones.applied(to: stored).heartRateZones == .bounds([120, 140, 160]))
        #expect(try OwnerSettingsPatch.decode(json: Data("{}".utf8)).isEmpty)
        #expect(try OwnerSettingsPatch.decode(json: Data("{}".utf8)).applied(to: stored) == stored)
        #expect(
            throws: SettingsError(
                .unknownField, field: "colour",
                message: "colour is not a setting (known here: heartRateZones, units, timeZone, firstWeekday, cardFigures)")
        ) {
            try OwnerSettingsPatch.decode(json: Data(#"{"colour": null}"#.utf8))
        }
        for body in ["null", "[]", "3"] {
            #expect(performing: { try OwnerSettingsPatch.decode(json: Data(body.utf8)) }, throws: { ($0 as? SettingsError)?.code == .notAnObject })
        }
    }

    @Test(arguments: [
        (#"{"colour": "red"}"#, "colour", SettingsError.Code.unknownField),
        (#"{"heartRateZones": {"maximumHeartRate": 190, "resting": 50}}"#, "heartRateZones.resting", .unknownField),
        (#"{"heartRateZones": {"maximumHeartRate": 190, "bounds": [120]}}"#, "heartRateZones", .wrongType),
        (#"{"heartRateZones": {}}"#, "heartRateZones", .wrongType),
        (#"{"heartRateZones": {"maximumHeartRate": "fast"}}"#, "heartRateZones.maximumHeartRate", .wrongType),
        (#"{"heartRateZones": {"maximumHeartRate": 300}}"#, "heartRateZones.maximumHeartRate", .outOfRange),
        (#"{"heartRateZones": {"maximumHeartRate": 60}}"#, "heartRateZones.maximumHeartRate", .outOfRange),
        (#"{"heartRateZones": {"bounds": [120, 110, 150]}}"#, "heartRateZones.bounds[1]", .outOfRange),
        (#"{"heartRateZones": {"bounds": [120, 140, 260]}}"#, "heartRateZones.bounds[2]", .outOfRange),
        (#"{"heartRateZones": {"bounds": [20, 140, 160]}}"#, "heartRateZones.bounds[0]", .outOfRange),
        (#"{"heartRateZones": {"bounds": []}}"#, "heartRateZones.bounds", .outOfRange),
        (#"{"heartRateZones": {"bounds": [120, "x"]}}"#, "heartRateZones.bounds", .wrongType),
        (#"{"units": "furlongs"}"#, "units", .outOfRange),
        (#"{"units": 1}"#, "units", .wrongType),
        (#"{"timeZone": "Mars/Olympus_Mons"}"#, "timeZone", .unknownTimeZone),
        (#"{"timeZone": "../../etc/passwd"}"#, "timeZone", .unknownTimeZone),
        (#"{"timeZone": 2}"#, "timeZone", .wrongType),
        (#"{"firstWeekday": 8}"#, "firstWeekday", .outOfRange),
        (#"{"firstWeekday": "someday"}"#, "firstWeekday", .outOfRange),
    ])
    func badSettingsNameTheirField(body: String, field: String, code: SettingsError.Code) {
        do {
            _ = try decode(body)
            Issue.record("\(body) was accepted")
        } catch {
            #expect(error.field == field, "\(body): \(error)")
            #expect(error.code == code, "\(body): \(error)")
        }
    }

    @Test func aBodyThatIsNotAnObjectIsRefusedAsAWhole() {
        for body in ["not json", "[1, 2]", "190", ""] {
            do {
                _ = try decode(body)
                Issue.record("\(body) was accepted")
            } catch {
                #expect(error.code == .notAnObject && error.field == nil, "\(body): \(error)")
            }
        }
    }

    /// The five-zone model's percentages, its lowest zones merged for a heatmap with fewer zones.
    @Test func aMaximumHeartRateGivesTheZonesOfTheFiveZoneModel() throws {
        #expect(HeartRateZoneBounds.defaultPercentages(boundCount: 4) == [60, 70, 80, 90])
        #expect(HeartRateZoneBounds.defaultPercentages(boundCount: 3) == [70, 80, 90])
        #expect(HeartRateZoneBounds.defaultPercentages(boundCount: 5) == nil)
        let percentages = try #require(HeartRateZoneBounds.defaultPercentages(boundCount: 3))
        let zones = HeartRateZoneBounds.resolve(.maximumHeartRate(190), configured: [100, 140, 180], percentages: percentages)
        #expect(zones == HeartRateZoneBounds(bounds: [133, 152, 171], source: .maximumHeartRate))
        #expect(HeartRateZoneSetting.maximumHeartRate(185).thresholds(percentages: [60, 70, 80, 90]) == [111, 130, 148, 167])
        // Unset: the configured zones. Bounds for another number of zones: the configured ones too.
        #expect(HeartRateZoneBounds.resolve(nil, configured: [100, 140, 180], percentages: percentages).source == .configured)
        let misfit = HeartRateZoneBounds.resolve(.bounds([120, 150]), configured: [100, 140, 180], percentages: percentages)
        #expect(misfit == HeartRateZoneBounds(bounds: [100, 140, 180], source: .configured))
        let own = HeartRateZoneBounds.resolve(.bounds([120, 150, 170]), configured: [100, 140, 180], percentages: percentages)
        #expect(own == HeartRateZoneBounds(bounds: [120, 150, 170], source: .bounds))
    }

    @Test func explicitBoundsMustFillTheHeatmapsZones() throws {
        let settings = OwnerSettings(heartRateZones: .bounds([120, 150]))
        try settings.validate()
        do {
            try settings.validate(zoneCount: 4)
            Issue.record("two bounds accepted for four zones")
        } catch {
            #expect(error.code == .zoneCount && error.field == "heartRateZones.bounds")
        }
        try settings.validate(zoneCount: 3)
    }

    @Test func mergingAndUnsettingKeepTheRest() {
        let stored = OwnerSettings(heartRateZones: .maximumHeartRate(190), units: .imperial, timeZone: "Europe/Berlin", firstWeekday: .monday)
        let merged = stored.merging(OwnerSettings(units: .metric))
        #expect(merged == OwnerSettings(heartRateZones: .maximumHeartRate(190), units: .metric, timeZone: "Europe/Berlin", firstWeekday: .monday))
        #expect(merged.unsetting([.heartRateZones, .timeZone]) == OwnerSettings(units: .metric, firstWeekday: .monday))
    }

    /// Issue 37, item 8: every zone and link of the system's tz database is accepted (Foundation's
    /// list on Linux is ICU's canonical ids, which leave out `Asia/Kolkata`, `Etc/UTC` and more),
    /// and each opens as a `TimeZone`, which summaries count in. Before, 154 of tzdata 2025b's 598
    /// were refused.
    @Test func everyZoneOfTheSystemsTzDatabaseIsAccepted() throws {
        let (zones, source) = try SystemTimeZones.all()
        #expect(zones.count > 400, "\(source) lists only \(zones.count) zones")
        let refused = zones.filter { zone in
            do {
                try OwnerSettings.checkTimeZone(zone)
                return false
            } catch {
                return true
            }
        }
        #expect(refused.isEmpty, "\(refused.count) of the \(zones.count) zones of \(source) refused: \(refused.joined(separator: ", "))")
        #expect(zones.allSatisfy { TimeZone(identifier: $0) != nil })
        for alias in ["Asia/Kolkata", "Asia/Calcutta", "Etc/UTC", "UTC", "US/Eastern", "Europe/Kyiv", "Europe/Kiev"] {
            #expect(throws: Never.self) { try OwnerSettings.checkTimeZone(alias) }
        }
    }
}
