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

        @Option(name: .long, parsing: .upToNextOption, help: "Only these workout ids.")
        var ids: [String] = []

        @Option(name: .long, help: "Kinds, comma-separated: route, heatmap.")
        var kind: String = "route"

        @Option(name: .long, help: "Themes, comma-separated: light, dark.")
        var theme: String = "light,dark"

        @Option(name: .long, help: "Scales, comma-separated (default: the coordinator's pictures.scales).")
        var scale: String?

        @Flag(name: .long, help: "Also make failed-no-retry pictures pending again.")
        var failed = false

        @Flag(name: .long, help: "Wait until the pictures are done, showing progress.")
        var wait = false

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            guard all != !ids.isEmpty else { throw ValidationError("give either --all or --ids ID...") }
            _ = try parsedKinds()
            _ = try parsedThemes()
            _ = try parsedIDs()
            _ = try parsedScales()
        }

        func parsedKinds() throws -> [JobKind] {
            try kind.split(separator: ",").map { text in
                guard let kind = JobKind(rawValue: String(text)) else { throw ValidationError("--kind: '\(text)' is not route or heatmap") }
                return kind
            }
        }

        func parsedThemes() throws -> [Theme] {
            try theme.split(separator: ",").map { text in
                guard let theme = Theme(rawValue: String(text)) else { throw ValidationError("--theme: '\(text)' is not light or dark") }
                return theme
            }
        }

        func parsedIDs() throws -> [WorkoutID]? {
            guard !all else { return nil }
            return try ids.map { text in
                guard let id = WorkoutID(text) else { throw ValidationError("--ids: '\(text)' is not a workout id (a UUID)") }
                return id
            }
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
            let request = EnqueueRequest(ids: try parsedIDs(), kinds: try parsedKinds(), themes: try parsedThemes(), scales: try parsedScales(), includeFailed: failed ? true : nil)
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if json && !wait {
                try printJSON(reply)
            } else {
                say(
                    "enqueued: \(reply.created) new, \(reply.stale) stale, \(reply.revived) failed retried; "
                        + "\(reply.alreadyPending) already pending, \(reply.current) current, \(reply.failed) failed-no-retry (workctl retry)")
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
