import Foundation
import Testing
import WorkFeedModel
import WorkFeedTimeZones

/// The names of the system's tz database (`TimeZoneNames`, issue 37 item 8): zones and links read
/// from `tzdata.zi`, nothing else taken for a name, and every zone a workout can be given by its
/// position is one its owner can set.
@Suite struct TimeZoneNamesTests {
    @Test func zonesAndLinksAreReadAndNothingElseIsAName() {
        let text = """
            # version 2025b
            R E 1981 ma - Mar lastSu 1u 1 S
            Z Asia/Kolkata 5:53:28 - LMT 1854 Jun 28
            5:53:20 - HMT 1870
            5:30 - IST
            Z Etc/UTC 0 - UTC
            L Asia/Kolkata Asia/Calcutta
            L Etc/UTC UTC
            L Etc/UTC
            Z
            Z ../../etc/passwd 0 - X
            L Etc/UTC /etc/shadow
            Z\tEurope/Berlin\t1 - CET
            """
        #expect(TimeZoneNames.names(inTzdataZi: text) == ["Asia/Kolkata", "Etc/UTC", "Asia/Calcutta", "UTC", "Europe/Berlin"])
        #expect(TimeZoneNames.names(inTzdataZi: "").isEmpty)
        // Any bytes at all: never a trap, never a name that is not a zone id's form.
        let seed: UInt64 = 0x7A_0037
        print("TimeZoneNames fuzz seed: \(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let bytes = (0..<Int(random.next() % 400)).map { _ in
                [UInt8(ascii: "Z"), UInt8(ascii: "L"), 0x20, 0x0A, 0x2F, 0x2E, 0xC3][Int(random.next() % 7)]
            }
            let names = TimeZoneNames.names(inTzdataZi: String(decoding: bytes, as: UTF8.self))
            #expect(names.allSatisfy(TimeZoneMap.isZoneIdentifier), "seed \(seed)")
        }
    }

    @Test func theSystemsDatabaseIsRead() throws {
        let file = try #require(TimeZoneNames.file, "no tzdata.zi under $TZDIR or /usr/share/zoneinfo (is tzdata installed?)")
        #expect(TimeZoneNames.system.count > 400, "\(file)")
        #expect(TimeZoneNames.system.isSuperset(of: ["Asia/Kolkata", "Asia/Calcutta", "Etc/UTC", "Europe/Berlin", "America/New_York"]))
    }

    /// A workout's zone comes from the boundary file (docs/timezones.md); its owner can make that
    /// zone their setting, the nautical `Etc/GMT±N` of a position at sea included.
    @Test func everyZoneOfTheBoundaryFileCanBeAnOwnersSetting() throws {
        let map = try TestData.map()
        let nautical = stride(from: -180.0, through: 180, by: 7.5).map(TimeZoneMap.nauticalZone(longitude:))
        var refused: [String] = []
        for zone in Set(map.zoneNames.dropFirst() + nautical).sorted() {
            do { try OwnerSettings.checkTimeZone(zone) } catch { refused.append(zone) }
        }
        #expect(refused.isEmpty, "refused: \(refused.joined(separator: ", "))")
    }
}
