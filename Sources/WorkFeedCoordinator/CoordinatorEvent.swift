import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// What the coordinator publishes on its event socket (docs/PROTOCOL.md, "Event stream"):
/// `[topic][JSON]`, topic `status`, `worker`, `workout`, `queued` or `released`.
enum CoordinatorEvent {
    case status(PictureID, JobStatus, reason: String?, code: FailureCode?)
    case worker(name: String, change: String)
    /// A workout imported, updated or deleted.
    case workout(WorkoutEvent)
    /// An ENQUEUE (or a zone change) made pictures pending: one event for the whole request,
    /// however many pictures, so that a bulk regeneration does not flood subscribers.
    case queued(QueuedEvent)
    /// Pictures whose by-content names are gone (replaced, hidden by a zone, deleted): whoever
    /// keeps them in memory (the gateway) drops them.
    case released(keys: [String])

    /// The event for a change to a job; `nil` when nothing changed.
    init?(_ effect: CompletionEffect) {
        guard case .updated(let picture, let status, let reason, _, let code) = effect else { return nil }
        self = .status(picture, status, reason: reason, code: code)
    }

    /// The frames, with `stamp` (``iso8601(_:)`` of `timestamp`) made once for a whole turn's events.
    func frames(at timestamp: Date, stamped stamp: String) -> [[UInt8]] {
        switch self {
        case .status(let picture, let status, let reason, let code):
            // Written by hand, as bytes: one of these goes out for every finished job, and
            // JSONEncoder would cost more than the rest of the job's bookkeeping. Same keys and
            // order as StatusEvent's sorted-key encoding.
            var json: [UInt8] = []
            json.reserveCapacity(192)
            json += #"{"at":""#.utf8
            json += stamp.utf8
            if let code {
                // A code is a short word of lower-case letters, digits and '-': nothing to escape.
                json += #"","code":""#.utf8
                json += code.rawValue.utf8
            }
            json += #"","kind":""#.utf8
            json += picture.kind.rawValue.utf8
            if let reason {
                json += #"","reason":"#.utf8
                json += Self.quoted(reason).utf8
                json += #","scale":"#.utf8
            } else {
                json += #"","scale":"#.utf8
            }
            json += String(picture.scale).utf8
            json += #","status":""#.utf8
            json += status.rawValue.utf8
            json += #"","theme":""#.utf8
            json += picture.theme.rawValue.utf8
            json += #"","workoutID":""#.utf8
            json += picture.workoutID.utf8
            json += #""}"#.utf8
            return [Self.statusTopic, json]
        case .worker(let name, let change):
            return [Array("worker".utf8), (try? ControlCodec.encode(WorkerEvent(name: name, change: change, at: timestamp))) ?? []]
        case .workout(var event):
            event.at = timestamp
            return [Array("workout".utf8), (try? ControlCodec.encode(event)) ?? []]
        case .queued(var event):
            event.at = timestamp
            return [Array("queued".utf8), (try? ControlCodec.encode(event)) ?? []]
        case .released(let keys):
            return [Array("released".utf8), (try? ControlCodec.encode(ReleasedEvent(keys: keys, at: timestamp))) ?? []]
        }
    }
}

extension CoordinatorEvent {
    static let statusTopic = Array("status".utf8)

    /// `2026-11-21T23:05:00Z`, built from digits: `String(format:)` goes through CoreFoundation
    /// and `vfprintf`, several microseconds for every finished job.
    static func iso8601(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
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
