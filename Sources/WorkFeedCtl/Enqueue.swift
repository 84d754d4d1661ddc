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
                progress until every picture this command covers is generated or failed (other work \
                in the queue is not waited for), then exits 0, or 2 when some failed (workctl failed --group).
                """)

        @OptionGroup var connection: ConnectionOptions

        @OptionGroup var selection: PictureSelection

        @Flag(name: .long, help: "Only pictures whose inputs or style changed since they were made; create none.")
        var stale = false

        @Flag(name: .long, help: "Also make failed-no-retry pictures pending again.")
        var failed = false

        @OptionGroup var waiting: WaitOptions

        @Flag(name: .long, help: "Print the result as JSON (with --wait: one object, {\"enqueued\": ..., \"pictures\": ...}).")
        var json = false

        func run() throws {
            var client = try connection.client()
            var request = try selection.request(defaultKinds: PictureKind.drawnAhead, client: &client)
            request.includeFailed = failed ? true : nil
            request.existingOnly = stale ? true : nil
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if !json {
                say(
                    "enqueued: \(reply.created) new, \(reply.stale) stale, \(reply.revived) failed retried; "
                        + "\(reply.alreadyPending) already pending, \(reply.current) current, \(reply.failed) failed-no-retry (workctl retry)")
                if let skipped = reply.skippedNoHeartRate, skipped > 0 {
                    say(
                        "skipped heatmaps of \(counted(skipped, "workout")) without heart rate (not failures: they are queued if a re-import brings heart rate)"
                    )
                }
            }
            try waiting.finish(request, reply, client: &client, json: json)
        }
    }

    /// `--wait` and `--progress-json`, shared by the commands that queue pictures.
    struct WaitOptions: ParsableArguments {
        @Flag(name: .long, help: "Wait until exactly these pictures are drawn or failed, showing progress; exit 2 if any failed.")
        var wait = false

        @Flag(name: .long, help: "With --wait: progress as JSON lines on standard error, one a second.")
        var progressJSON = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --wait: give up (exit 75) once no worker has been connected for this many seconds; the pictures stay queued.",
                valueName: "seconds"))
        var waitTimeout: Int?

        func validate() throws {
            if let waitTimeout, waitTimeout < 1 { throw ValidationError("--wait-timeout must be at least 1 second") }
            if waitTimeout != nil && !wait { throw ValidationError("--wait-timeout goes with --wait") }
        }

        /// Prints the reply (JSON) or waits for its pictures and prints the outcome; exit 2 when
        /// any of them failed.
        func finish(_ request: EnqueueRequest, _ reply: EnqueueReply, client: inout ControlClient, json: Bool) throws {
            guard wait else {
                if json { try printJSON(reply) }
                return
            }
            let follow = PictureWait(selection: request, reply: reply)
            let waited = try talking { () throws(ControlClientError) in
                try follow.run(client: &client, progressJSON: progressJSON, giveUpWithoutWorkers: waitTimeout)
            }
            let outcome: PictureWait.Outcome
            switch waited {
            case .success(let finished): outcome = finished
            case .failure(let gaveUp): outcome = gaveUp.outcome
            }
            if json {
                struct Result: Encodable {
                    var enqueued: EnqueueReply
                    var pictures: PictureWait.Outcome
                }
                try printJSON(Result(enqueued: reply, pictures: outcome))
            } else {
                for line in PictureWait.summary(outcome, finished: waited.isSuccess) { say(line) }
            }
            if case .failure(let gaveUp) = waited {
                printError(
                    "gave up waiting: no worker has been connected for \(gaveUp.allowed) s (--wait-timeout); "
                        + "\(ProgressMeter.grouped(outcome.pending)) pictures stay queued and are drawn once a workfeed-worker connects (exit code 75)"
                )
                throw WorkCtlExit.gaveUp
            }
            if outcome.failed > 0 { throw WorkCtlExit.partial }
        }
    }
}
