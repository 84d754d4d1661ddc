import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl status`: counts per status, kind and theme; workers and their load.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show picture counts per status and the connected workers.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Count only this owner's workouts and pictures.")
        var owner: String?

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
        }

        func run() throws {
            var client = try connection.client()
            let status: StatusReply = try talking { () throws(ControlClientError) in
                try client.request(.status, StatusRequest(owner: owner))
            }
            if json { try printJSON(status) } else { Self.printSummary(status) }
        }

        static func printSummary(_ status: StatusReply) {
            say("workouts: \(status.workouts)")
            say("pictures: " + JobStatus.allCases.map { "\($0.rawValue) \(status.total($0))" }.joined(separator: ", ") + ", leased \(status.leased)")
            let groups = Dictionary(grouping: status.counts) { "\($0.kind.rawValue) \($0.theme.rawValue)" }
            for key in groups.keys.sorted() {
                let counts = groups[key]!
                let line = JobStatus.allCases.map { state in "\(state.rawValue) \(counts.filter { $0.status == state }.reduce(0) { $0 + $1.count })" }
                say("  \(key.padding(toLength: 14, withPad: " ", startingAt: 0)) \(line.joined(separator: ", "))")
            }
            var queue: [String] = []
            if let ready = status.ready { queue.append("\(ready) ready to lease") }
            if let finished = status.finishedLastMinute { queue.append("\(finished) finished in the last minute") }
            if let oldest = status.oldestPending {
                queue.append("oldest pending for \(ProgressMeter.format(seconds: max(0, Date().timeIntervalSince(oldest))))")
            }
            if !queue.isEmpty { say("queue: " + queue.joined(separator: ", ")) }
            say("workers: \(status.workers.count), \(status.workers.reduce(0) { $0 + $1.busy })/\(status.workers.reduce(0) { $0 + $1.capacity }) slots busy")
            for worker in status.workers {
                say("  \(worker.name): \(worker.busy)/\(worker.capacity) busy, \(worker.done) done")
            }
            say("cache: \(status.cacheDirectory)")
        }
    }

    /// `workctl workers`: the connected workers and their load.
    struct Workers: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the connected workers with their slots and load.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func run() throws {
            var client = try connection.client()
            let status: StatusReply = try talking { () throws(ControlClientError) in try client.request(.status, [String: String]()) }
            if json {
                try printJSON(status.workers)
                return
            }
            if status.workers.isEmpty { say("no workers connected: start one with workfeed-worker --connect ...") }
            for worker in status.workers {
                let silent = worker.silentSeconds.map { String(format: ", last heard %.1f s ago", $0) } ?? ""
                say("\(worker.name): \(worker.busy)/\(worker.capacity) slots busy, \(worker.done) jobs done\(silent)")
            }
        }
    }

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
                say("  \(String(row.count).padding(toLength: 8, withPad: " ", startingAt: 0)) \(row.code.padding(toLength: 20, withPad: " ", startingAt: 0)) e.g. \(row.reason)")
            }
            if !reply.groups.isEmpty { say("retry a group with: workctl retry --all --reason CODE") }
            for picture in reply.pictures {
                say("  \(picture.picture): \(picture.reasonCode.map { "[\($0)] " } ?? "")\(picture.reason ?? "")")
            }
        }
    }
}
