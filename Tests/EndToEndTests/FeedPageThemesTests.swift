import Foundation
import Testing
@testable import WorkFeedCtl
import WorkFeedModel
import WorkFeedWire

/// `workctl feed --html` shows every theme a workout's pictures were drawn in (issue 41): light
/// and dark as one picture that follows the system's scheme, any other configured theme beside
/// it under its name, and a failed one's reason.
@Suite struct FeedPageThemesTests {
    static func record(_ id: WorkoutID, _ kind: PictureKind, _ theme: String, _ status: JobStatus, key: String? = nil) -> PictureRecord {
        PictureRecord(
            picture: PictureID(workoutID: id, kind: kind, theme: Theme(rawValue: theme)!), status: status,
            reason: status == .failedNoRetry ? "no heart-rate samples" : nil, cacheKey: key, attempts: 0, updatedAt: Date())
    }

    @Test func everyThemeIsShownAndAFailedOneSaysWhy() throws {
        let id = WorkoutID(UUID())
        let workout = WorkoutRecord(
            id: id, source: .gpx, sourceID: "a", activity: .running, name: "Loop",
            summary: WorkoutSummary(route: Route(), heartRate: [], start: nil, end: nil), timeZoneOffset: nil, routeVersion: 1,
            routeHash: "r", heartRateHash: "h", anchor: 1)
        let pictures = [
            Self.record(id, .route, "light", .generated), Self.record(id, .route, "dark", .generated),
            Self.record(id, .route, "sepia", .generated), Self.record(id, .heatmap, "sepia", .failedNoRetry),
        ]
        let page = FeedPage(
            items: [WorkoutWithPictures(workout: workout, pictures: pictures)], cacheDirectory: "/srv/cache", pageFile: "/srv/page.html")
        let html = page.render()
        let route = page.picture(for: page.items[0], kind: .route)
        #expect(route.contains("media=\"(prefers-color-scheme: dark)\"") && route.contains("_dark.png") && route.contains("_light.png"))
        #expect(route.contains("<figcaption>sepia</figcaption>") && route.contains("_sepia.png"), "\(route)")
        // The heatmap exists in sepia only (failed): no light and dark placeholder, the reason under its theme.
        let heatmap = page.picture(for: page.items[0], kind: .heatmap)
        #expect(heatmap == "<figure><div class=\"placeholder\">No picture: no heart-rate samples</div><figcaption>sepia</figcaption></figure>")
        #expect(html.contains(heatmap) && html.contains(route))
    }
}
