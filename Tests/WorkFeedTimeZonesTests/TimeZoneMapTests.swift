import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel
import WorkFeedTimeZones

/// Paths into the repository's shared test data (`Tests/Data`, origins in `Tests/Data/SOURCES.md`).
enum TestData {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    static let heidelbergRide = url("Tests/Data/tracks-in-map/heidelberg/fitfiler_tomtom-runner3_ride_2021.fit")
    static let zeelandRide = url(
        "Tests/Data/tracks-in-map/zeeland/Zeeland__Activities__Radfahrt__Term_Link_D8_2015__2025-08-31_09_57_05.835_Zwin_und_Nieuwvliet.gpx")
    static let oddOffsetGPX = url("Tests/WorkFeedImportTests/Fixtures/gpx-edge/opentracks_odd-tz-offset-0115.gpx")
    static let corosRide = url("Tests/WorkFeedImportTests/Fixtures/fit/coros-pace2_ride_misaligned-fields.fit")
    /// The shipped boundary file, as SwiftPM copied it beside the test binary.
    static func map() throws -> TimeZoneMap { try TimeZoneMap.shipped.get() }
}

/// One line of tzdata's zone1970.tab: a zone and its reference position.
struct ReferencePosition: CustomTestStringConvertible, Sendable {
    var zone: String
    var latitude: Double
    var longitude: Double
    var testDescription: String { "\(zone) \(latitude), \(longitude)" }

    /// Every line of `Tests/Data/tzdata/zone1970.tab` (`+4230+00131` is ±DDMM[SS]±DDDMM[SS]).
    static func all() throws -> [ReferencePosition] {
        let text = try String(contentsOf: TestData.url("Tests/Data/tzdata/zone1970.tab"), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3 else { throw ParseError(line: String(line)) }
            let coordinates = Array(fields[1].utf8)
            // The longitude starts at the second sign.
            guard let split = coordinates.dropFirst().firstIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }),
                let latitude = degrees(coordinates[..<split], degreeDigits: 2), let longitude = degrees(coordinates[split...], degreeDigits: 3)
            else { throw ParseError(line: String(line)) }
            return ReferencePosition(zone: String(fields[2]), latitude: latitude, longitude: longitude)
        }
    }

    static func degrees(_ bytes: ArraySlice<UInt8>, degreeDigits: Int) -> Double? {
        guard let sign = bytes.first, let digits = String(bytes: bytes.dropFirst(), encoding: .ascii), digits.allSatisfy(\.isNumber) else {
            return nil
        }
        let numbers = Array(digits).map { Int(String($0))! }
        guard numbers.count == degreeDigits + 2 || numbers.count == degreeDigits + 4 else { return nil }
        func number(_ range: Range<Int>) -> Double { Double(numbers[range].reduce(0) { $0 * 10 + $1 }) }
        var value = number(0..<degreeDigits) + number(degreeDigits..<degreeDigits + 2) / 60
        if numbers.count == degreeDigits + 4 { value += number(degreeDigits + 2..<degreeDigits + 4) / 3600 }
        return sign == UInt8(ascii: "-") ? -value : value
    }

    struct ParseError: Error { var line: String }
}

@Suite struct TimeZoneMapTests {
    /// Whether two zones have had the same offset at every hour from 1970 to 2037 (tzdata's
    /// zone1970.tab lists one zone per set of such rules; the boundaries may name another of a set).
    static func sameRulesSince1970(_ a: String, _ b: String) -> Bool {
        guard let first = TimeZone(identifier: a), let second = TimeZone(identifier: b) else { return false }
        var time = Date(timeIntervalSince1970: 0)
        let end = Date(timeIntervalSince1970: 2_145_916_800)  // 2038-01-01
        while time < end {
            if first.secondsFromGMT(for: time) != second.secondsFromGMT(for: time) { return false }
            time.addTimeInterval(3600)
        }
        return true
    }

