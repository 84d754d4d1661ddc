import Foundation
import Testing
import WorkFeedTesting

/// `GET`/`PUT /v1/settings` over HTTP, against a real coordinator and worker (docs/settings.md):
/// each owner sees and replaces only their own settings, bad ones are refused naming the field, and
/// a new maximum heart rate gives the owner's heatmap a new picture while the route keeps its own.
@Suite(.serialized) struct SettingsTests {
    let json = ["Content-Type": "application/json"]

    /// The URL of alice's picture of `kind` in the light theme, once drawn (waiting up to 10 s).
    static func pictureURL(_ system: GatewaySystem, _ id: String, _ kind: String) async throws -> String? {
        let reply = try await system.get("/v1/workouts/\(id)/pictures/\(kind)/light?scale=1&wait=10", as: "alice")
        return (reply.json["picture"] as? [String: Any])?["url"] as? String
    }

    @Test func anOwnerReplacesTheirSettingsAndTheirHeatmapsFollow() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let alice = system.token("alice")
            #expect(try await system.get("/v1/settings").status == 401)
            let fresh = try await system.get("/v1/settings", as: "alice")
            #expect(fresh.status == 200)
            #expect((fresh.json["settings"] as? [String: Any])?.isEmpty == true)
            let configured = try #require(fresh.json["heartRateZones"] as? [String: Any])
            #expect(configured["bounds"] as? [Double] == [100, 140, 180] && configured["source"] as? String == "configured")

            // A heatmap drawn with the configured zones, and the route picture.
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            func pictureURL(_ kind: String) async throws -> String? { try await Self.pictureURL(system, id, kind) }
            let heatmapBefore = try #require(try await pictureURL("heatmap"))
            let routeBefore = try #require(try await pictureURL("route"))

