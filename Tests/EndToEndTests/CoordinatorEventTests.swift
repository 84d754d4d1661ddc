import Foundation
import Testing
@testable import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// The status events are written by hand for speed; clients decode them as `StatusEvent`.
@Suite struct CoordinatorEventTests {
    let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: .dark, scale: 2)
    let at = Date(timeIntervalSince1970: 1_795_000_000)

    @Test(arguments: [
        nil, "no route", #"say "hi" \ back"#, "line\nbreak\ttab\r", "control \u{01}\u{1F}", "café 🏃 /var/cache/x.png",
    ])
    func statusEventsDecodeAsStatusEvent(reason: String?) throws {
        let code: FailureCode? = reason == nil ? nil : .noRoute
        let event = CoordinatorEvent.status(picture, reason == nil ? .generated : .failedNoRetry, reason: reason, code: code)
        let frames = event.frames(at: at, stamped: CoordinatorEvent.iso8601(at))
        #expect(frames.count == 2)
        #expect(frames[0] == Array("status".utf8))
        let decoded = try ControlCodec.decode(StatusEvent.self, from: frames[1])
        #expect(
            decoded
                == StatusEvent(
                    workoutID: picture.workoutID, kind: .heatmap, theme: .dark, scale: 2, status: reason == nil ? .generated : .failedNoRetry,
                    reason: reason, code: code?.rawValue, at: at))
        if reason == nil || reason == "no route" {
            // Byte for byte what JSONEncoder writes (sorted keys), when there is nothing to escape.
            #expect(frames[1] == (try ControlCodec.encode(decoded)))
        }
    }
}
