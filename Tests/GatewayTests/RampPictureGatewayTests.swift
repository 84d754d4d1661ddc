import Foundation
import Testing
import WorkFeedRender

/// Pace and elevation pictures through the gateway (issue 40, part 2): asked for and served as
/// every picture is; a workout without times or altitudes is offered neither, and a request for
/// one is 422 naming what it lacks.
@Suite(.serialized) struct RampPictureGatewayTests {
    @Test func aRampPictureIsServedAndOneTheWorkoutCannotHaveIs422() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-ramp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A planned route: points without times or altitudes.
        let points = (0..<20).map { "<trkpt lat=\"49.40\(10 + $0)\" lon=\"8.69\(10 + $0)\"></trkpt>" }.joined()
        let bare = scratch.appendingPathComponent("planned.gpx")
        try Data(
            """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\(points)</trkseg></trk></gpx>
            """.utf8
        ).write(to: bare)

        let system = try await GatewaySystem(reach: .router)
        do {
            let planned = try #require(try await system.upload(bare.path, as: "alice").uploaded["id"] as? String)
            let item = try await system.get("/v1/workouts/\(planned)", as: "alice")
            #expect(item.json["pictureKinds"] as? [String] == ["route", "share", "story"], "\(item.json)")
            for (kind, reason) in [("pace", "no timestamps"), ("elevation", "no elevation")] {
                let refused = try await system.get("/v1/workouts/\(planned)/pictures/\(kind)/light?wait=5", as: "alice")
                #expect(refused.status == 422 && refused.json["reason"] as? String == reason, "\(kind): \(refused.status) \(refused.json)")
            }

            let run = try #require(
                try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice").uploaded["id"] as? String)
            for kind in ["pace", "elevation"] {
                let drawn = try await system.get("/v1/workouts/\(run)/pictures/\(kind)/dark?wait=10", as: "alice")
                let picture = try #require(drawn.json["picture"] as? [String: Any], "\(kind): \(drawn.status) \(drawn.json)")
                #expect(drawn.status == 200 && picture["status"] as? String == "generated", "\(kind)")
                let png = try await system.get(try #require(picture["url"] as? String))
                #expect(png.status == 200 && png.header("Content-Type") == "image/png")
                let image = try PNGCodec.decode([UInt8](png.body))
                #expect(image.width == 512 && image.height == 512)
            }
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