            let put = try await system.call(
                "PUT", "/v1/settings", token: alice, headers: json,
                body: Data(
                    #"{"heartRateZones": {"maximumHeartRate": 190}, "units": "imperial", "timeZone": "Europe/Berlin", "firstWeekday": 1}"#.utf8))
            #expect(put.status == 200)
            let settings = try #require(put.json["settings"] as? [String: Any])
            #expect((settings["heartRateZones"] as? [String: Any])?["maximumHeartRate"] as? Double == 190)
            #expect(settings["units"] as? String == "imperial" && settings["timeZone"] as? String == "Europe/Berlin")
            #expect(settings["firstWeekday"] as? String == "sunday")
            let zones = try #require(put.json["heartRateZones"] as? [String: Any])
            #expect(zones["bounds"] as? [Double] == [133, 152, 171] && zones["source"] as? String == "maximum-heart-rate")
            let read = try await system.get("/v1/settings", as: "alice")
            #expect((read.json["settings"] as? [String: Any])?["units"] as? String == "imperial")
            // Bob's are his own.
            #expect((try await system.get("/v1/settings", as: "bob").json["settings"] as? [String: Any])?.isEmpty == true)

            // The heatmap is drawn again under a new key; the route picture keeps its own.
            var heatmapAfter: String?
            for _ in 0..<20 {
                heatmapAfter = try await pictureURL("heatmap")
                if let heatmapAfter, heatmapAfter != heatmapBefore { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(heatmapAfter != nil && heatmapAfter != heatmapBefore)
            #expect(try await pictureURL("route") == routeBefore)

            // PUT replaces: what it leaves out is unset.
            let cleared = try await system.call("PUT", "/v1/settings", token: alice, headers: json, body: Data(#"{"units": "metric"}"#.utf8))
            #expect(cleared.status == 200)
            #expect((cleared.json["settings"] as? [String: Any])?.keys.sorted() == ["units"])
            #expect((cleared.json["heartRateZones"] as? [String: Any])?["source"] as? String == "configured")
            #expect(try await system.call("DELETE", "/v1/settings", token: alice).status == 405)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func badSettingsAreRefusedNamingTheFieldAndChangeNothing() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let alice = system.token("alice")
            let first = try await system.call("PUT", "/v1/settings", token: alice, headers: json, body: Data(#"{"units": "imperial"}"#.utf8))
            #expect(first.status == 200)
            for (body, field) in [
                (#"{"units": "imperial", "colour": "red"}"#, "colour"),
                (#"{"heartRateZones": {"maximumHeartRate": 300}}"#, "heartRateZones.maximumHeartRate"),
                (#"{"heartRateZones": {"maximumHeartRate": "high"}}"#, "heartRateZones.maximumHeartRate"),
                (#"{"heartRateZones": {"bounds": [150, 140, 160]}}"#, "heartRateZones.bounds[1]"),
                (#"{"heartRateZones": {"bounds": [20, 140, 160]}}"#, "heartRateZones.bounds[0]"),
                // Bounds must fill the heatmap's four zones: the coordinator knows how many there are.
                (#"{"heartRateZones": {"bounds": [120, 150]}}"#, "heartRateZones.bounds"),
                (#"{"heartRateZones": {"maximumHeartRate": 190, "bounds": [120, 140, 160]}}"#, "heartRateZones"),
                (#"{"heartRateZones": {"restingHeartRate": 50}}"#, "heartRateZones.restingHeartRate"),
                (#"{"units": "stones"}"#, "units"),
                (#"{"timeZone": "Europe/Atlantis"}"#, "timeZone"),
                (#"{"firstWeekday": 0}"#, "firstWeekday"),
            ] {
                let refused = try await system.call("PUT", "/v1/settings", token: alice, headers: json, body: Data(body.utf8))
                #expect(refused.status == 400, "\(body)")
                #expect(refused.json["type"] as? String == "urn:workfeed:problem:bad-settings", "\(body)")
                #expect(refused.json["field"] as? String == field, "\(body): \(refused.json)")
            }
            for body in ["not json", "[]"] {
                let refused = try await system.call("PUT", "/v1/settings", token: alice, headers: json, body: Data(body.utf8))
                #expect(refused.status == 400 && refused.json["type"] as? String == "urn:workfeed:problem:bad-settings", "\(body.prefix(20))")
            }
            // More than a settings object can be: 413 at once, as zones and uploads answer.
            let large = try await system.call(
                "PUT", "/v1/settings", token: alice, headers: json, body: Data((String(repeating: " ", count: 5000) + "{}").utf8))
            #expect(large.status == 413)
            let kept = try await system.get("/v1/settings", as: "alice")
            #expect((kept.json["settings"] as? [String: Any])?.keys.sorted() == ["units"])
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// `PATCH /v1/settings` is a JSON merge patch: a units-only patch keeps the maximum heart rate,
    /// and since the zones did not change, no picture of the owner is drawn again or gets a new URL.
    @Test func aPatchChangesOnlyWhatItNamesAndRedrawsNothingElse() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let alice = system.token("alice")
            let patchType = ["Content-Type": "application/merge-patch+json"]
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            func pictureURL(_ kind: String) async throws -> String? { try await Self.pictureURL(system, id, kind) }
            let configuredHeatmap = try #require(try await pictureURL("heatmap"))
            let put = try await system.call(
                "PUT", "/v1/settings", token: alice, headers: json, body: Data(#"{"heartRateZones": {"maximumHeartRate": 190}}"#.utf8))
            #expect(put.status == 200)
            var heatmap: String?
            for _ in 0..<30 {
                heatmap = try await pictureURL("heatmap")
                if let heatmap, heatmap != configuredHeatmap { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let ownHeatmap = try #require(heatmap)
            #expect(ownHeatmap != configuredHeatmap)
            let route = try #require(try await pictureURL("route"))
            // Every picture asked for so far, with its state and URL.
            func pictures() async throws -> [String] {
                let shown = try await system.get("/v1/workouts/\(id)", as: "alice")
                return (shown.json["pictures"] as? [[String: Any]] ?? []).map {
                    "\($0["kind"] ?? "") \($0["theme"] ?? "") \($0["scale"] ?? "") \($0["status"] ?? "") \($0["url"] ?? "-")"
                }.sorted()
            }
            let before = try await pictures()
            #expect(!before.isEmpty && before.allSatisfy { $0.contains(" generated ") }, "\(before)")

            // Units alone: the maximum heart rate is kept, and not one picture moves.
            let units = try await system.call("PATCH", "/v1/settings", token: alice, headers: patchType, body: Data(#"{"units": "imperial"}"#.utf8))
            #expect(units.status == 200)
            let patched = try #require(units.json["settings"] as? [String: Any])
            #expect(patched.keys.sorted() == ["heartRateZones", "units"])
            #expect((patched["heartRateZones"] as? [String: Any])?["maximumHeartRate"] as? Double == 190 && patched["units"] as? String == "imperial")
            #expect((units.json["heartRateZones"] as? [String: Any])?["bounds"] as? [Double] == [133, 152, 171])
            #expect(try await pictures() == before)
            #expect(try await pictureURL("heatmap") == ownHeatmap)
            #expect(try await pictureURL("route") == route)

            // null unsets a member, the others are kept; application/json is taken too; {} changes nothing.
            let more = try await system.call(
                "PATCH", "/v1/settings", token: alice, headers: json,
                body: Data(#"{"timeZone": "Europe/Berlin", "units": null, "firstWeekday": 1}"#.utf8))
            #expect(more.status == 200)
            let now = try #require(more.json["settings"] as? [String: Any])
            #expect(now.keys.sorted() == ["firstWeekday", "heartRateZones", "timeZone"], "\(now)")
            let empty = try await system.call("PATCH", "/v1/settings", token: alice, headers: json, body: Data("{}".utf8))
            #expect(empty.status == 200 && (empty.json["settings"] as? [String: Any])?.keys.sorted() == now.keys.sorted())
            #expect(try await pictures() == before)

            // A bad member is refused by name and changes nothing, as for PUT.
            for (body, field) in [
                (#"{"units": "stones"}"#, "units"), (#"{"colour": null}"#, "colour"),
                (#"{"heartRateZones": {"bounds": [120, 150]}}"#, "heartRateZones.bounds"),
            ] {
                let refused = try await system.call("PATCH", "/v1/settings", token: alice, headers: json, body: Data(body.utf8))
                #expect(refused.status == 400 && refused.json["field"] as? String == field, "\(body): \(refused.json)")
            }
            for body in ["null", "[]", "not json"] {
                let refused = try await system.call("PATCH", "/v1/settings", token: alice, headers: json, body: Data(body.utf8))
                #expect(refused.status == 400 && refused.json["type"] as? String == "urn:workfeed:problem:bad-settings", "\(body)")
            }
            let kept = try await system.get("/v1/settings", as: "alice")
            #expect((kept.json["settings"] as? [String: Any])?.keys.sorted() == now.keys.sorted())

            // Unsetting the zones does change the heatmap: it goes back to the configured zones' key.
            let zones = try await system.call("PATCH", "/v1/settings", token: alice, headers: json, body: Data(#"{"heartRateZones": null}"#.utf8))
            #expect((zones.json["heartRateZones"] as? [String: Any])?["source"] as? String == "configured")
            #expect((zones.json["settings"] as? [String: Any])?["timeZone"] as? String == "Europe/Berlin")
            for _ in 0..<30 {
                heatmap = try await pictureURL("heatmap")
                if heatmap == configuredHeatmap { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(heatmap == configuredHeatmap)
            #expect(try await pictureURL("route") == route)
            // Bob's settings were never touched.
            #expect((try await system.get("/v1/settings", as: "bob").json["settings"] as? [String: Any])?.isEmpty == true)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 8: every zone and link of the system's tz database is a time zone an owner can
    /// set, through the real gateway over HTTP and the real coordinator, which both check it. Before,
    /// 154 of tzdata 2025b's 598 were refused, `Asia/Kolkata` and `Etc/UTC` among them, while
    /// `Asia/Calcutta` was accepted.
    @Test func everyZoneOfTheSystemsTzDatabaseCanBeSet() async throws {
        let (zones, source) = try SystemTimeZones.all()
        #expect(zones.count > 400, "\(source) lists only \(zones.count) zones")
        let system = try await GatewaySystem(workers: 0)
        do {
            let alice = system.token("alice")
            var refused: [String] = []
            for zone in zones {
                let body = try JSONSerialization.data(withJSONObject: ["timeZone": zone])
                let reply = try await system.call("PUT", "/v1/settings", token: alice, headers: json, body: body)
                if reply.status != 200 || (reply.json["settings"] as? [String: Any])?["timeZone"] as? String != zone {
                    refused.append("\(zone) (\(reply.status))")
                }
            }
            #expect(refused.isEmpty, "\(refused.count) of the \(zones.count) zones of \(source) refused: \(refused.joined(separator: ", "))")
            // A name tzdata does not have stays refused, naming the field.
            let unknown = try await system.call(
                "PUT", "/v1/settings", token: alice, headers: json, body: Data(#"{"timeZone": "Asia/Atlantis"}"#.utf8))
            #expect(unknown.status == 400 && unknown.json["field"] as? String == "timeZone")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
