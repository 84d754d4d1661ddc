import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl failed`: the pictures that cannot be rendered, and why.
    struct Failed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List failed-no-retry pictures with their reasons, or count them by reason with --group.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Count by reason instead of listing.")
        var group = false

        @Option(name: .long, help: "At most this many rows.")
        var limit: Int = 100

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func run() throws {
            var client = try connection.client()
            let request = FailedRequest(limit: limit, group: group)
            let reply: FailedReply = try talking { () throws(ControlClientError) in try client.request(.failed, request) }
            if json {
                try printJSON(reply)
                return
            }
            say("\(reply.total) failed-no-retry pictures")
            for row in reply.groups {
                say(
                    "  \(String(row.count).padding(toLength: 8, withPad: " ", startingAt: 0)) \(row.code.padding(toLength: 20, withPad: " ", startingAt: 0)) e.g. \(row.reason)"
                )
            }
            if !reply.groups.isEmpty { say("retry a group with: workctl retry --all --reason CODE") }
            for picture in reply.pictures {
                say("  \(picture.picture): \(picture.reasonCode.map { "[\($0)] " } ?? "")\(picture.reason ?? "")")
            }
        }
    }
}
