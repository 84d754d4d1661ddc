import Foundation
import Testing
import WorkFeedRender

/// Share cards through the gateway (issue 40, part 1): a post by default and a story by `size`,
/// each at the social apps' pixels unless a scale is asked; `size` on a kind that is not a card,
/// or a size that is none, is 400.
@Suite(.serialized) struct ShareCardGatewayTests {
    @Test func aCardIsServedAtItsSizeAndASizeOnAnotherKindIs400() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let run = try #require(
                try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice").uploaded["id"] as? String)
            let item = try await system.get("/v1/workouts/\(run)", as: "alice")
            #expect((item.json["pictureKinds"] as? [String])?.contains("share") == true, "\(item.json)")
            for (query, kind, width, height) in [
                ("", "share", 1080, 1350), ("&size=post", "share", 1080, 1350), ("&size=story", "story", 1080, 1920),
                ("&size=story&scale=1", "story", 360, 640),
            ] {
                let drawn = try await system.get("/v1/workouts/\(run)/pictures/share/light?wait=10\(query)", as: "alice")
                let picture = try #require(drawn.json["picture"] as? [String: Any], "\(query): \(drawn.status) \(drawn.json)")
                #expect(drawn.status == 200 && picture["kind"] as? String == kind, "\(query): \(drawn.json)")
                #expect(picture["width"] as? Int == width / (picture["scale"] as? Int ?? 1), "\(query): points")
                let png = try await system.get(try #require(picture["url"] as? String))
                let image = try PNGCodec.decode([UInt8](png.body))
                #expect(image.width == width && image.height == height, "\(query)")
            }
            for (path, query) in [("route", "size=story"), ("share", "size=poster")] {
                let refused = try await system.get("/v1/workouts/\(run)/pictures/\(path)/light?\(query)", as: "alice")
                #expect(refused.status == 400, "\(path)?\(query): \(refused.status) \(refused.json)")
            }
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// The transparent card is drawn when asked for, as an RGBA picture whose corners let a photo
    /// through; an upload asks for the themes drawn ahead only, so the feed names no transparent
    /// picture; a theme in neither list is 404.
    @Test func aTransparentCardIsDrawnOnRequestOnly() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let run = try #require(
                try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice").uploaded["id"] as? String)
            let item = try await system.get("/v1/workouts/\(run)", as: "alice")
            let themes = Set(((item.json["pictures"] as? [[String: Any]]) ?? []).compactMap { $0["theme"] as? String })
            #expect(!themes.isEmpty && !themes.contains("transparent"), "the feed names the themes drawn ahead: \(item.json)")
            let drawn = try await system.get("/v1/workouts/\(run)/pictures/share/transparent?wait=10&scale=1", as: "alice")
            let picture = try #require(drawn.json["picture"] as? [String: Any], "\(drawn.status) \(drawn.json)")
            let png = [UInt8](try await system.get(try #require(picture["url"] as? String)).body)
            #expect(png.count > 25 && png[25] == 6, "an RGBA PNG")
            let image = try PNGCodec.decode(png)
            #expect(image.width == 360 && image.height == 450 && image.rgba[3] == 0, "a see-through corner")
            let unknown = try await system.get("/v1/workouts/\(run)/pictures/share/sepia?wait=0", as: "alice")
            #expect(unknown.status == 404, "\(unknown.status) \(unknown.json)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
