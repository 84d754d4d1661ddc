import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

extension WorkCtl {
    /// `workctl show ID`: one workout and the state of each of its pictures.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a workout and its pictures, with failure reasons and paths.")

        @OptionGroup var connection: ConnectionOptions

        @OptionGroup var pictures: StoreOptions

        @Argument(help: "The workout id, or a unique prefix of it.")
        var id: String

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func validate() throws {
            try IDPrefix.validate(id)
        }

        func run() throws {
            var client = try connection.client()
            guard let workout = try IDPrefix.resolve([id], client: &client).first else { throw WorkCtlExit.failed }
            let reply: ShowReply = try talking { () throws(ControlClientError) in try client.request(.show, ShowRequest(id: workout)) }
            if json {
                struct Shown: Encodable {
                    var item: WorkoutJSON
                    var pictureSize: PictureSize?
                }
                try printJSON(Shown(item: WorkoutJSON(reply.item, store: try pictures.store()), pictureSize: reply.pictureSize))
            } else {
                Self.print(reply, store: try pictures.store())
            }
        }

        static func print(_ reply: ShowReply, store: any PictureStore) {
            let w = reply.item.workout
            let device = Set(w.deviceFigures ?? [])
            func from(_ figure: String) -> String {
                guard let source = w.deviceSource else { return " (from the track)" }
                return device.contains(figure) ? " (from the device: \(source))" : " (from the track)"
            }
            say("workout \(w.id)")
            say("  identity:  " + identity(w))
            if let file = w.file {
                say("  file:      \(file.name)")
                say(
                    "             \(file.size) bytes, \(file.format), sha256 \(file.sha256), read by reader version \(file.readerVersion); "
                        + (w.originalKept == true ? "original kept" : "original not kept"))
            } else {
                say("  file:      unknown (imported before files were remembered: import the file again to record it)")
            }
            say("  activity:  \(w.activity.rawValue)" + (w.name.map { " \"\($0)\"" } ?? ""))
            say("  start:     \(w.start.map { WorkoutFormat.localTime($0, of: w) } ?? "unknown")" + timeZoneNote(w))
            if let place = w.place {
                say("  place:     \(place) (place names: GeoNames, CC BY 4.0)")
            } else if w.pointCount > 0 {
                say("  place:     none (the start is far from every named place, or no position in the route is valid)")
            }
            say("  distance:  \(WorkoutFormat.distance(w.distance))" + from("distance"))
            let times = w.times
            if let moving = times.moving { say("  moving:    \(WorkoutFormat.duration(moving))" + from(DeviceSummary.durationFigure)) }
            say("  elapsed:   \(times.elapsed.map(WorkoutFormat.duration) ?? "unknown")")
            if let gain = w.elevationGain { say("  climb:     \(Int(gain.rounded())) m" + from("climb")) }
            if let calories = w.calories { say("  energy:    \(Int(calories.rounded())) kcal" + from("calories")) }
            if w.heartRateAverage != nil || w.heartRateMax != nil {
                let average = w.heartRateAverage.map { "\(Int($0.rounded())) bpm average" }
                let maximum = w.heartRateMax.map { "\(Int($0.rounded())) max" }
                say("  heart:     " + [average, maximum].compactMap { $0 }.joined(separator: ", ") + from("heart rate"))
            }
            say("  points:    \(w.pointCount), \(w.heartRateSamples ?? 0) heart-rate samples, route version \(w.routeVersion)")
            say("pictures:")
            if reply.item.pictures.isEmpty { say("  none queued (workctl enqueue --ids \(w.id))") }
            for picture in reply.item.pictures {
                var line = "  \(picture.picture.kind.rawValue) \(picture.picture.theme.rawValue)"
                if picture.picture.scale != 1 { line += " @\(picture.picture.scale)x" }
                line += ": \(picture.status.rawValue)"
                if let reason = picture.reason { line += " (\(reason))" }
                if picture.status == .generated {
                    line += " \(store.location(of: picture.picture))"
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

extension WorkCtl.Show {
    /// Where the start's offset and zone came from, or that the start is shown in UTC.
    static func timeZoneNote(_ w: WorkoutRecord) -> String {
        if let source = w.timeZoneSource { return " (time zone \(source.phrase))" }
        if w.start != nil, w.timeZoneOffset == nil { return " (in UTC: no time zone known; workctl reimport looks it up)" }
        return ""
    }

    /// What identifies the workout, in words: the source's own id, or the file's content.
    static func identity(_ w: WorkoutRecord) -> String {
        if w.sourceID.hasPrefix("sha256:") {
            let hash = w.sourceID.dropFirst("sha256:".count)
            if let file = w.file, hash.hasPrefix(file.sha256) {
                let place = hash.count > file.sha256.count ? ", workout \(hash.dropFirst(file.sha256.count + 1)) in it" : ""
                return "\(w.source.rawValue), the content of its file (its sha256 on the file line below\(place))"
            }
            return "\(w.source.rawValue), content hash \(hash) (from before files were remembered)"
        }
        let kind: String
        switch w.source {
        case .fit: kind = "FIT file id"
        case .tcx: kind = "TCX activity Id"
        case .appleHealth: kind = "Apple Health workout id"
        case .gpx: kind = "source id"
        }
        return "\(w.source.rawValue), \(kind) \(w.sourceID)"
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

    /// The time as it was where the workout happened, with its offset and, when known, its zone:
    /// `2021-07-11 16:51:11 +02:00 (Europe/Berlin)`.
    static func localTime(_ date: Date, of workout: WorkoutRecord) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
        formatter.timeZone = TimeZone(secondsFromGMT: workout.timeZoneOffset ?? 0) ?? TimeZone(identifier: "UTC")
        return formatter.string(from: date) + zone(of: workout)
    }

    /// ` (Europe/Berlin)`, or nothing when the workout's zone is not known.
    static func zone(of workout: WorkoutRecord) -> String {
        workout.timeZone.map { " (\($0))" } ?? ""
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
