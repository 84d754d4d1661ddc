import Foundation
import Testing

/// `GET/POST/DELETE /v1/zones` over real HTTP, against a real coordinator and worker (issue 16).
@Suite(.serialized) struct ZonesTests {
    /// The short run's first point (Tests/EndToEndTests/Fixtures: strava_run_2015_short_gpxtpx-hr.gpx).
    static let start = (latitude: 37.7832920, longitude: -122.4072250)

    func zone(_ latitude: Double, _ longitude: Double, _ radius: Double) -> Data {
        Data(#"{"latitude": \#(latitude), "longitude": \#(longitude), "radius": \#(radius)}"#.utf8)
    }

    @Test func anOwnerManagesTheirZonesAndTheirPicturesFollow() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let alice = system.token("alice"), bob = system.token("bob")
            let json = ["Content-Type": "application/json"]
            #expect((try await system.get("/v1/zones", as: "alice").json["zones"] as? [Any])?.isEmpty == true)
            #expect(try await system.get("/v1/zones").status == 401)

            // A picture drawn before any zone.
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            let before = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
            let oldURL = try #require((before.json["picture"] as? [String: Any])?["url"] as? String)
            #expect(try await system.get(oldURL).status == 200)

            // Bad zones: 400 naming the field; nothing is added.
            for (body, field) in [
                (zone(91, 0, 300), "latitude"), (zone(0, 0, 50), "radius"), (zone(0, 181, 300), "longitude"),
                (Data(#"{"latitude": 1, "longitude": 2}"#.utf8), "radius"),
                (Data(#"{"latitude": true, "longitude": 2, "radius": 300}"#.utf8), "latitude"),
                (Data(#"{"latitude": 1, "longitude": 2, "radius": 300, "name": "home"}"#.utf8), "name"),
            ] {
                let refused = try await system.call("POST", "/v1/zones", token: alice, headers: json, body: body)
                #expect(refused.status == 400, "\(field)")
                #expect(refused.json["type"] as? String == "urn:workfeed:problem:bad-zone" && refused.json["field"] as? String == field)
            }
            #expect(try await system.call("POST", "/v1/zones", token: alice, headers: json, body: Data("not json".utf8)).status == 400)

            // A zone around the run's start: 201 with its Location; only Alice sees it.
            let added = try await system.call(
                "POST", "/v1/zones", token: alice, headers: json, body: zone(Self.start.latitude, Self.start.longitude, 300))
            #expect(added.status == 201)
            let zoneID = try #require(added.json["id"] as? Int)
            #expect(added.header("Location") == "/v1/zones/\(zoneID)")
            #expect(added.json["radius"] as? Double == 300 && added.json["latitude"] as? Double == Self.start.latitude)
            let listed = try #require(try await system.get("/v1/zones", as: "alice").json["zones"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["id"] as? Int == zoneID)
            #expect((try await system.get("/v1/zones", as: "bob").json["zones"] as? [Any])?.isEmpty == true)
            #expect(try await system.call("DELETE", "/v1/zones/\(zoneID)", token: bob).status == 404)

            // The short run lies wholly inside the zone: its picture fails with the reason, and the
            // picture drawn before is no longer served: 410 Gone (issue 25), it existed and was
            // withdrawn; a key that never existed is still 404.
            let hidden = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
            #expect(hidden.status == 422 && hidden.json["reason"] as? String == "hidden by a privacy zone")
            var gone = 0
            for _ in 0..<40 {
                gone = try await system.get(oldURL).status
                if gone == 410 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(gone == 410, "the picture drawn before the zone is still served, or answers \(gone)")
            let withdrawn = try await system.get(oldURL)
            #expect(withdrawn.json["type"] as? String == "urn:workfeed:problem:withdrawn")
            #expect((withdrawn.json["detail"] as? String ?? "").contains("/v1/changes"))
            #expect(!(withdrawn.json["detail"] as? String ?? "").contains("alice") && !(withdrawn.json["detail"] as? String ?? "").contains(id))
            #expect(try await system.get("/v1/pictures/\(String(repeating: "ab", count: 32)).png").status == 404)

            // Removing it brings the picture back; removing it again is 404.
            #expect(try await system.call("DELETE", "/v1/zones/\(zoneID)", token: alice).status == 204)
            #expect(try await system.call("DELETE", "/v1/zones/\(zoneID)", token: alice).status == 404)
            #expect(try await system.call("DELETE", "/v1/zones/abc", token: alice).status == 404)
            let back = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
            #expect(back.status == 200 && (back.json["picture"] as? [String: Any])?["url"] as? String == oldURL)
            // Drawn again under its old key, the URL serves the picture again.
            #expect(try await system.get(oldURL).status == 200)

            // At most 32 zones: the 33rd is 409.
            for number in 0..<32 {
                let made = try await system.call("POST", "/v1/zones", token: bob, headers: json, body: zone(10 + Double(number) * 0.1, 10, 200))
                #expect(made.status == 201)
            }
            let tooMany = try await system.call("POST", "/v1/zones", token: bob, headers: json, body: zone(50, 10, 200))
            #expect(tooMany.status == 409 && tooMany.json["type"] as? String == "urn:workfeed:problem:too-many-zones")
            #expect(try await system.call("PUT", "/v1/zones", token: bob).status == 405)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
