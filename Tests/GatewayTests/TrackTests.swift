import Foundation
import Testing
import WorkFeedModel

/// `GET /v1/workouts/{id}/track` over the router with a real coordinator (docs/gateway.md, "A
/// workout's track"): the polylines decode to the GeoJSON's points, the bound holds on a long
/// recording, a point inside a privacy zone never appears, and another owner's workout is 404.
@Suite(.serialized) struct TrackTests {
    let json = ["Content-Type": "application/json"]
    static let longWalk = RealImportFixture.path("gpx-edge/open-gpx-tracker_ios_4142pts_no-hr.gpx")

    /// Google's encoded polyline, decoded (written here, apart from the encoder it checks).
    static func decode(_ text: String, precision: Int = 5) -> [(latitude: Double, longitude: Double)] {
        let bytes = Array(text.utf8)
        var position = 0
        func next() -> Int64? {
            var result: Int64 = 0
            var shift: Int64 = 0
            while position < bytes.count {
                let chunk = Int64(bytes[position]) - 63
                position += 1
                result |= (chunk & 0x1F) << shift
                shift += 5
                if chunk < 0x20 { return (result & 1) != 0 ? ~(result >> 1) : result >> 1 }
            }
            return nil
        }
        var points: [(latitude: Double, longitude: Double)] = []
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        let scale = pow(10, Double(precision))
        while position < bytes.count, let dLatitude = next(), let dLongitude = next() {
            latitude += dLatitude
            longitude += dLongitude
            points.append((Double(latitude) / scale, Double(longitude) / scale))
        }
        return points
    }

    /// Every point of a track answer: the polylines decoded, each checked against the GeoJSON.
    static func points(of track: [String: Any]) -> [(latitude: Double, longitude: Double)] {
        let polylines = track["polylines"] as? [String] ?? []
        let lines = ((track["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]]) ?? []
        #expect(polylines.count == lines.count)
        var all: [(latitude: Double, longitude: Double)] = []
        for (polyline, line) in zip(polylines, lines) {
            let decoded = decode(polyline)
            #expect(decoded.count == line.count && decoded.count >= 2)
            for (point, coordinate) in zip(decoded, line) {
                #expect(abs(point.latitude - coordinate[1]) <= 0.000_005_01 && abs(point.longitude - coordinate[0]) <= 0.000_005_01)
            }
            all += decoded
        }
        #expect(all.count == track["points"] as? Int)
        return all
    }

    static func metres(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double {
        WorkoutSummary.haversine(RoutePoint(latitude: a.latitude, longitude: a.longitude), RoutePoint(latitude: b.latitude, longitude: b.longitude))
    }

    @Test func aTrackDecodesToItsPointsWithItsSeries() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            let reply = try await system.get("/v1/workouts/\(id)/track", as: "alice")
            #expect(reply.status == 200 && reply.header("Content-Type") == "application/json")
            let track = reply.json
            #expect(track["id"] as? String == id && track["hidden"] as? Bool == false)
            // 42 points: fewer than the bound, all kept.
            #expect(track["sourcePoints"] as? Int == 42 && track["points"] as? Int == 42 && track["tolerance"] as? Double == 0)
            let points = Self.points(of: track)
            #expect(points.count == 42)
            let heartRate = try #require(track["heartRate"] as? [String: Any])
            let beats = heartRate["samples"] as? [[String: Double]] ?? []
            #expect(heartRate["unit"] as? String == "bpm" && beats.count == 42)
            let elevation = try #require(track["elevation"] as? [String: Any])
            let heights = elevation["samples"] as? [[String: Double]] ?? []
            #expect(elevation["unit"] as? String == "m" && !heights.isEmpty)
            // Distances start at 0, never go back, and end at the route's length.
            let distance = try #require(track["distance"] as? Double)
            for series in [beats, heights] {
                let along = series.compactMap { $0["distance"] }
                #expect(along.first == 0 && zip(along, along.dropFirst()).allSatisfy { $0 <= $1 })
                #expect(abs((along.last ?? 0) - distance) < 1)
            }
            #expect(beats.allSatisfy { ($0["value"] ?? 0) > 40 && ($0["value"] ?? 0) < 220 })

            // Another owner's workout and an unknown one: 404, as every workout route answers.
            #expect(try await system.get("/v1/workouts/\(id)/track", as: "bob").status == 404)
            #expect(try await system.get("/v1/workouts/\(UUID().uuidString.lowercased())/track", as: "alice").status == 404)
            #expect(try await system.get("/v1/workouts/nope/track", as: "alice").status == 404)
            #expect(try await system.get("/v1/workouts/\(id)/track").status == 401)
            #expect(try await system.call("POST", "/v1/workouts/\(id)/track", token: system.token("alice")).status == 405)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func aLongRouteIsBoundedAndAZoneHidesEveryPointInIt() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let alice = system.token("alice")
            let upload = try await system.upload(Self.longWalk, as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            let before = try await system.get("/v1/workouts/\(id)/track", as: "alice").json
            #expect(before["sourcePoints"] as? Int == 4142)
            let all = Self.points(of: before)
            #expect(all.count <= 1000 && all.count > 500, "\(all.count)")
            #expect((before["tolerance"] as? Double ?? 0) > 0)
            #expect(((before["elevation"] as? [String: Any])?["samples"] as? [Any])?.count ?? 0 <= 500)

            // A zone around the middle of the walk: the route is cut there, and no point of the
            // answer lies inside the zone (nor the polylines' nor the GeoJSON's).
            let middle = all[all.count / 2]
            let radius = 300.0
            let body = Data(#"{"latitude": \#(middle.latitude), "longitude": \#(middle.longitude), "radius": \#(radius)}"#.utf8)
            #expect(try await system.call("POST", "/v1/zones", token: alice, headers: json, body: body).status == 201)
            let after = try await system.get("/v1/workouts/\(id)/track", as: "alice").json
            #expect(after["hidden"] as? Bool == true)
            #expect((after["polylines"] as? [String])?.count ?? 0 >= 2)
            let visible = Self.points(of: after)
            #expect(!visible.isEmpty && visible.count <= 1000)
            let closest = visible.map { Self.metres($0, middle) }.min() ?? 0
            #expect(closest > radius, "a point \(closest) m from the zone's centre")
            #expect((after["distance"] as? Double ?? 0) < (before["distance"] as? Double ?? 0))
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}

/// A real file of the import tests (Tests/WorkFeedImportTests/Fixtures, origins in SOURCES.md there).
enum RealImportFixture {
    static func path(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WorkFeedImportTests/Fixtures/\(relative)").path
    }
}
