import Foundation
import Testing

/// An upload with no track and no figures (docs/import.md, "Nothing to show") is refused with a
/// problem naming why, and nothing is stored; one with figures but no track is a workout. Real
/// files from `Tests/Data/empty-workouts` (origins in `Tests/Data/SOURCES.md`).
@Suite(.serialized) struct UploadContentTests {
    static func emptyWorkout(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/empty-workouts/\(name)").path
    }

    @Test func aFileWithNothingToShowIsRefusedAndNotStored() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            for (file, reason) in [
                ("waypoints-only_no-namespace.gpx", "no-points"), ("single-trkpt.gpx", "one-point"), ("empty-trk-no-points.gpx", "no-points"),
            ] {
                let refused = try await system.upload(Self.emptyWorkout(file), as: "alice", name: file)
                #expect(refused.status == 400, "\(file)")
                #expect(refused.header("Content-Type") == "application/problem+json")
                #expect(refused.json["type"] as? String == "urn:workfeed:problem:empty-workout", "\(file): \(refused.json)")
                #expect(refused.json["reason"] as? String == reason, "\(file)")
                #expect(refused.json["file"] as? String == file)
                let detail = refused.json["detail"] as? String ?? ""
                #expect(detail.hasPrefix("\(file): no track and no figures") && detail.hasSuffix("not stored"), "\(detail)")
                #expect(refused.header("Location") == nil)
            }
            // Nothing was stored: the feed and the changes are empty.
            let feed = try await system.get("/v1/feed", as: "alice")
            #expect(feed.status == 200 && (feed.json["items"] as? [Any])?.isEmpty == true)
            let changes = try await system.get("/v1/changes?since=0", as: "alice")
            #expect((changes.json["changes"] as? [Any])?.isEmpty == true)

            // No position anywhere, but the device's totals: a workout, shown as a compact card.
            let swim = try await system.upload(Self.emptyWorkout("garmin-vivoactive-hr_pool-swim_no-positions.tcx"), as: "alice")
            #expect(swim.status == 201)
            #expect(swim.uploaded["distance"] as? NSDictionary == ["unit": "km", "value": 1.5] && swim.uploaded["pointCount"] as? Int == 0)
            #expect((swim.uploaded["pictureKinds"] as? [String])?.isEmpty == true)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
