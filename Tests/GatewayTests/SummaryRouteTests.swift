import Foundation
import Testing

/// `GET /v1/summaries` over HTTP, against a real coordinator (docs/summaries.md): an upload
/// counts in its owner's buckets at once (the same transaction), with the same figures the feed
/// gives it, in the owner's calendar; another owner sees none of it; a deletion takes it out; a
/// bad parameter is a problem that names it.
@Suite(.serialized) struct SummaryRouteTests {
    @Test func anUploadCountsInItsOwnersBucketsAndADeletionTakesItOut() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            #expect(try await system.get("/v1/summaries").status == 401)
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let workout = upload.uploaded
            let id = try #require(workout["id"] as? String)
            let zone = try #require(workout["timeZone"] as? String)
            let localStart = try #require(workout["localStart"] as? String)
            let year = String(localStart.prefix(4))

            let reply = try await system.get("/v1/summaries?period=year&from=\(year)-01-01&to=\(year)-12-31", as: "alice")
            #expect(reply.status == 200)
            #expect(reply.json["period"] as? String == "year")
            #expect(reply.json["timeZone"] as? String == zone)
            #expect(reply.json["firstWeekday"] as? String == "monday")
            let buckets = try #require(reply.json["buckets"] as? [[String: Any]])
            #expect(buckets.count == 1)
            #expect((buckets[0]["start"] as? String)?.hasPrefix("\(year)-01-01T00:00:00") == true)
            #expect((buckets[0]["end"] as? String)?.hasPrefix("\(Int(year)! + 1)-01-01T00:00:00") == true)
            let total = try #require(buckets[0]["total"] as? [String: Any])
            let activity = try #require(workout["activity"] as? String)
            let own = try #require((buckets[0]["activities"] as? [String: Any])?[activity] as? [String: Any])
            #expect(total["count"] as? Int == 1)
            // The feed's figures, to the millimetre and millisecond the buckets keep.
            let distance = try #require(workout["distance"] as? [String: Any])
            #expect((total["distance"] as? NSDictionary) == distance as NSDictionary)
            let elapsed = try #require(workout["elapsedTime"] as? Double)
            #expect(abs((total["elapsedTime"] as? Double ?? -1) - elapsed) <= 0.0005)
            #expect(total["heartRateMax"] as? Double == workout["heartRateMax"] as? Double)
            let zones = try #require(total["timeInZones"] as? [Double])
            #expect(zones.count == 4 && zones.reduce(0, +) > 0 && zones.reduce(0, +) <= elapsed)
            #expect((own["longest"] as? [String: Any])?["id"] as? String == id)
            #expect(own["count"] as? Int == 1)
            // The anchor is the change log's: no workout changed after it (its pictures may, as the
            // worker draws them).
            let anchor = try #require(reply.json["anchor"] as? Int)
            let changes = try await system.get("/v1/changes?since=\(anchor)", as: "alice")
            let kinds = (changes.json["changes"] as? [[String: Any]] ?? []).compactMap { $0["change"] as? String }
            #expect(kinds.allSatisfy { $0 == "pictures" })

            // Bob has no workouts; a week of his is twelve empty buckets by default.
            let bob = try await system.get("/v1/summaries?period=week", as: "bob")
            let bobs = try #require(bob.json["buckets"] as? [[String: Any]])
            #expect(bobs.count == 12)
            #expect(bobs.allSatisfy { ($0["total"] as? [String: Any])?["count"] as? Int == 0 })

