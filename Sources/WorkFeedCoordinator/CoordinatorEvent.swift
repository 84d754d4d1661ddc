import Foundation
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// What the coordinator publishes on its event socket (docs/PROTOCOL.md, "Event stream"):
/// `[topic][JSON]`, topic `status` or `worker`.
enum CoordinatorEvent {
    case status(PictureID, JobStatus, reason: String?)
    case worker(name: String, change: String)

    /// The event for a change to a job; `nil` when nothing changed.
    init?(_ effect: CompletionEffect) {
        guard case .updated(let picture, let status, let reason, _) = effect else { return nil }
        self = .status(picture, status, reason: reason)
    }

    var frames: [[UInt8]] {
        let timestamp = Date()
        switch self {
        case .status(let picture, let status, let reason):
            let body = StatusEvent(
                workoutID: picture.workoutID, kind: picture.kind, theme: picture.theme, scale: picture.scale, status: status,
                reason: reason, at: timestamp)
            return [Array("status".utf8), (try? ControlCodec.encode(body)) ?? []]
        case .worker(let name, let change):
            return [Array("worker".utf8), (try? ControlCodec.encode(WorkerEvent(name: name, change: change, at: timestamp))) ?? []]
        }
    }
}
