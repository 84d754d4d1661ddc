import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
            // Written by hand: one of these goes out for every finished job, and JSONEncoder would
            // cost more than the rest of the job's bookkeeping. Same keys and order as StatusEvent's
            // sorted-key encoding.
            var json = "{\"at\":\"\(Self.iso8601(timestamp))\",\"kind\":\"\(picture.kind.rawValue)\""
            if let reason { json += ",\"reason\":" + Self.quoted(reason) }
            json += ",\"scale\":\(picture.scale),\"status\":\"\(status.rawValue)\",\"theme\":\"\(picture.theme.rawValue)\""
            json += ",\"workoutID\":\"\(picture.workoutID)\"}"
            return [Array("status".utf8), Array(json.utf8)]
        case .worker(let name, let change):
            return [Array("worker".utf8), (try? ControlCodec.encode(WorkerEvent(name: name, change: change, at: timestamp))) ?? []]
        }
    }
}

extension CoordinatorEvent {
    static func iso8601(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
