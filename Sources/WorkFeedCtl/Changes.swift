import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl changes --since N`: what changed after an anchor, for incremental sync.
    struct Changes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what changed after an anchor (imports, picture statuses, deletions), oldest first.",
            discussion: "Pass the printed anchor as --since next time to get only what changed since.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "The anchor of the last sync; 0 for everything.")
        var since: Int64 = 0

        @Option(name: .long, help: "At most this many changes per request.")
        var limit: Int = 10_000

        @Option(name: .long, help: "Only this owner's workouts (default: every owner's).")
        var owner: String?

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            guard since >= 0 else { throw ValidationError("--since must be 0 or more") }
            guard ControlLimits.changesLimits.contains(limit) else {
                throw ValidationError("--limit must be \(ControlLimits.changesLimits.lowerBound)...\(ControlLimits.changesLimits.upperBound)")
            }
        }

        func run() throws {
            var client = try connection.client()
            var all: [WorkoutChange] = []
            var anchor = since
            var reply: ChangesReply
            repeat {
                let request = ChangesRequest(since: anchor, limit: limit, owner: owner)
                reply = try talking { () throws(ControlClientError) in try client.request(.changes, request) }
                all += reply.changes
                anchor = reply.changes.last?.anchor ?? anchor
            } while reply.more
            let final = ChangesReply(changes: all, more: false, anchor: reply.anchor)
            if json {
                try printJSON(final)
            } else {
                for change in all { say("\(change.anchor) \(change.id) \(change.change.rawValue)") }
                say("anchor: \(final.anchor)")
            }
        }
    }
}
