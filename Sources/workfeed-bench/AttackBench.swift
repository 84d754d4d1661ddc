import Foundation
import Logging
import Synchronization
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// The "attack" group (`make attack`, deploy/attack.sh): what issue 13 found, tried again against a
/// real coordinator on loopback, each printing what it tried and what happened, and a line of
/// counts at the end. This part covers what travels on the sockets (crafted values, floods, forged
/// roles, garbage, refused connections, a slow /metrics client); deploy/attack.sh adds what needs
/// processes and file systems (the bypass address, the full disk, the damaged index).
///
/// WORKFEED_ATTACK_ONLY=flood,garbage runs only those. WORKFEED_ATTACK_SMALL=1 runs a smaller form (the test suite's): fewer jobs and messages, and
/// the timing criteria (dispatch within half its rate, PING p99 under 100 ms) are printed but not
/// judged, as a debug build on a shared machine cannot be held to them.
enum AttackBench {
    /// What one attack did: held, broke, or could not be tried here.
    struct Outcome {
        var name: String
        var held: Bool?
        var happened: String
    }

    struct Settings {
        var small: Bool
        var workouts: Int { small ? 2_000 : 50_000 }
        var feeds: Int { small ? 300 : 2_000 }
        var statuses: Int { small ? 20 : 100 }
        var randomMessages: Int { small ? 2_000 : 10_000 }
        var refusedConnections: Int { small ? 300 : 3_000 }
        /// How long a fake worker takes for a job: long enough that the bulk render outlasts the
        /// measurements.
        var renderMicroseconds: Int32 { small ? 5_000 : 500 }
        /// Trials of each race of issue 23 (a zone added, a workout deleted, while drawn).
        var raceTrials: Int { small ? 5 : 50 }
        /// Clients that never read, and how many times each sends 32 FEEDs, in unread-replies.
        var unreadClients: Int { small ? 12 : 60 }
        var unreadWaves: Int { small ? 2 : 6 }
        /// The reply budget (`control.max_queued_replies_mb`) unread-replies runs with.
        var unreadBudgetMiB: Int { 64 }
        /// The flooding owner's workouts (4 pictures each) in owner-flood.
        var ownerFloodWorkouts: Int { small ? 500 : 5_000 }
    }

