import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

extension WorkCtl {
    /// `workctl feed`: the workouts newest first, as the app's feed shows them.
    struct Feed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the feed (newest first), or write it as an HTML page with --html.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Workouts per page requested from the coordinator.")
        var pageSize: Int = 100

        @Option(name: .long, help: "Stop after this many workouts (default: all).")
        var limit: Int?

        @Option(name: .long, help: "Write the feed as an HTML page to this file.")
        var html: String?

        @OptionGroup var pictures: StoreOptions

        @Option(name: .long, help: "Only this owner's workouts (default: every owner's).")
        var owner: String?

        @Flag(name: .long, help: "Print as JSON: a feed page of the gateway's (each workout as /v1/feed gives it), without next.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            guard (1...1000).contains(pageSize) else { throw ValidationError("--page-size must be 1...1000") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() throws {
            var client = try connection.client()
            if json && html == nil { return try printFeedItems(&client) }
            var items: [WorkoutWithPictures] = []
            var cursor: String?
            repeat {
                let page: FeedReply = try talking { () throws(ControlClientError) in
                    try client.request(.feed, FeedRequest(limit: pageSize, cursor: cursor, owner: owner))
                }
                items += page.items
                cursor = page.next
            } while cursor != nil && items.count < (limit ?? Int.max)
            if let limit { items = Array(items.prefix(limit)) }
            if let html {
                guard let directory = pictures.location.directory else {
                    printError("--html links pictures as files; \(pictures.location) is an object store: use the gateway's page (GET /)")
                    throw WorkCtlExit.failed
                }
                let page = FeedPage(items: items, cacheDirectory: directory, pageFile: html)
                do {
                    try FileManager.default.createDirectory(
                        at: URL(fileURLWithPath: html).deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(page.render().utf8).write(to: URL(fileURLWithPath: html))
                } catch {
                    printError("cannot write \(html): \(error.localizedDescription)")
                    throw WorkCtlExit.failed
                }
                say("wrote \(html) (\(items.count) workouts)")
            } else {
                for item in items {
                    let w = item.workout
                    let states = item.pictures.map { "\($0.picture.kind.rawValue)/\($0.picture.theme.rawValue) \($0.status.rawValue)" }
                    say(
                        "\(w.id)  \(w.start.map { WorkoutFormat.localTime($0, offset: w.timeZoneOffset) + WorkoutFormat.zone(of: w) } ?? "unknown date")  "
                            + "\(w.activity.rawValue)  \(WorkoutFormat.distance(w.distance))  \(states.joined(separator: ", "))")
                }
            }
        }

        /// `--json`: the workouts as the gateway's feed gives them (``WorkFeedModel/FeedPage``, each in its
        /// owner's units), the pages one after the other in one document without `next`.
        private func printFeedItems(_ client: inout ControlClient) throws {
            var items: [FeedItem] = []
            var cursor: String?
            repeat {
                let page: WorkFeedModel.FeedPage = try talking { () throws(ControlClientError) in
                    try client.request(.feed, FeedRequest(limit: pageSize, cursor: cursor, owner: owner, summary: true))
                }
                items += page.items
                cursor = page.next
            } while cursor != nil && items.count < (limit ?? Int.max)
            if let limit { items = Array(items.prefix(limit)) }
            try printJSON(WorkFeedModel.FeedPage(items: items, next: nil))
        }
    }
}
