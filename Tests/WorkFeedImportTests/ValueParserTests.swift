import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedImport

@Suite struct DecimalParserTests {
    private func parse(_ text: String) -> Double? { DecimalParser.parse(Array(text.utf8)[...]) }

    @Test(arguments: [
        ("1", 1.0), ("-1.5", -1.5), (" 12.25 ", 12.25), ("1e3", 1000), ("1.5E-3", 0.0015), (".5", 0.5), ("5.", 5),
        ("+3", 3), ("-0", -0.0), ("0.000123", 0.000123), ("46.079871179535985", 46.079871179535985),
        ("-122.33706000000001", -122.33706000000001), ("12345678901234567890", 12345678901234567890.0),
    ])
    func parses(text: String, value: Double) {
        #expect(parse(text) == value)
    }

    @Test(arguments: ["", " ", "abc", "1.2.3", "NaN", "inf", "0x10", "1e", "-", "1 2", "undefined", "1,5", "--1"])
    func refuses(text: String) {
        #expect(parse(text) == nil)
    }

    /// The fast path must round exactly as the standard library does.
    @Test func agreesWithTheStandardLibrary() {
        let seed: UInt64 = 0x5EED_0041_0002
        print("agreesWithTheStandardLibrary seed: \(String(seed, radix: 16))")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &generator)
            let point = Int.random(in: 0...digits, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            for index in 0..<digits {
                if index == point { text += "." }
                text += String(Int.random(in: 0...9, using: &generator))
            }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -30...30, using: &generator))" }
            #expect(parse(text) == Double(text), "\(text)")
        }
    }
}

@Suite struct TimestampParserTests {
    private func parse(_ text: String) -> TimestampParser.Timestamp? { TimestampParser.parse(Array(text.utf8)[...]) }

    @Test(
        arguments: [
            ("2020-06-01T14:52:40Z", 1_591_023_160.0, nil),
            ("2020-06-01T14:52:40.123Z", 1_591_023_160.123, nil),
            ("2021-04-21T09:05:33.139000Z", 1_618_995_933.139, nil),
            ("1901-12-13T20:45:52.2073437Z", -2_147_483_647.7926563, nil),
            ("2020-02-02T03:02:03+01:00", 1_580_608_923.0, 3600),
            ("2021-01-07T21:51:59.179+01:15", 1_610_051_819.179, 4500),
            ("2020-12-27T15:59:36.000-05:00", 1_609_102_776.0, -18000),
            ("2020-12-27T15:59:36+0530", 1_609_064_976.0, 19800),
            ("2020-12-27T15:59:36+05", 1_609_066_776.0, 18000),
            // UTC in any spelling is UTC, not a local offset of 0 (issue 36).
            ("2020-12-27T15:59:36+00:00", 1_609_084_776.0, nil),
            ("2020-12-27T15:59:36-00:00", 1_609_084_776.0, nil),
            ("2020-12-27T15:59:36+0000", 1_609_084_776.0, nil),
            ("2020-12-27T15:59:36+00", 1_609_084_776.0, nil),
            ("2019-06-11 15:00:00 +0000", 1_560_265_200.0, nil),
            ("2013-01-01T12:00:04", 1_357_041_604.0, nil),
            ("2013-01-01 12:00:04z", 1_357_041_604.0, nil),
            (" 2020-02-29T00:00:00Z\n", 1_582_934_400.0, nil),
            // Apple Health: a space before the offset.
            ("2019-06-11 15:00:00 -0700", 1_560_290_400.0, -25200),
            ("2016-04-02 10:40:38 +0100", 1_459_590_038.0, 3600),
        ] as [(String, Double, Int?)])
    func parses(text: String, seconds: Double, offset: Int?) throws {
        let timestamp = try #require(parse(text))
        #expect(abs(timestamp.date.timeIntervalSince1970 - seconds) < 1e-6)
        #expect(timestamp.offset == offset)
    }

    @Test(arguments: [
        "", "2020-06-01", "2020-06-01T14:52Z", "2019-02-29T00:00:00Z", "2020-13-01T00:00:00Z", "2020-06-01T24:00:00Z",
        "2020-06-01T14:52:40.Z", "2020-06-01T14:52:40+1", "2020-06-01T14:52:40 Z", "2020-06-01 14:52:40  +0100", "2020-06-01 14:52:40 +",
        "Aug  6 2007, 20:16:30", "1591023160",
    ])
    func refuses(text: String) {
        #expect(parse(text) == nil)
    }
}
