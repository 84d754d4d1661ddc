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

        @OptionGroup var selection: PictureSelection

        @Flag(name: .long, help: "Only pictures whose inputs or style changed since they were made; create none.")
        var stale = false

        @Flag(name: .long, help: "Also make failed-no-retry pictures pending again.")
        var failed = false

        @Flag(name: .long, help: "Wait until the pictures are done, showing progress.")
        var wait = false

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func run() throws {
            var client = try connection.client()
            var request = try selection.request(defaultKinds: [.route], client: &client)
            request.includeFailed = failed ? true : nil
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
