import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl show ID`: one workout and the state of each of its pictures.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a workout and its pictures, with failure reasons and paths.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The workout id.")
        var id: String

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func validate() throws {
            guard WorkoutID(id) != nil else { throw ValidationError("'\(id)' is not a workout id (a UUID)") }
        }

        func run() throws {
            var client = try connection.client()
            let reply: ShowReply = try talking { () throws(ControlClientError) in try client.request(.show, ShowRequest(id: WorkoutID(id)!)) }
            if json { try printJSON(reply) } else { Self.print(reply) }
        }

        static func print(_ reply: ShowReply) {
            let w = reply.item.workout
            say("workout \(w.id)")
            say("  source:    \(w.source.rawValue) \(w.sourceID)")
            say("  activity:  \(w.activity.rawValue)" + (w.name.map { " \"\($0)\"" } ?? ""))
            say("  start:     \(w.start.map { WorkoutFormat.localTime($0, offset: w.timeZoneOffset) } ?? "unknown")")
            say("  distance:  \(WorkoutFormat.distance(w.distance)), duration \(w.duration.map(WorkoutFormat.duration) ?? "unknown")")
            if let gain = w.elevationGain { say("  climb:     \(Int(gain.rounded())) m") }
            if let average = w.heartRateAverage, let maximum = w.heartRateMax {
                say("  heart:     \(Int(average.rounded())) bpm average, \(Int(maximum.rounded())) max")
            }
            say("  points:    \(w.pointCount), route version \(w.routeVersion)")
            say("pictures:")
            if reply.item.pictures.isEmpty { say("  none queued (workctl enqueue --ids \(w.id))") }
            for picture in reply.item.pictures {
                var line = "  \(picture.picture.kind.rawValue) \(picture.picture.theme.rawValue)"
                if picture.picture.scale != 1 { line += " @\(picture.picture.scale)x" }
                line += ": \(picture.status.rawValue)"
                if let reason = picture.reason { line += " (\(reason))" }
                if picture.status == .generated {
                    line += " \(reply.cacheDirectory)/\(picture.relativePath)"
                    switch picture.map {
                    case .full: line += " (map)"
                    case .partial: line += " (map covers part of it)"
                    case .none?: line += " (no map: no tileset covers it)"
                    case nil: break
                    }
                }
                say(line)
            }
        }
    }
}

/// How workctl writes figures for people.
enum WorkoutFormat {
    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : "\(Int(metres.rounded())) m"
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", total / 3600, total % 3600 / 60, total % 60)
    }

    /// The time as it was where the workout happened, with its offset.
    static func localTime(_ date: Date, offset: Int?) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm xxx"
        formatter.timeZone = TimeZone(secondsFromGMT: offset ?? 0) ?? TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
