import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel

/// The gateway keeps serving while the coordinator restarts: owner calls answer 503 with
/// Retry-After, pictures keep coming from memory and, for keys the index called current lately,
/// from the store, and everything works again once it is back.
@Suite(.serialized) struct ResilienceTests {
    @Test func picturesAreServedAndFeedCallsAnswer503WhileTheCoordinatorIsDown() async throws {
        let system = try await GatewaySystem { $0.coordinatorTimeoutMilliseconds = 1_500 }
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/light?wait=10", as: "alice")
            let url = try #require((requested.json["picture"] as? [String: Any])?["url"] as? String)
            let other = try await system.get("/v1/workouts/\(id)/pictures/route/dark?wait=10", as: "alice")
            let otherURL = try #require((other.json["picture"] as? [String: Any])?["url"] as? String)
            _ = try await system.get(url)  // in the gateway's memory now; otherURL is not

            await system.stopCoordinator()
            let feed = try await system.get("/v1/feed", as: "alice")
            #expect(feed.status == 503)
            #expect(feed.header("Retry-After") == "2")
            #expect(feed.json["type"] as? String == "urn:workfeed:problem:coordinator-unavailable")
            #expect((feed.json["detail"] as? String)?.contains("nothing was done") == true)
            // A change not answered says what may have happened, and how to be sure (issue 37).
            let zone = try await system.call(
                "POST", "/v1/zones", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"latitude": 10, "longitude": 10, "radius": 300}"#.utf8))
            #expect(zone.status == 503 && zone.header("Retry-After") == "2")
            #expect((zone.json["detail"] as? String)?.contains("the same Idempotency-Key") == true, "\(zone.json)")
            #expect(try await system.get("/readyz").status == 503)
            #expect(try await system.get("/healthz").status == 200)
            #expect(try await system.get(url).status == 200)
            #expect(try await system.get(otherURL).status == 200)  // read from the cache directory
            // A key the gateway has not heard of: the store may hold what the index withdrew, and
            // nobody can say, so 503 (not 404, not the file).
            let unknown = try await system.get("/v1/pictures/\(String(repeating: "5a", count: 32)).png")
            #expect(unknown.status == 503 && unknown.json["type"] as? String == "urn:workfeed:problem:coordinator-unavailable")

            try await system.restartCoordinator()
            var back = 0
            for _ in 0..<50 where back != 200 {
                back = try await system.get("/v1/feed", as: "alice").status
                if back != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(back == 200)
            #expect(try await system.get("/readyz").status == 200)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