    static func run(options: BenchOptions) throws {
        let settings = Settings(small: ProcessInfo.processInfo.environment["WORKFEED_ATTACK_SMALL"] == "1")
        var outcomes: [Outcome] = []
        let attacks: [(String, String, (Settings) throws -> Outcome)] = [
            (
                "crafted-import", "IMPORT with point and sample times of Int64.max, 2^62, -2^62 and Int64.min+1 ms, and body fields out of range",
                craftedImport
            ),
            (
                "extreme-requests", "FEED, CHANGES, FAILED, ENQUEUE and DELETE with limits, counts, priorities, cursors and bodies out of range",
                extremeRequests
            ),
            (
                "flood",
                "\(settings.feeds) FEED {limit: 1000} and \(settings.statuses) STATUS from one client, all at once, on \(settings.workouts * 4) jobs during a bulk render, while another client PINGs",
                flood
            ),
            ("garbage", "\(settings.randomMessages) random and mutated messages at both sockets during a bulk render", garbage),
            (
                "forged-roles", "the worker key on the control and event sockets, the operator and gateway keys as workers, a stranger's key, no key",
                forgedRoles
            ),
            ("refused-connections", "\(settings.refusedConnections) connections with a key that is not allowed", refusedConnections),
            ("terminal-escapes", "a worker named with a line break and escape sequences; a workout named with them", terminalEscapes),
            ("slow-metrics", "8 clients that send half a request to /metrics and wait, then a scrape", slowMetrics),
            (
                "zone-race",
                "\(settings.raceTrials) trials: a run imported, its 4 pictures queued and a privacy zone around its start added at once, while a real worker draws",
                zoneRace
            ),
            (
                "delete-race",
                "\(settings.raceTrials) trials: a run imported, its 4 pictures queued and the workout deleted at once, while a real worker draws",
                deleteRace
            ),
            (
                "unread-replies",
                "\(settings.unreadClients) clients each send \(settings.unreadWaves) waves of 32 FEED {limit: 1000} and never read a reply (issue 23, finding 7), while another client PINGs; then \(settings.unreadClients / 6) more clients ask for STATUS",
                unreadReplies
            ),
            (
                "owner-flood",
                "one owner asks for the \(settings.ownerFloodWorkouts * 4) pictures of \(settings.ownerFloodWorkouts) workouts at once (issue 23, finding 6); other owners upload one workout each meanwhile",
                ownerFlood
            ),
        ]
        let only = ProcessInfo.processInfo.environment["WORKFEED_ATTACK_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
        for (name, tried, attack) in attacks where only?.contains(name) ?? true {
            print("attack \(name): tried \(tried)")
            // Into a file too, at once: a long run shows where it is.
            fflush(nil)
            let outcome: Outcome
            do {
                outcome = try attack(settings)
            } catch {
                outcome = Outcome(name: name, held: false, happened: "the attack itself failed: \(error)")
            }
            print("attack \(name): \(outcome.held.map { $0 ? "held" : "BROKE" } ?? "skipped"): \(outcome.happened)")
            fflush(nil)
            outcomes.append(Outcome(name: name, held: outcome.held, happened: outcome.happened))
        }
        let held = outcomes.filter { $0.held == true }.count
        let broke = outcomes.filter { $0.held == false }.map(\.name)
        print(
            "attack (wire): \(outcomes.count) tried, \(held) held, \(broke.count) broke\(broke.isEmpty ? "" : " (\(broke.joined(separator: ", ")))"), \(outcomes.count - held - broke.count) skipped"
        )
        if !broke.isEmpty { throw BenchError("\(broke.count) attacks broke through") }
    }

    // MARK: A system to attack

    /// A coordinator on loopback in a temporary directory, with `workouts` two-point workouts
    /// imported and, when asked, route and heatmap in both themes enqueued.
    final class Target {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-attack-\(UUID().uuidString)")
        let context = ZMQContext()
        let coordinator: Coordinator
        let endpoints: Coordinator.Endpoints
        let configuration: CoordinatorConfiguration
        let logLines: LogLines

        init(workouts: Int = 0, enqueue: Bool = false, adjust: (inout CoordinatorConfiguration) -> Void = { _ in }) throws {
            var configuration = DispatchBench.benchConfiguration(directory: directory)
            configuration.metricsListen = "127.0.0.1:0"
            adjust(&configuration)
            self.configuration = configuration
            let lines = LogLines()
            logLines = lines
            var logger = Logger(label: "workfeed.attack") { _ in CountingLogHandler(lines: lines) }
            logger.logLevel = .info
            coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
            endpoints = try coordinator.start()
            if workouts > 0 { try DispatchBench.importTinyWorkouts(workouts, context: context, endpoint: endpoints.control) }
            if enqueue {
                var client = try self.client(timeoutMilliseconds: 600_000)
                let _: EnqueueReply = try client.request(
                    .enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1]))
            }
        }

        func client(timeoutMilliseconds: Int = 10_000, curve: CurveClientKeys? = nil) throws -> ControlClient {
            try ControlClient(context: context, endpoint: endpoints.control, timeoutMilliseconds: timeoutMilliseconds, curve: curve)
        }

        /// Whether the coordinator answers PING within 10 s.
        func alive() -> Bool {
            guard var client = try? client() else { return false }
            return ((try? client.request(.ping, [String: String]()) as [String: Bool]) ?? [:])["pong"] == true
        }

        func stop() {
            coordinator.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The log lines a target's coordinator wrote, to look at.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct CountingLogHandler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.append("\(event.level) \(fields) \(event.message)")
        }
    }
}
