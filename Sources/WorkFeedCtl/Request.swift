import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl request ID...`: a feed row just became visible; its pictures go ahead of bulk work.
    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for a workout's pictures now: they go ahead of bulk regeneration.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Workout ids, or unique prefixes of them.")
        var ids: [String]

        @Option(name: .long, help: "Kinds, comma-separated: \(PictureKind.described).")
        var kind = CommaList(PictureKind.drawnAhead)

        @Option(name: .long, help: themeOptionHelp)
        var theme: CommaList<Theme>?

        @OptionGroup var waiting: WaitOptions

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            for text in ids { try IDPrefix.validate(text) }
        }

        func run() throws {
            let kinds = kind.values
            let themes = theme?.values ?? []
            var client = try connection.client()
            let workouts = try IDPrefix.resolve(ids, client: &client)
            let request = EnqueueRequest(ids: workouts, kinds: kinds, themes: themes, priority: EnqueueRequest.interactivePriority)
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if !json {
                say(
                    "requested: \(reply.created + reply.stale + reply.alreadyPending) pictures ahead of bulk work, \(reply.current) already current, \(reply.failed) failed-no-retry"
                )
            }
            try waiting.finish(request, reply, client: &client, json: json)
        }
    }
}
