import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel

/// One shape for a workout (issue 24 part 4, issue 25): the upload reply, the feed, one workout
/// and `/v1/changes?include=workout` give the same item, with pace or speed in the owner's units
/// and the device's moving time, over HTTP against a real coordinator.
@Suite(.serialized) struct FeedShapeTests {
    /// The FIT files of the import tests, with their sessions' timer times (DeviceFiguresTests).
    static func realFile(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WorkFeedImportTests/Fixtures/\(relative)").path
    }

    static func items(_ reply: GatewaySystem.Reply) -> [[String: Any]] { reply.json["items"] as? [[String: Any]] ?? [] }

    /// A feed item's members an app reads, as JSON text with sorted keys (pictures left out:
    /// their states change while a worker draws).
    static func figures(_ item: [String: Any]) throws -> String {
        var item = item
        item["pictures"] = nil
        return String(decoding: try JSONSerialization.data(withJSONObject: item, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func uploadFeedWorkoutAndChangesShareOneShape() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let uploaded = try await system.upload(Self.realFile("fit/garmin-fenix2_run_hr_4laps.fit"), as: "alice")
            #expect(uploaded.status == 201)
            #expect(uploaded.json["id"] == nil && uploaded.json["result"] == nil, "one list of workouts, no copy beside it")
            #expect(uploaded.uploadResult == "imported")
            let run = uploaded.uploaded
            let id = try #require(run["id"] as? String)
            #expect(uploaded.header("Location") == "/v1/workouts/\(id)")
            #expect(run["movingTime"] as? Double == 2832 && run["elapsedTime"] as? Double == 2833)
            #expect(run["localStart"] as? String == "2015-08-15T16:45:08+02:00" && run["timeZoneOffset"] as? Int == 7200)
            // The Garmin FIT gives its offset; the zone of its first position (in Norway) has that offset then.
            #expect(run["timeZone"] as? String == "Europe/Oslo")
            let pace = try #require(run["pace"] as? [String: Any])
            #expect(pace["value"] as? Double == 314.4 && pace["unit"] as? String == "s/km" && run["speed"] == nil)
            #expect(run["duration"] == nil, "elapsed and moving time, never an ambiguous duration")

            let feed = try await system.get("/v1/feed", as: "alice")
            let listed = try #require(Self.items(feed).first)
            #expect(try Self.figures(listed) == (try Self.figures(run)))
            let shown = try await system.get("/v1/workouts/\(id)", as: "alice")
            #expect(try Self.figures(shown.json) == (try Self.figures(run)))

            // The owner's units: per mile, and a ride's speed in mph.
            let put = try await system.call(
                "PUT", "/v1/settings", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"units": "imperial"}"#.utf8))
            #expect(put.status == 200)
            let ride = try await system.upload(Self.realFile("fit/coros-pace2_ride_misaligned-fields.fit"), as: "alice")
            let speed = try #require(ride.uploaded["speed"] as? [String: Any])
            #expect(speed["value"] as? Double == 6.37 && speed["unit"] as? String == "mph" && ride.uploaded["pace"] == nil)
            let imperial = Self.items(try await system.get("/v1/feed", as: "alice"))
            let mile = try #require(imperial.first { $0["id"] as? String == id }?["pace"] as? [String: Any])
            #expect(mile["value"] as? Double == 505.9 && mile["unit"] as? String == "s/mi")
            // Another owner's units are their own.
            let bob = try await system.upload(Self.realFile("fit/garmin-fenix2_run_hr_4laps.fit"), as: "bob")
            #expect((bob.uploaded["pace"] as? [String: Any])?["unit"] as? String == "s/km")

            // Changes carry the workout as the feed gives it; a deletion carries none.
            let plain = try await system.get("/v1/changes?since=0", as: "alice")
            #expect((plain.json["changes"] as? [[String: Any]] ?? []).allSatisfy { $0["workout"] == nil })
            #expect(
                try await system.call("DELETE", "/v1/workouts/\(ride.uploaded["id"] as? String ?? "")", token: system.token("alice")).status == 204)
            let changes = try await system.get("/v1/changes?since=0&include=workout", as: "alice")
            #expect(changes.status == 200)
            let list = changes.json["changes"] as? [[String: Any]] ?? []
            let changed = try #require(list.first { $0["id"] as? String == id && $0["change"] as? String == "workout" })
            let carried = try #require(changed["workout"] as? [String: Any])
            #expect(try Self.figures(carried) == (try Self.figures(try #require(imperial.first { $0["id"] as? String == id }))))
            #expect(list.contains { $0["change"] as? String == "deleted" && $0["workout"] == nil })
            #expect(list.allSatisfy { $0["change"] as? String == "deleted" || $0["workout"] is [String: Any] })
            // Bounded like a feed page.
            let tooMany = try await system.get("/v1/changes?include=workout&limit=101", as: "alice")
            #expect(tooMany.status == 400 && tooMany.json["type"] as? String == "urn:workfeed:problem:bad-parameter")
            #expect(try await system.get("/v1/changes?include=pictures", as: "alice").status == 400)
            let one = try await system.get("/v1/changes?since=0&include=workout&limit=1", as: "alice")
            #expect((one.json["changes"] as? [Any])?.count == 1 && one.json["more"] as? Bool == true)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
