import Foundation
import Testing
import WorkFeedModel

/// Issue 12: times keep their fractions on the wire and in JSON; identities; track overlap.
@Suite struct TimeAndIdentityTests {
    /// Finding 8: 15:58:25.8498 stays 15:58:25.8498 (Foundation's `.iso8601` wrote 15:58:25).
    @Test(arguments: [
        (1_668_268_705.8498, "2022-11-12T15:58:25.8498Z"),
        (1_668_268_705, "2022-11-12T15:58:25Z"),
        (0.001, "1970-01-01T00:00:00.001Z"),
        (-2_147_483_647.792657, "1901-12-13T20:45:52.207343Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
    ])
    func timesKeepTheirFractions(seconds: Double, text: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ISO8601Time.string(from: date) == text)
        let parsed = try #require(ISO8601Time.date(from: text))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test func parsingAcceptsOffsetsAndRefusesGarbage() {
        #expect(ISO8601Time.date(from: "2022-11-12T16:58:25.85+01:00")?.timeIntervalSince1970 == 1_668_268_705.85)
        #expect(ISO8601Time.date(from: "2026-11-21T23:05:00Z") != nil)
        for bad in [
            "", "2022-13-01T00:00:00Z", "2022-11-12T15:58:25", "2022-11-12 15:58:25Z", "2022-11-12T15:58:25.Z", "x", "2022-11-12T15:58:25Zjunk",
        ] {
            #expect(ISO8601Time.date(from: bad) == nil, "\(bad)")
        }
        // Extreme dates are written clamped to years 1...9999, never trapped on.
        #expect(ISO8601Time.string(from: Date(timeIntervalSince1970: 1e15)).hasPrefix("9999-12-31T23:59:59"))
        #expect(ISO8601Time.string(from: Date(timeIntervalSince1970: -1e15)) == "0001-01-01T00:00:00Z")
        #expect(ISO8601Time.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00Z")
    }

    @Test func jsonThroughTheStrategiesKeepsFractions() throws {
        struct Box: Codable, Equatable { var at: Date }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        let box = Box(at: Date(timeIntervalSince1970: 1_668_268_705.8498))
        let data = try encoder.encode(box)
        #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2022-11-12T15:58:25.8498Z"}"#)
        #expect(abs(try decoder.decode(Box.self, from: data).at.timeIntervalSince1970 - 1_668_268_705.8498) < 1e-6)
        #expect(throws: DecodingError.self) { try decoder.decode(Box.self, from: Data(#"{"at":"yesterday"}"#.utf8)) }
    }

    @Test func identityIsTheSourceIdElseTheFilesHash() throws {
        var workout = ImportedWorkout(
            source: .fit, sourceID: "123-456", origin: "a.fit", file: WorkoutFile(name: "a.fit", bytes: [1, 2, 3], format: "fit"))
        #expect(
            WorkoutIdentity(of: workout, owner: Owner.defaultName) == WorkoutIdentity(owner: Owner.defaultName, source: .fit, sourceID: "123-456"))
        workout.sourceID = nil
        #expect(WorkoutIdentity(of: workout, owner: Owner.defaultName)?.sourceID == "sha256:" + SHA256.hex([1, 2, 3]))
        workout.positionInFile = 2
        #expect(WorkoutIdentity(of: workout, owner: Owner.defaultName)?.sourceID == "sha256:\(SHA256.hex([1, 2, 3]))#3")
        workout.file = nil
        #expect(WorkoutIdentity(of: workout, owner: Owner.defaultName) == nil)
        // The id is derived from the identity: the same in any index.
        #expect(
            WorkoutIdentity(owner: Owner.defaultName, source: .fit, sourceID: "x").workoutID
                == WorkoutIdentity(owner: Owner.defaultName, source: .fit, sourceID: "x").workoutID)
        #expect(
            WorkoutIdentity(owner: Owner.defaultName, source: .fit, sourceID: "x").workoutID
                != WorkoutIdentity(owner: Owner.defaultName, source: .tcx, sourceID: "x").workoutID)
    }

    @Test func overlapComparesTheSparserTrackWithTheOtherLine() {
        func line(_ count: Int, from latitude: Double, step: Double) -> Route {
            Route(segments: [(0..<count).map { RoutePoint(latitude: latitude + Double($0) * step, longitude: 5) }])
        }
        let dense = line(1000, from: 52, step: 0.00001)  // 1.1 km north, a point every 1.1 m
        let sparse = line(11, from: 52.00002, step: 0.001)  // the same way, a point every 111 m
        #expect(RouteOverlap.overlaps(dense, sparse))
        #expect(RouteOverlap.overlaps(sparse, dense))
        #expect(!RouteOverlap.overlaps(dense, line(11, from: 52.1, step: 0.001)))
        #expect(RouteOverlap.share(dense, Route()) == 0)
        // Half the sparse points on the way, half 1 km off: exactly the required share.
        let half = Route(segments: [(0..<10).map { RoutePoint(latitude: 52 + Double($0) * 0.0001, longitude: $0 < 5 ? 5 : 5.015) }])
        #expect(RouteOverlap.share(half, dense) == 0.5)
    }
}
