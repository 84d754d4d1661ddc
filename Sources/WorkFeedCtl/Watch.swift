import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl watch`: follows the coordinator's event stream.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow status changes and workers coming and going, as they happen (Ctrl-C stops).")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "The coordinator's event endpoint (env WORKFEED_EVENTS).")
        var events: String = ProcessInfo.processInfo.environment["WORKFEED_EVENTS"] ?? "tcp://127.0.0.1:5557"

        @Option(name: .long, help: "Stop after this many events.")
        var count: Int?

        @Flag(name: .long, help: "Print each event as a JSON line.")
        var json = false

        func run() throws {
            let socket = try ZMQSocket(WorkCtlContext.shared, type: .sub)
            if let curve = try connection.curve() { try socket.makeCurveClient(curve) }
            try socket.subscribe("")
            try socket.connect(events)
            var seen = 0
            while count.map({ seen < $0 }) ?? true {
                guard let frames = try socket.receive(), frames.count == 2 else { continue }
                seen += 1
                let topic = String(decoding: frames[0], as: UTF8.self)
                if json {
                    say(String(decoding: frames[1], as: UTF8.self))
                } else if topic == "status", let event = try? ControlCodec.decode(StatusEvent.self, from: frames[1]) {
                    let scale = event.scale == 1 ? "" : " @\(event.scale)x"
                    say("\(event.at) \(event.workoutID) \(event.kind.rawValue) \(event.theme.rawValue)\(scale): \(event.status.rawValue)" + (event.reason.map { " (\($0))" } ?? ""))
                } else if topic == "worker", let event = try? ControlCodec.decode(WorkerEvent.self, from: frames[1]) {
                    say("\(event.at) worker \(event.name) \(event.change)")
                }
            }
        }
    }
}
