import Foundation
import Testing
import WorkFeedModel

/// `Idempotency-Key` (issue 37, item 2): a change the gateway answered 503 may still have been
/// carried out (the coordinator committed, its reply came late), and sending it again made a
/// second zone. With a key, the change sent again is answered as the first time and carried out
/// once; the same key with another request is refused.
@Suite struct IdempotencyTests {
    static func headers(_ key: String?) -> [String: String] {
        var headers = ["Content-Type": "application/json"]
        if let key { headers["Idempotency-Key"] = key }
        return headers
    }

    func zone(_ latitude: Double) -> Data {
        Data(#"{"latitude": \#(latitude), "longitude": 10, "radius": 300}"#.utf8)
    }

    @Test func aZoneSentAgainWithItsKeyIsAddedOnce() async throws {
        try await withSystem { system in
            let alice = system.token("alice")
            let key = "4f1c2b9e-7d3a-4e8f-9a6b-0c5d1e2f3a4b"
            let first = try await system.call("POST", "/v1/zones", token: alice, headers: Self.headers(key), body: zone(10))
            #expect(first.status == 201)
            let again = try await system.call("POST", "/v1/zones", token: alice, headers: Self.headers(key), body: zone(10))
            #expect(again.status == 201 && again.body == first.body, "\(again.status)")
            #expect(again.header("Location") == first.header("Location"))
            let zones = try await system.get("/v1/zones", as: "alice").json["zones"] as? [[String: Any]]
            #expect(zones?.count == 1, "\(zones ?? [])")

            // The same key with another request: refused, nothing added.
            let other = try await system.call("POST", "/v1/zones", token: alice, headers: Self.headers(key), body: zone(20))
            #expect(other.status == 422 && other.json["type"] as? String == "urn:workfeed:problem:idempotency-key-reused", "\(other.status)")
            // Another owner's same key is theirs; without a key, each POST is a zone.
            #expect(try await system.call("POST", "/v1/zones", token: system.token("bob"), headers: Self.headers(key), body: zone(10)).status == 201)
            #expect(try await system.call("POST", "/v1/zones", token: alice, headers: Self.headers(nil), body: zone(15)).status == 201)
            #expect((try await system.get("/v1/zones", as: "alice").json["zones"] as? [[String: Any]])?.count == 2)
            #expect((try await system.get("/v1/zones", as: "bob").json["zones"] as? [[String: Any]])?.count == 1)

            // A key that is not one: 400, nothing added.
            for bad in ["has a space", String(repeating: "k", count: 256), "caf\u{e9}"] {
                let refused = try await system.call("POST", "/v1/zones", token: alice, headers: Self.headers(bad), body: zone(30))
                #expect(refused.status == 400 && refused.json["type"] as? String == "urn:workfeed:problem:bad-idempotency-key", "\(bad.prefix(12))")
            }
            #expect((try await system.get("/v1/zones", as: "alice").json["zones"] as? [[String: Any]])?.count == 2)
        }
    }

    /// An upload and a delete sent again with their keys answer as the first time: 201 `imported`
    /// (not 200 `unchanged`), 204 (not 404).
    @Test func anUploadAndADeleteSentAgainAnswerAsTheFirstTime() async throws {
        try await withSystem { system in
            let file = try Data(contentsOf: URL(fileURLWithPath: fixture("strava_run_2015_short_gpxtpx-hr.gpx")))
            let alice = system.token("alice")
            func upload(_ key: String?) async throws -> GatewaySystem.Reply {
                var headers = ["Content-Type": "application/octet-stream"]
                if let key { headers["Idempotency-Key"] = key }
                return try await system.call("POST", "/v1/workouts?filename=run.gpx", token: alice, headers: headers, body: file)
            }
            let first = try await upload("upload-1")
            #expect(first.status == 201 && first.uploadResult == "imported")
            let again = try await upload("upload-1")
            #expect(again.status == 201 && again.uploadResult == "imported", "\(again.status) \(again.uploadResult ?? "")")
            #expect(again.uploaded["id"] as? String == first.uploaded["id"] as? String)
            let unkeyed = try await upload(nil)
            #expect(unkeyed.status == 200 && unkeyed.uploadResult == "unchanged")

            let id = try #require(first.uploaded["id"] as? String)
            let deleted = try await system.call("DELETE", "/v1/workouts/\(id)", token: alice, headers: ["Idempotency-Key": "delete-1"])
            #expect(deleted.status == 204)
            let deletedAgain = try await system.call("DELETE", "/v1/workouts/\(id)", token: alice, headers: ["Idempotency-Key": "delete-1"])
            #expect(deletedAgain.status == 204)
            #expect(try await system.call("DELETE", "/v1/workouts/\(id)", token: alice).status == 404)
        }
    }
}
