import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl watch`: follows the coordinator's event stream.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow what happens, as it happens: imports, deletes, pictures queued, drawn and failed, workers (Ctrl-C stops).",
            discussion: """
                The event stream's address comes from the coordinator (STATUS tells its listen.events), \
                so --coordinator is enough; --events names it directly. With several coordinators \
                (comma-separated), the events of every one are followed. Events are hints: a slow \
                terminal may miss some, and workctl status has the counts.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(
            name: .long,
            help: "The coordinator's event endpoint, or several comma-separated (env WORKFEED_EVENTS; default: asked of each coordinator).")
        var events: String?

        @Option(name: .long, help: "Stop after this many events.")
        var count: Int?

        @Option(name: .long, help: "Stop after this many seconds.")
        var seconds: Double?

        @Flag(name: .long, help: "Print each event as a JSON line: {\"topic\": ..., \"event\": {...}}.")
        var json = false

        func validate() throws {
            if let events { _ = try ConnectionOptions.endpoints(events, option: "--events") }
        }

        func run() throws {
            let endpoints: [String]
            if let events = events ?? ProcessInfo.processInfo.environment["WORKFEED_EVENTS"], !events.isEmpty {
                endpoints = try ConnectionOptions.endpoints(events, option: "--events (WORKFEED_EVENTS)")
            } else {
                endpoints = try advertisedEvents()
            }
            // One SUB socket follows every coordinator's events: each publishes what it did.
            let socket = try ZMQSocket(WorkCtlContext.shared, type: .sub)
            if let curve = try connection.curve() { try socket.makeCurveClient(curve) }
            try socket.subscribe("")
            for endpoint in endpoints { try socket.connect(endpoint) }
            let whose = connection.coordinators.count == 1 ? "the coordinator" : "the coordinators"
            printError("watching \(endpoints.joined(separator: ", ")), the events of \(whose) at \(connection.coordinator) (Ctrl-C stops)")

            let started = ContinuousClock.now
            var lastHeard = started
            var warned = false
            var seen = 0
            while count.map({ seen < $0 }) ?? true {
                if let seconds, ContinuousClock.now - started >= .milliseconds(Int64(seconds * 1000)) { break }
                guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 500)[0] else {
                    // Quiet for a while: is the coordinator there at all? A SUB socket cannot tell.
                    if ContinuousClock.now - lastHeard >= .seconds(10) {
                        lastHeard = ContinuousClock.now
                        let answers = coordinatorAnswers()
                        if !answers && !warned { printError("no event for 10 s and no coordinator at \(connection.coordinator) answers") }
                        if answers && warned { printError("the coordinator answers again") }
                        warned = !answers
                    }
                    continue
                }
                guard let frames = try socket.receive(dontWait: true), frames.count == 2 else { continue }
                lastHeard = ContinuousClock.now
                seen += 1
                let topic = String(decoding: frames[0], as: UTF8.self)
                if json {
                    say(#"{"topic":"# + Self.quoted(topic) + #","event":"# + String(decoding: frames[1], as: UTF8.self) + "}")
                } else if let line = Self.line(topic: topic, body: frames[1]) {
                    say(line)
                }
            }
        }

        /// Where each listed coordinator publishes its events, as it says in STATUS. A coordinator
        /// that does not answer, or does not say, is named on standard error and its events are
        /// not followed (name them with --events); none at all is an error.
        private func advertisedEvents() throws -> [String] {
            var endpoints: [String] = []
            var lastError: ControlClientError?
            let curve = try connection.curve()
            for control in connection.coordinators {
                do throws(ControlClientError) {
                    var client: ControlClient
                    do throws(ZMQError) {
                        client = try ControlClient(
                            context: WorkCtlContext.shared, endpoint: control, timeoutMilliseconds: connection.timeout * 1000, curve: curve)
                    } catch {
                        throw ControlClientError("cannot connect to \(control): \(error)")
                    }
                    let status: StatusReply = try client.request(.status, StatusRequest())
                    guard let advertised = status.events, !advertised.isEmpty else {
                        printError("the coordinator at \(control) does not say where it publishes events: name it with --events")
                        continue
                    }
                    let endpoint = Self.reachable(advertised, control: control)
                    if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
                } catch {
                    lastError = error
                    if connection.coordinators.count > 1 { printError("coordinator \(control) did not answer; its events are not followed") }
                }
            }
            if endpoints.isEmpty {
                if let lastError { throw lastError.exit() }
                throw WorkCtlExit.failed
            }
            return endpoints
        }

        /// Whether a coordinator answers a PING within a second.
        private func coordinatorAnswers() -> Bool {
            struct Pong: Decodable { var pong: Bool }
            do {
                var client = try ControlClient(
                    context: WorkCtlContext.shared, endpoints: connection.coordinators, timeoutMilliseconds: 1000, curve: try connection.curve())
                _ = try client.request(.ping, [String: String](), as: Pong.self)
                return true
            } catch {
                return false
            }
        }

        /// One event as a line of text; `nil` for a topic this version does not know.
        static func line(topic: String, body: [UInt8]) -> String? {
            switch topic {
            case "status":
                guard let event = try? ControlCodec.decode(StatusEvent.self, from: body) else { return nil }
                let scale = event.scale == 1 ? "" : " @\(event.scale)x"
                let why = event.reason.map { reason in " (" + (event.code.map { "\($0): " } ?? "") + reason + ")" } ?? ""
                return
                    "\(stamp(event.at)) picture \(event.workoutID) \(event.kind.rawValue) \(event.theme.rawValue)\(scale): \(event.status.rawValue)\(why)"
            case "worker":
                guard let event = try? ControlCodec.decode(WorkerEvent.self, from: body) else { return nil }
                return "\(stamp(event.at)) worker \(event.name) \(event.change)"
            case "workout":
                guard let event = try? ControlCodec.decode(WorkoutEvent.self, from: body) else { return nil }
                return "\(stamp(event.at)) workout \(event.workoutID) \(event.change)" + (event.owner.map { " (owner \($0))" } ?? "")
            case "queued":
                guard let event = try? ControlCodec.decode(QueuedEvent.self, from: body) else { return nil }
                let what = event.kinds.map(\.rawValue).joined(separator: ",") + " " + event.themes.map(\.rawValue).joined(separator: ",")
                return "\(stamp(event.at)) queued \(ProgressMeter.grouped(event.total)) pictures pending (\(what)): "
                    + "\(event.created) new, \(event.stale) stale, \(event.revived) retried"
                    + (event.priority > 0 ? ", ahead of bulk work" : "") + (event.owner.map { ", owner \($0)" } ?? "")
            default:
                return nil
            }
        }

        /// Whole seconds, always: events carry microseconds, and lines that mix
        /// `…35.863833Z` and `…35Z` do not line up (`--json` keeps the fractions).
        static func stamp(_ date: Date) -> String {
            ISO8601Time.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
        }

        static func quoted(_ text: String) -> String {
            String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        }

        /// An endpoint the coordinator binds (`tcp://0.0.0.0:5557`, `tcp://*:5557`) as this
        /// machine reaches it: the wildcard host becomes the control endpoint's host.
        static func reachable(_ advertised: String, control: String) -> String {
            guard advertised.hasPrefix("tcp://"), control.hasPrefix("tcp://") else { return advertised }
            let rest = advertised.dropFirst("tcp://".count)
            guard let colon = rest.lastIndex(of: ":") else { return advertised }
            let host = rest[..<colon]
            guard ["0.0.0.0", "*", "[::]", "::"].contains(host) else { return advertised }
            let controlRest = control.dropFirst("tcp://".count)
            guard let controlColon = controlRest.lastIndex(of: ":") else { return advertised }
            return "tcp://" + controlRest[..<controlColon] + rest[colon...]
        }
    }
}
