import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl enqueue`: make sure pictures exist and are current.
    struct Enqueue: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue pictures for rendering: missing ones, and generated ones whose inputs or style changed.",
            discussion: """
                Pictures that are current are left alone; failed-no-retry ones too. With --wait, shows \
                progress until no picture of the chosen kinds and themes is pending.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Every workout in the index.")
        var all = false

        @Option(name: .long, parsing: .upToNextOption, help: "Only these workout ids (or unique prefixes).")
        var ids: [String] = []

        @Option(name: .long, help: "Kinds, comma-separated: route, heatmap.")
        var kind: String = "route"

        @Option(name: .long, help: "Themes, comma-separated: light, dark.")
        var theme: String = "light,dark"

        @Option(name: .long, help: "Scales, comma-separated (default: the coordinator's pictures.scales).")
        var scale: String?

        @Option(name: .long, help: "Read workout ids from this file, one per line ('-' for standard input).")
        var idsFrom: String?

        @Option(name: .long, help: "Only these activities, comma-separated: running, walking, cycling, other.")
        var activity: String?

        @Option(name: .long, help: "Only workouts that started on or after this date (YYYY-MM-DD or ISO 8601).")
        var since: String?

        @Option(name: .long, help: "Only workouts that started before this date (YYYY-MM-DD or ISO 8601).")
        var until: String?

        @Flag(name: .long, help: "Only pictures whose inputs or style changed since they were made; create none.")
        var stale = false

        @Flag(name: .long, help: "Also make failed-no-retry pictures pending again.")
        var failed = false

        @Flag(name: .long, help: "Wait until the pictures are done, showing progress.")
        var wait = false

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            let selections = [all, !ids.isEmpty, idsFrom != nil].filter { $0 }.count
            guard selections == 1 else { throw ValidationError("give exactly one of --all, --ids ID... or --ids-from FILE") }
            _ = try parsedActivities()
            _ = try Self.date(since, "--since")
            _ = try Self.date(until, "--until")
            _ = try parsedKinds()
            _ = try parsedThemes()
            if idsFrom != "-" { _ = try parsedIDs() }
            _ = try parsedScales()
        }

        func parsedKinds() throws -> [JobKind] { try parseKinds(kind) }
        func parsedThemes() throws -> [Theme] { try parseThemes(theme) }

        func parsedActivities() throws -> [ActivityType]? {
            try activity.map { list in
                try list.split(separator: ",").map { text in
                    guard let activity = ActivityType(rawValue: String(text)) else {
                        throw ValidationError("--activity: '\(text)' is not running, walking, cycling or other")
                    }
                    return activity
                }
            }
        }

        /// Parses `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
        static func date(_ text: String?, _ option: String) throws -> Date? {
            guard let text else { return nil }
            let full = ISO8601DateFormatter()
            if let date = full.date(from: text) { return date }
            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            if let date = day.date(from: text) { return date }
            throw ValidationError("\(option): '\(text)' is not a date (YYYY-MM-DD or 2026-11-21T10:00:00Z)")
        }

        /// The ids and prefixes given, `nil` for --all.
        func parsedIDs() throws -> [String]? {
            if all { return nil }
            if let idsFrom {
                let text: String
                if idsFrom == "-" {
                    text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                } else {
                    do { text = try String(contentsOfFile: idsFrom, encoding: .utf8) } catch {
                        throw ValidationError("--ids-from: cannot read \(idsFrom): \(error.localizedDescription)")
                    }
                }
                var result: [String] = []
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                    try IDPrefix.validate(trimmed, option: "--ids-from \(idsFrom):\(number + 1)")
                    result.append(trimmed)
                }
                return result
            }
            for text in ids { try IDPrefix.validate(text, option: "--ids") }
            return ids
        }

        func parsedScales() throws -> [Int]? {
            try scale.map { text in
                try text.split(separator: ",").map { part in
                    guard let scale = Int(part), (1...3).contains(scale) else { throw ValidationError("--scale: '\(part)' is not 1, 2 or 3") }
                    return scale
                }
            }
        }

        func run() throws {
            var client = try connection.client()
            let workouts = try parsedIDs().map { try IDPrefix.resolve($0, client: &client) }
            var request = EnqueueRequest(ids: workouts, kinds: try parsedKinds(), themes: try parsedThemes(), scales: try parsedScales(), includeFailed: failed ? true : nil)
            request.activities = try parsedActivities()
            request.since = try Self.date(since, "--since")
            request.until = try Self.date(until, "--until")
            request.existingOnly = stale ? true : nil
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if json && !wait {
                try printJSON(reply)
            } else {
                say(
                    "enqueued: \(reply.created) new, \(reply.stale) stale, \(reply.revived) failed retried; "
                        + "\(reply.alreadyPending) already pending, \(reply.current) current, \(reply.failed) failed-no-retry (workctl retry)")
                if let skipped = reply.skippedNoHeartRate, skipped > 0 {
                    say("skipped heatmaps of \(skipped) workouts without heart rate (not failures: they are queued if a re-import brings heart rate)")
                }
            }
            guard wait else { return }
            let status = try talking { () throws(ControlClientError) in
                try Self.waitUntilDone(client: &client, kinds: Set(request.kinds), themes: Set(request.themes))
            }
            if json { try printJSON(status) } else { Status.printSummary(status) }
        }

        /// Polls STATUS until nothing of these kinds and themes is pending, drawing progress.
        static func waitUntilDone(client: inout ControlClient, kinds: Set<JobKind>, themes: Set<Theme>) throws(ControlClientError) -> StatusReply {
            func pending(_ status: StatusReply) -> Int {
                status.counts.filter { kinds.contains($0.kind) && themes.contains($0.theme) && $0.status == .pending }.reduce(0) { $0 + $1.count }
            }
            var status: StatusReply = try client.request(.status, [String: String]())
            let initial = pending(status)
            var progress = ProgressLine(total: initial, unit: "pictures")
            while true {
                let left = pending(status)
                progress.update(done: initial - left, extra: "\(status.workers.count) workers")
                if left == 0 { break }
                Thread.sleep(forTimeInterval: 0.25)
                status = try client.request(.status, [String: String]())
            }
            progress.finish()
            return status
        }
    }
}
