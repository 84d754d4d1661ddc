import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedStyle
import WorkFeedWire

extension WorkCtl {
    /// `workctl retry`: failed-no-retry pictures get another chance.
    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make failed-no-retry pictures pending again (after fixing what made them fail).",
            discussion: """
                Takes the same selection as enqueue (--all, --ids, --ids-from, --kind, --theme, --scale, --activity, \
                --since, --until); without --kind or --scale it retries every kind and scale. --reason narrows it to \
                failures with these codes (workctl failed --group lists them). Creates no job.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var selection: PictureSelection

        @Option(name: .long, help: "Only failures with these codes, comma-separated (e.g. cache-full,worker-silent; see workctl failed --group).")
        var reason: String?

        @OptionGroup var waiting: WaitOptions

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            for code in reasonCodes() ?? [] where !FailureCode.isWellFormed(code) {
                throw ValidationError(
                    "--reason: '\(code.escapedForDisplay)' is not a failure code (lower-case words joined by '-', as workctl failed --group prints them)"
                )
            }
        }

        func reasonCodes() -> [String]? {
            reason.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        }

        func run() throws {
            var client = try connection.client()
            // Only pictures that exist are retried, at every scale they were made at.
            var request = try selection.request(defaultKinds: PictureKind.allCases, defaultScales: Array(PictureSpec.scaleRange), client: &client)
            request.includeFailed = true
            request.existingOnly = true
            request.reasonCodes = reasonCodes()
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if !json { say("retrying \(reply.revived) failed pictures") }
            try waiting.finish(request, reply, client: &client, json: json)
        }
    }
}
