import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl status`: counts per status, kind and theme; workers and their load.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show picture counts per status and the connected workers.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func run() throws {
            var client = try connection.client()
            let status: StatusReply = try talking { () throws(ControlClientError) in try client.request(.status, [String: String]()) }
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
            say("workers: \(status.workers.count)")
            for worker in status.workers {
                say("  \(worker.name): \(worker.busy)/\(worker.capacity) busy, \(worker.done) done")
            }
            say("cache: \(status.cacheDirectory)")
        }
    }
}
