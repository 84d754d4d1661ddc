import Foundation
import Testing
import WorkFeedTesting

/// Keys in a stable order (issue 36): every JSON document of the API has its keys sorted at every
/// level (docs/gateway.md, "Figures"), whether the coordinator wrote it (feed, workout,
/// summaries) or the gateway (upload, settings, changes, zones), so that a diff, a cache or an
/// app's snapshot test sees the same bytes for the same facts. Read from the raw bytes of the
/// responses, through the router, against a real coordinator.
@Suite(.serialized) struct KeyOrderTests {
    /// A workout as the feed gives it, its keys in the order written.
    static let workoutKeys = [
        "activity", "calories", "distance", "unit", "value", "elapsedTime", "elevationGain", "unit", "value", "end", "heartRateAverage",
        "heartRateMax", "id", "localStart", "movingTime", "pace", "unit", "value", "pictureKinds", "pictures",
    ]

    @Test func everyDocumentHasItsKeysSorted() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let run = try await system.upload(FeedShapeTests.realFile("fit/garmin-fenix2_run_hr_4laps.fit"), as: "alice")
            let ride = try await system.upload(FeedShapeTests.realFile("fit/coros-pace2_ride_misaligned-fields.fit"), as: "alice")
            let id = try #require(run.uploaded["id"] as? String)
            let year = String(try #require(run.uploaded["localStart"] as? String).prefix(4))
            let patch = try await system.call(
                "PATCH", "/v1/settings", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"units": "imperial", "heartRateZones": {"maximumHeartRate": 190}}"#.utf8))
            var documents: [(String, GatewaySystem.Reply)] = [("upload", run), ("upload", ride), ("PATCH /v1/settings", patch)]
            for path in [
                "/v1/feed", "/v1/workouts/\(id)", "/v1/summaries?period=year&from=\(year)-01-01&to=\(year)-12-31",
                "/v1/summaries?period=week", "/v1/settings", "/v1/changes?since=0&include=workout", "/v1/zones",
            ] {
                documents.append((path, try await system.get(path, as: "alice")))
            }
            for (name, reply) in documents {
                #expect((200...201).contains(reply.status), "\(name): \(reply.status)")
                #expect(JSONKeys.sortedAtEveryLevel(Array(reply.body)), "\(name): \(String(decoding: reply.body, as: UTF8.self).prefix(600))")
            }
            // The workout's own keys, in the order written (pictures and what follows left out:
            // which members follow depends on the pictures' states).
            let shown = JSONKeys.inOrder(Array(try await system.get("/v1/workouts/\(id)", as: "alice").body))
            #expect(Array(shown.prefix(Self.workoutKeys.count)) == Self.workoutKeys, "\(shown)")
            #expect(Array(shown.suffix(3)) == ["timeZone", "timeZoneOffset", "title"], "\(shown)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
