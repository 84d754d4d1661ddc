import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
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
            if status.workers.isEmpty {
                say("no workers connected: start one with workfeed-worker --connect ...")
                return
            }
            for line in Status.workerTable(status.workers).lines { say(line) }
        }
    }
}