    @Test func everyReferencePositionOfZone1970GivesItsZone() throws {
        let map = try TestData.map()
        let positions = try ReferencePosition.all()
        #expect(positions.count > 300)
        var wrong: [String] = []
        for position in positions {
            let found = map.zone(latitude: position.latitude, longitude: position.longitude) ?? "nothing"
            if found != position.zone, !Self.sameRulesSince1970(found, position.zone) {
                wrong.append("\(position.zone) at \(position.latitude), \(position.longitude): \(found)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(positions.count): \(wrong.joined(separator: "; "))")
    }

    @Test(arguments: [
        (30.0, -40.0, "Etc/GMT+3"),  // the middle of the Atlantic
        (-30.0, 80.0, "Etc/GMT-5"),  // the Indian Ocean
        (0.0, 179.0, "Etc/GMT-12"),  // the Pacific, west of the date line
        (10.0, -175.0, "Etc/GMT+12"),  // and east of it
        (-50.0, -7.0, "Etc/GMT"),  // the South Atlantic
    ])
    func aPositionAtSeaGetsTheNauticalZone(latitude: Double, longitude: Double, zone: String) throws {
        let map = try TestData.map()
        #expect(map.landZoneIndex(latitude: latitude, longitude: longitude) == nil)
        #expect(map.zone(latitude: latitude, longitude: longitude) == zone)
        // POSIX signs: Etc/GMT-5 is five hours ahead of UTC.
        let expected = Int((longitude / 15).rounded()) * 3600
        #expect(TimeZone(identifier: zone)?.secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == expected)
    }

    @Test func nauticalZonesByLongitude() {
        #expect(TimeZoneMap.nauticalZone(longitude: 0) == "Etc/GMT")
        #expect(TimeZoneMap.nauticalZone(longitude: 7.4) == "Etc/GMT")
        #expect(TimeZoneMap.nauticalZone(longitude: 7.6) == "Etc/GMT-1")
        #expect(TimeZoneMap.nauticalZone(longitude: -30) == "Etc/GMT+2")
        #expect(TimeZoneMap.nauticalZone(longitude: 180) == "Etc/GMT-12")
        #expect(TimeZoneMap.nauticalZone(longitude: -180) == "Etc/GMT+12")
        #expect(TimeZoneMap.nauticalZone(longitude: 500) == "Etc/GMT-12")
    }

    @Test func landAndBorders() throws {
        let map = try TestData.map()
        #expect(map.zone(latitude: 49.4094, longitude: 8.6936) == "Europe/Berlin")  // Heidelberg
        #expect(map.zone(latitude: 47.5596, longitude: 7.5886) == "Europe/Zurich")  // Basel
        #expect(map.zone(latitude: 47.6156, longitude: 7.6614) == "Europe/Berlin")  // Lörrach, 7 km away
        #expect(map.zone(latitude: 47.5828, longitude: 7.6500) == "Europe/Zurich")  // Riehen, Basel's suburb on the German side of the Rhine
        #expect(map.zone(latitude: 40.7128, longitude: -74.0060) == "America/New_York")
        #expect(map.zone(latitude: -33.8688, longitude: 151.2093) == "Australia/Sydney")
        #expect(map.zone(latitude: .nan, longitude: 0) == nil)
        // Outside the globe: clamped, never out of bounds.
        #expect(map.zone(latitude: 1000, longitude: -1000) != nil)
    }

    @Test func aCorruptFileIsAnErrorNeverATrap() throws {
        let url = try #require(TimeZoneMap.candidateFiles().first { FileManager.default.fileExists(atPath: $0.path) })
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(try TimeZoneMap(bytes: bytes).zoneNames.count > 400)
        // Cut anywhere.
        for length in [0, 3, 4, 7, 12, 40, 200, 4_000, 30_000, bytes.count / 2, bytes.count - 1] {
            #expect(throws: TimeZoneMapError.self, "cut at \(length)") { try TimeZoneMap(bytes: Array(bytes[..<length])) }
        }
        var wrongMagic = bytes
        wrongMagic[0] = UInt8(ascii: "X")
        #expect(throws: TimeZoneMapError(.notATimeZoneFile, offset: 0, "the file does not start with WFTZ")) { try TimeZoneMap(bytes: wrongMagic) }
        var wrongVersion = bytes
        wrongVersion[4] = 9
        #expect(throws: TimeZoneMapError.self) { try TimeZoneMap(bytes: wrongVersion) }
        // Random bytes in the nodes: either still a valid tree (a leaf of another zone) or an error
        // naming the entry; never a trap or a loop. A fixed seed, printed.
        let seed: UInt64 = 0x5EED_0041_0004
        print("damaged time zone map seed: \(String(seed, radix: 16))")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<40 {
            var damaged = bytes
            let offset = Int.random(in: (bytes.count - 200_000)..<bytes.count, using: &generator)
            damaged[offset] = UInt8.random(in: 0...255, using: &generator)
            damaged[offset | 1] = UInt8.random(in: 0...255, using: &generator)
            if let map = try? TimeZoneMap(bytes: damaged) {
                for latitude in stride(from: -89.0, through: 89, by: 7) {
                    for longitude in stride(from: -179.0, through: 179, by: 7) { _ = map.zone(latitude: latitude, longitude: longitude) }
                }
            }
        }
        do {
            var badName = bytes
            // The first zone name after the sea's: its first byte made a space.
            let sourceLength = Int(bytes[13])
            let firstName = 14 + sourceLength + 4 + 1 + 1
            badName[firstName] = UInt8(ascii: " ")
            _ = try TimeZoneMap(bytes: badName)
            Issue.record("a zone name with a space was accepted")
        } catch {
            #expect(error.code == .badName)
        }
    }

    @Test func zoneIdentifiers() {
        #expect(TimeZoneMap.isZoneIdentifier("America/Argentina/Buenos_Aires"))
        #expect(TimeZoneMap.isZoneIdentifier("Etc/GMT-2"))
        #expect(!TimeZoneMap.isZoneIdentifier(""))
        #expect(!TimeZoneMap.isZoneIdentifier("/etc/passwd"))
        #expect(!TimeZoneMap.isZoneIdentifier("Europe/Berlin\n"))
        #expect(!TimeZoneMap.isZoneIdentifier(String(repeating: "A", count: 65)))
    }
}
