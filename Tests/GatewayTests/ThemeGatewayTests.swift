import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStyle

/// A theme the coordinator's configuration adds is requested on upload and served by the gateway
/// like light and dark; a theme it does not list is 404.
@Suite(.serialized) struct ThemeGatewayTests {
    @Test func aConfiguredThirdThemeIsRequestedOnUploadAndServed() async throws {
        let sepia = Theme(rawValue: "sepia")!
        var sepiaStyle = ThemeStyle.shipped[.light]!
        sepiaStyle.route.background = RGBA(hex: "#f1e7d0")!
        let system = try await GatewaySystem(adjustCoordinator: {
            $0.themes = [.light, .dark, sepia]
            $0.themeStyles[sepia] = sepiaStyle
        })
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            #expect(upload.status == 201)
            let id = try #require(upload.uploaded["id"] as? String)
            // The upload asked for every configured theme's picture.
            let item = try await system.get("/v1/workouts/\(id)", as: "alice")
            let themes = Set(((item.json["pictures"] as? [[String: Any]]) ?? []).compactMap { $0["theme"] as? String })
            #expect(themes == ["light", "dark", "sepia"])

            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/sepia?wait=10", as: "alice")
            #expect(requested.status == 200)
            let picture = try #require(requested.json["picture"] as? [String: Any])
            #expect(picture["theme"] as? String == "sepia" && picture["status"] as? String == "generated")
            let png = try await system.get(try #require(picture["url"] as? String))
            #expect(png.status == 200 && png.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            for (theme, detail) in [("mauve", "no picture theme mauve"), ("Not_A_Theme", "no picture theme Not_A_Theme")] {
                let refused = try await system.get("/v1/workouts/\(id)/pictures/route/\(theme)", as: "alice")
                #expect(refused.status == 404, "\(theme)")
                #expect(refused.json["detail"] as? String == detail, "\(refused.json)")
            }
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
