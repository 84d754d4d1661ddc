import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel

/// The gateway's endpoints over real HTTP, against a real coordinator and worker.
@Suite(.serialized) struct GatewayTests {
    let run = fixture("strava_run_2015_short_gpxtpx-hr.gpx")
    let ride = fixture("garmin-connect_ride_2020_short_ns3-hr.gpx")
    let waypoints = fixture("runkeeper_hr-on-waypoint.gpx")

    @Test func uploadFeedPicturesChangesAndDelete() async throws {
        let system = try await GatewaySystem()
        do {
            // Upload: 201 with the id and a Location; the same file again: 200, the same id.
            let first = try await system.upload(run, as: "alice")
            #expect(first.status == 201)
            let id = try #require(first.uploaded["id"] as? String)
            #expect(first.header("Location") == "/v1/workouts/\(id)")
            let again = try await system.upload(run, as: "alice")
            #expect(again.status == 200 && again.uploaded["id"] as? String == id && again.uploadResult == "unchanged")
            #expect(try await system.upload(ride, as: "alice").status == 201)

            // Feed: newest first, one per page with a cursor, summaries with local time.
            let page1 = try await system.get("/v1/feed?limit=1", as: "alice")
            #expect(page1.status == 200)
            let items1 = try #require(page1.json["items"] as? [[String: Any]])
            let cursor = try #require(page1.json["next"] as? String)
            let page2 = try await system.get(
                "/v1/feed?limit=1&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", as: "alice")
            let items2 = try #require(page2.json["items"] as? [[String: Any]])
            #expect(items1.count == 1 && items2.count == 1 && page2.json["next"] == nil)
            #expect((items1[0]["start"] as? String ?? "") > (items2[0]["start"] as? String ?? ""))
            #expect(items2[0]["id"] as? String == id && items2[0]["activity"] is String)
            #expect(((items2[0]["distance"] as? [String: Any])?["value"] as? Double ?? 0) > 0 && items2[0]["localStart"] is String)
            // Issue 24: its times are in UTC; the zone comes from where it started (San Francisco, January).
            #expect(items2[0]["timeZone"] as? String == "America/Los_Angeles" && items2[0]["timeZoneOffset"] as? Int == -28_800)
            #expect((items2[0]["localStart"] as? String)?.hasSuffix("-08:00") == true, "\(items2[0]["localStart"] ?? "")")
            #expect(try await system.get("/v1/feed?cursor=nonsense", as: "alice").json["type"] as? String == "urn:workfeed:problem:bad-cursor")
            #expect(try await system.get("/v1/feed?limit=0", as: "alice").status == 400)

            // A picture request waits for the picture and gives its URL; the picture is immutable.
            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/dark?scale=1&wait=10", as: "alice")
            #expect(requested.status == 200)
            let picture = try #require(requested.json["picture"] as? [String: Any])
            let url = try #require(picture["url"] as? String)
            #expect(picture["status"] as? String == "generated" && picture["width"] as? Int == 512)
            #expect(requested.json["id"] as? String == id && requested.json["workoutID"] == nil, "one name for a workout's id")
            let png = try await system.get(url)
            #expect(png.status == 200 && png.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(png.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(png.header("Content-Type") == "image/png")
            let etag = try #require(png.header("ETag"))
            #expect(etag == "\"" + url.dropFirst("/v1/pictures/".count).dropLast(4) + "\"")
            let cached = try await system.get(url, headers: ["If-None-Match": etag])
            #expect(cached.status == 304 && cached.body.isEmpty)
            #expect(try await system.get(url).body == png.body)  // from memory now
            for bad in [
                "/v1/pictures/../../index.sqlite", "/v1/pictures/abc.png", "/v1/pictures/" + String(repeating: "A", count: 64) + ".png",
                "/v1/pictures/" + String(repeating: "0", count: 64) + ".png",
            ] {
                let refused = try await system.get(bad)
                #expect(refused.status == 404, "\(bad)")
            }
            // The feed now lists the picture with its URL.
            let feed = try await system.get("/v1/feed", as: "alice")
            let pictures = ((feed.json["items"] as? [[String: Any]])?.last?["pictures"] as? [[String: Any]]) ?? []
            #expect(pictures.contains { $0["url"] as? String == url })

            // A workout without a route: 422 with the reason.
            let empty = try await system.upload(waypoints, as: "alice")
            let emptyID = try #require(empty.uploaded["id"] as? String)
            let failed = try await system.get("/v1/workouts/\(emptyID)/pictures/route/light?wait=10", as: "alice")
            #expect(failed.status == 422 && failed.json["reason"] as? String == "no route")
            #expect(failed.header("Content-Type") == "application/problem+json")

            // One workout, changes, delete.
            let shown = try await system.get("/v1/workouts/\(id)", as: "alice")
            #expect(shown.status == 200 && shown.json["id"] as? String == id)
            let changes = try await system.get("/v1/changes?since=0", as: "alice")
            let anchor = try #require(changes.json["anchor"] as? Int)
            #expect(Set((changes.json["changes"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }).count == 3)
            #expect(try await system.call("DELETE", "/v1/workouts/\(id)", token: system.token("alice")).status == 204)
            #expect(try await system.get("/v1/workouts/\(id)", as: "alice").status == 404)
            #expect(try await system.call("DELETE", "/v1/workouts/\(id)", token: system.token("alice")).status == 404)
            let after = try await system.get("/v1/changes?since=\(anchor)", as: "alice")
            #expect((after.json["changes"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == id && $0["change"] as? String == "deleted" })
            // Its pictures are gone from the cache, by-content names too.
            let key = url.dropFirst("/v1/pictures/".count).dropLast(4)
            let keyed = system.coordinatorConfiguration.cacheDirectory + "/keys/\(key.prefix(2))/\(key).png"
            #expect(!FileManager.default.fileExists(atPath: keyed))
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func aBrokenUploadNamesLineAndFieldAndStoresNothing() async throws {
        let system = try await GatewaySystem(workers: 0)
        do {
            let broken = Data(
                "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n<trkpt lat=\"north\" lon=\"0\"/>\n</trkseg></trk></gpx>\n"
                    .utf8)
            let reply = try await system.call("POST", "/v1/workouts?filename=bad.gpx", token: system.token("alice"), body: broken)
            #expect(reply.status == 400)
            #expect(reply.json["type"] as? String == "urn:workfeed:problem:unreadable-file")
            #expect(reply.json["line"] as? Int == 4 && reply.json["field"] as? String == "lat")
            #expect((reply.json["detail"] as? String ?? "").hasPrefix("bad.gpx:4: lat:"))
            #expect((try await system.get("/v1/feed", as: "alice").json["items"] as? [Any])?.isEmpty == true)
            let zip = try await system.call("POST", "/v1/workouts", token: system.token("alice"), body: Data([0x50, 0x4B, 0x03, 0x04, 0, 0]))
            #expect(zip.status == 415)
            let empty = try await system.call("POST", "/v1/workouts", token: system.token("alice"), body: Data())
            #expect(empty.status == 400)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func uploadsOverTheLimitAreRefused() async throws {
        let system = try await GatewaySystem(workers: 0) { $0.uploadMaximumBytes = 2048 }
        do {
            let reply = try await system.upload(ride, as: "alice")
            #expect(reply.status == 413 && reply.json["type"] as? String == "urn:workfeed:problem:too-large")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 23, finding 6: uploads are bounded per owner and minute; past it, 429 with
    /// Retry-After, and another owner's uploads go on.
    @Test func uploadsPastTheOwnersBoundAreAnswered429WithRetryAfter() async throws {
        let system = try await GatewaySystem(workers: 0) { $0.uploadsPerOwnerPerMinute = 2 }
        do {
            #expect(try await system.upload(run, as: "alice").status == 201)
            #expect(try await system.upload(ride, as: "alice").status == 201)
            let third = try await system.upload(run, as: "alice", name: "again.gpx")
            #expect(third.status == 429 && third.json["type"] as? String == "urn:workfeed:problem:too-many-uploads")
            let retry = try #require(third.header("Retry-After").flatMap(Int.init))
            // Two a minute: the next one is let in about 30 s later.
            #expect((1...30).contains(retry))
            #expect(third.json["retryAfter"] as? Int == retry)
            #expect(try await system.upload(run, as: "bob").status == 201)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func healthReadinessMetricsAndProblems() async throws {
        let system = try await GatewaySystem(workers: 0)
        do {
            #expect(try await system.get("/healthz").status == 200)
            #expect(try await system.get("/readyz").status == 200)
            _ = try await system.get("/v1/feed", as: "alice")
            let metrics = String(decoding: try await system.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"workfeed_gateway_requests_total{route="/v1/feed",method="GET",status="200"} 1"#))
            #expect(metrics.contains("workfeed_gateway_request_duration_seconds_bucket"))
            let missing = try await system.get("/nothing/here")
            #expect(missing.status == 404 && missing.json["type"] as? String == "urn:workfeed:problem:not-found")
            #expect(missing.json["status"] as? Int == 404)
            // A known path with another method: 405 with Allow, before any token check.
            let wrong = try await system.call("POST", "/v1/feed")
            #expect(wrong.status == 405 && wrong.header("Allow") == "GET, HEAD")
            #expect(wrong.json["type"] as? String == "urn:workfeed:problem:method-not-allowed")
            #expect(try await system.call("PUT", "/v1/workouts/\(UUID().uuidString.lowercased())").header("Allow") == "GET, HEAD, DELETE")
            // The feed page is served at /.
            let page = try await system.get("/")
            #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(String(decoding: page.body, as: UTF8.self).contains("IntersectionObserver"))
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