            #expect(try await system.call("DELETE", "/v1/workouts/\(id)", token: system.token("alice")).status == 204)
            let after = try await system.get("/v1/summaries?period=year&from=\(year)-01-01&to=\(year)-12-31", as: "alice")
            let emptied = try #require((after.json["buckets"] as? [[String: Any]])?.first?["total"] as? [String: Any])
            #expect(emptied["count"] as? Int == 0)
            #expect((after.json["anchor"] as? Int ?? 0) > anchor)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func aBadParameterIsAProblemNamingIt() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            for (query, parameter) in [
                ("period=fortnight", "period"), ("activity=swimming", "activity"), ("from=2026-03-30&to=2026-03-01", "from"),
                ("from=2010-01-01&to=2026-01-01", "to"), ("from=2026-02-30", "from"), ("to=yesterday", "to"), ("from=1899-12-31", "from"),
            ] {
                let reply = try await system.get("/v1/summaries?\(query)", as: "alice")
                #expect(reply.status == 400, "\(query)")
                #expect(reply.json["type"] as? String == "urn:workfeed:problem:bad-parameter", "\(query)")
                #expect(reply.json["parameter"] as? String == parameter, "\(query)")
                #expect((reply.json["detail"] as? String)?.contains(parameter) == true, "\(query)")
            }
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// One shape for a fact (issue 36): the summaries name the climb `elevationGain` as a workout
    /// does, and give lengths and speeds as `{"unit", "value"}` in the owner's units, and heart
    /// rate in whole beats, as the feed does.
    @Test func summariesUseTheWorkoutsNamesAndUnits() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let workout = upload.uploaded
            let year = String(try #require(workout["localStart"] as? String).prefix(4))
            func total() async throws -> [String: Any] {
                let reply = try await system.get("/v1/summaries?period=year&from=\(year)-01-01&to=\(year)-12-31", as: "alice")
                return try #require((reply.json["buckets"] as? [[String: Any]])?.first?["total"] as? [String: Any])
            }
            func shown() async throws -> [String: Any] { try await system.get("/v1/workouts/\(workout["id"] as? String ?? "")", as: "alice").json }
            func longest() async throws -> [String: Any] {
                let total = try await total()
                #expect(total["climb"] == nil && total["elevationGain"] is [String: Any])
                // Unknown calories are absent here as in the workout, never 0.
                #expect((total["calories"] == nil) == (workout["calories"] == nil))
                return try #require(total["longest"] as? [String: Any])
            }
            // One workout: the bucket's lengths and heart rate are the workout's, to the digit, unit and all.
            func same(_ bucket: [String: Any], _ item: [String: Any], units: (String, String)) throws {
                let distance = try #require(bucket["distance"] as? [String: Any])
                #expect(distance as NSDictionary == (try #require(item["distance"] as? [String: Any])) as NSDictionary)
                #expect(distance["unit"] as? String == units.0 && (distance["value"] as? Double ?? 0) > 0)
                let climb = try #require(bucket["elevationGain"] as? [String: Any])
                if let gain = item["elevationGain"] as? [String: Any] {
                    #expect(climb as NSDictionary == gain as NSDictionary)
                } else {
                    #expect(climb["value"] as? Double == 0)
                }
                #expect(climb["unit"] as? String == units.1)
                let longest = try #require(bucket["longest"] as? [String: Any])
                #expect((longest["distance"] as? NSDictionary) == distance as NSDictionary)
                let average = try #require(item["heartRateAverage"] as? Double)
                #expect(average == average.rounded() && bucket["heartRateAverage"] as? Double == average)
                #expect(bucket["heartRateMax"] as? Double == item["heartRateMax"] as? Double)
            }
            try same(try await total(), workout, units: ("km", "m"))
            let metric = try #require(try await longest()["speed"] as? [String: Any])
            let distance = try #require((workout["distance"] as? [String: Any])?["value"] as? Double) * 1000
            let seconds = try #require((workout["movingTime"] ?? workout["elapsedTime"]) as? Double)
            #expect(metric["unit"] as? String == "km/h")
            #expect(metric["value"] as? Double == (distance / 1000 / (seconds / 3600) * 100).rounded() / 100)
            let patch = try await system.call(
                "PATCH", "/v1/settings", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"units": "imperial"}"#.utf8))
            #expect(patch.status == 200)
            let imperial = try #require(try await longest()["speed"] as? [String: Any])
            #expect(imperial["unit"] as? String == "mph")
            try same(try await total(), try await shown(), units: ("mi", "ft"))
            #expect(abs((imperial["value"] as? Double ?? 0) - (metric["value"] as? Double ?? 0) / 1.609344) < 0.01)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 9: the day Samoa skipped (Pacific/Apia went from 2011-12-29 to 2011-12-31)
    /// has no bucket (it had one of zero length), the day before it ends where the day after it
    /// starts, and a week that would start on it starts at the first instant after it.
    @Test func aDayTheZoneSkippedHasNoBucket() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let put = try await system.call(
                "PUT", "/v1/settings", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"timeZone": "Pacific/Apia", "firstWeekday": "friday"}"#.utf8))
            #expect(put.status == 200)
            let days = try await Self.buckets(system, "period=day&from=2011-12-28&to=2011-12-31", zone: "Pacific/Apia")
            #expect(
                days.map { "\($0.start) \($0.end)" } == [
                    "2011-12-28T00:00:00-10:00 2011-12-29T00:00:00-10:00", "2011-12-29T00:00:00-10:00 2011-12-31T00:00:00+14:00",
                    "2011-12-31T00:00:00+14:00 2012-01-01T00:00:00+14:00",
                ])
            // The week from Friday 30 December starts on Saturday the 31st, and has six days.
            let weeks = try await Self.buckets(system, "period=week&from=2011-12-30&to=2011-12-30", zone: "Pacific/Apia")
            #expect(weeks.map { "\($0.start) \($0.end)" } == ["2011-12-31T00:00:00+14:00 2012-01-06T00:00:00+14:00"])
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 9: an offset with seconds is written with them, in a summary's buckets
    /// (Africa/Monrovia was UTC-0:44:30 until 1972) and in a workout's `localStart`, so that the
    /// text names the very instant (cut to -00:44 it named one 30 s off).
    @Test func offsetsWithSecondsKeepThem() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            // A run in Monrovia in 1960, its times in UTC: the zone comes from the position.
            let file = system.directory.appendingPathComponent("monrovia-1960.gpx")
            let points = (0..<20).map { index in
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: -299_160_000 + Double(index) * 10))
                return #"<trkpt lat="\#(6.3 + Double(index) * 0.0003)" lon="-10.8"><time>\#(time)</time></trkpt>"#
            }
            try
                (#"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
                + points.joined() + "</trkseg></trk></gpx>").write(to: file, atomically: true, encoding: .utf8)
            let upload = try await system.upload(file.path, as: "alice")
            #expect(upload.status == 201)
            let workout = upload.uploaded
            #expect(workout["timeZone"] as? String == "Africa/Monrovia")
            #expect(workout["timeZoneOffset"] as? Int == -2670)
            #expect(workout["start"] as? String == "1960-07-09T12:00:00Z")
            #expect(workout["localStart"] as? String == "1960-07-09T11:15:30-00:44:30", "\(workout["localStart"] ?? "none")")

            let days = try await Self.buckets(system, "period=day&from=1960-07-09&to=1960-07-09", zone: "Africa/Monrovia")
            #expect(days.map { "\($0.start) \($0.end) \($0.count)" } == ["1960-07-09T00:00:00-00:44:30 1960-07-10T00:00:00-00:44:30 1"])
            // Where the offset has whole minutes, nothing changes.
            let after = try await Self.buckets(system, "period=day&from=1972-05-02&to=1972-05-02", zone: "Africa/Monrovia")
            #expect(after.map(\.start) == ["1972-05-02T00:00:00+00:00"])
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// The buckets of alice's summary for `query`, once it is counted in `zone` (a new zone is
    /// counted by a rebuild in the background).
    static func buckets(_ system: GatewaySystem, _ query: String, zone: String) async throws -> [(start: String, end: String, count: Int)] {
        var reply = try await system.get("/v1/summaries?\(query)", as: "alice")
        for _ in 0..<50 where reply.json["timeZone"] as? String != zone || reply.json["rebuilding"] != nil {
            try await Task.sleep(for: .milliseconds(100))
            reply = try await system.get("/v1/summaries?\(query)", as: "alice")
        }
        #expect(reply.status == 200 && reply.json["timeZone"] as? String == zone, "\(reply.json)")
        return (reply.json["buckets"] as? [[String: Any]] ?? []).map { bucket in
            (
                bucket["start"] as? String ?? "", bucket["end"] as? String ?? "",
                (bucket["total"] as? [String: Any])?["count"] as? Int ?? -1
            )
        }
    }
}
