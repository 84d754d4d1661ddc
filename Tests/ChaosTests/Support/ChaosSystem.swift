import Foundation
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

#if canImport(Glibc)
import Glibc
#endif

/// Where a chaos run's index lives.
enum ChaosIndex: String, CaseIterable, CustomStringConvertible {
    /// The SQLite file in the run's directory: one coordinator.
    case sqlite
    /// A database on a PostgreSQL server of the run's own (``PostgresTestServer``, on a Unix
    /// socket in a temporary directory), which every coordinator of the run shares.
    case postgres

    var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// Coordinators and workers as real processes on loopback, with their index, cache and logs in a
/// temporary directory (and, on PostgreSQL, a server of their own). A coordinator always comes back
/// on the same ports and index, so workers find it again by themselves after it is killed.
final class ChaosSystem {
    struct Settings {
        var index = ChaosIndex.sqlite
        /// Coordinators on the index; more than one needs PostgreSQL. Worker n works for
        /// coordinator n % coordinators and is given every coordinator's endpoint (its own first),
        /// so that it goes on with another while its own is down.
        var coordinators = 1
        /// `index.lease_seconds` (PostgreSQL): how long after a coordinator was killed the others
        /// lease again the jobs it held. The least allowed, so that a kill costs seconds, not 30.
        var leaseSeconds = 3
        var workers = 2
        var threadsPerWorker = 1
        var heartbeatMilliseconds = 200
        var liveness = 5
        /// Attempts before a job that keeps losing its worker gives up. Chaos kills workers on
        /// purpose, so it is raised from the default 3: a job being unlucky three times is the
        /// designed outcome, not what these tests look for.
        var maximumAttempts = 20
        var logLevel = "info"
        /// Back-off for failures of a worker's surroundings (a full cache): short here, so that a
        /// run does not wait minutes once the cache takes files again.
        var environmentBackoff = (initial: 0.5, maximum: 2.0)
        /// Run every worker through this command first (`nsenter -t PID -m --`: in another
        /// process's mount namespace, where the cache is a small file system of its own).
        var workerPrefix: [String] = []
        /// The cache directory, when not the run's own `cache/` (a mount point made beforehand).
        var cacheDirectory: String?
    }

    /// One coordinator's endpoints, each on a port of its own.
    struct Endpoints {
        var workers: String
        var control: String
        var events: String
        /// Where it serves its Prometheus `/metrics`.
        var metrics: String
    }

    let settings: Settings
    let directory: URL
    /// The SQLite index file (unused on PostgreSQL).
    let indexPath: String
    /// The run's PostgreSQL server, and the URL of the database the coordinators share.
    let postgres: PostgresTestServer?
    let indexURL: String?
    let cacheDirectory: String
    let logDirectory: URL
    let binaries: URL
    /// Each coordinator's endpoints, in the order of ``coordinators``.
    let endpoints: [Endpoints]
    var workerEndpoint: String { endpoints[0].workers }
    var controlEndpoint: String { endpoints[0].control }
    let coordinators: [ManagedProcess]
    /// The first coordinator (the only one on SQLite).
    var coordinator: ManagedProcess { coordinators[0] }
    private(set) var workers: [ManagedProcess] = []
    let context = ZMQContext()
    /// Keep the directory after the run (WORKFEED_CHAOS_KEEP=1), to read the logs.
    let keep = ProcessInfo.processInfo.environment["WORKFEED_CHAOS_KEEP"] == "1"

    init(_ settings: Settings, label: String) throws {
        guard settings.coordinators >= 1, settings.coordinators == 1 || settings.index == .postgres else {
            throw ChaosFailure("\(settings.coordinators) coordinators on \(settings.index): several coordinators need PostgreSQL")
        }
        self.settings = settings
        binaries = try Binaries.directory()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-\(label)-\(UUID().uuidString.prefix(8))")
        logDirectory = directory.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        indexPath = directory.appendingPathComponent("index/index.sqlite").path
        switch settings.index {
        case .sqlite:
            postgres = nil
            indexURL = nil
        case .postgres:
            let server = try PostgresTestServer()
            postgres = server
            indexURL = server.socketURL(database: try server.createDatabase())
        }
        cacheDirectory = settings.cacheDirectory ?? directory.appendingPathComponent("cache").path
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        var ports = Set<Int>()
        while ports.count < 4 * settings.coordinators { ports.insert(try freeLoopbackPort()) }
        let sorted = ports.sorted()
        let endpointList = (0..<settings.coordinators).map { number in
            let own = Array(sorted[(4 * number)..<(4 * number + 4)])
            return Endpoints(
                workers: "tcp://127.0.0.1:\(own[0])", control: "tcp://127.0.0.1:\(own[1])", events: "tcp://127.0.0.1:\(own[2])",
                metrics: "127.0.0.1:\(own[3])")
        }
        endpoints = endpointList
        // On PostgreSQL: the shared database, an id each (the holder of its leases, the same after
        // a restart), and the kept originals in one directory of the run, as shared storage would be.
        var indexSettings: [String] = []
        var indexEnvironment: [String: String] = [:]
        if let indexURL {
            indexEnvironment = [
                "WORKFEED_INDEX_URL": indexURL, "WORKFEED_INDEX_LEASE_SECONDS": "\(settings.leaseSeconds)",
                "WORKFEED_ORIGINALS_DIRECTORY": directory.appendingPathComponent("originals").path,
            ]
        } else {
            indexSettings = ["--index", indexPath]
        }
        let coordinatorExecutable = binaries.appendingPathComponent("workfeed-coordinator")
        let (cache, logs, single, shared) = (cacheDirectory, logDirectory, settings.coordinators == 1, indexURL != nil)
        coordinators = endpointList.enumerated().map { number, endpoint in
            let name = single ? "coordinator" : "coordinator-\(number)"
            var environment = indexEnvironment.merging(Self.coordinatorEnvironment(settings, endpoint)) { $1 }
            if shared { environment["WORKFEED_COORDINATOR_ID"] = name }
            return ManagedProcess(
                name: name, executable: coordinatorExecutable,
                arguments: indexSettings + [
                    "--cache", cache, "--listen-workers", endpoint.workers, "--listen-control", endpoint.control, "--log-level",
                    settings.logLevel, "--log-format", "json",
                ],
                environment: environment, logURL: logs.appendingPathComponent("\(name).log"))
        }
        let workerExecutable = binaries.appendingPathComponent("workfeed-worker")
        workers = (0..<settings.workers).map { number in
            // Its own coordinator first, then the others.
            let own = number % endpointList.count
            let connect = (endpointList[own...] + endpointList[..<own]).map(\.workers).joined(separator: ",")
            let arguments = [
                "--connect", connect, "--cache", cacheDirectory, "--threads", "\(settings.threadsPerWorker)",
                "--name", "worker-\(number)", "--log-level", settings.logLevel, "--log-format", "json",
            ]
            return ManagedProcess(
                name: "worker-\(number)",
                executable: settings.workerPrefix.first.map { URL(fileURLWithPath: $0) } ?? workerExecutable,
                arguments: settings.workerPrefix.isEmpty ? arguments : Array(settings.workerPrefix.dropFirst()) + [workerExecutable.path] + arguments,
                environment: [
                    "WORKFEED_HEARTBEAT_INTERVAL_MS": "\(settings.heartbeatMilliseconds)",
                    "WORKFEED_HEARTBEAT_LIVENESS": "\(settings.liveness)",
                    "WORKFEED_RECONNECT_INITIAL_MS": "100",
                    "WORKFEED_RECONNECT_MAX_MS": "1000",
                ],
                logURL: logDirectory.appendingPathComponent("worker-\(number).log"))
        }
    }

    /// What every coordinator is started with besides its index: heartbeats, retries, and the
    /// event stream's and the metrics' ports too, so that several systems (and a demo) can run side by side.
    private static func coordinatorEnvironment(_ settings: Settings, _ endpoint: Endpoints) -> [String: String] {
        [
            "WORKFEED_HEARTBEAT_INTERVAL_MS": "\(settings.heartbeatMilliseconds)",
            "WORKFEED_HEARTBEAT_LIVENESS": "\(settings.liveness)",
            "WORKFEED_RETRY_MAX_ATTEMPTS": "\(settings.maximumAttempts)",
            "WORKFEED_RETRY_INITIAL_BACKOFF_SECONDS": "0.2",
            "WORKFEED_RETRY_MAX_BACKOFF_SECONDS": "2",
            "WORKFEED_RETRY_ENVIRONMENT_INITIAL_BACKOFF_SECONDS": "\(settings.environmentBackoff.initial)",
            "WORKFEED_RETRY_ENVIRONMENT_MAX_BACKOFF_SECONDS": "\(settings.environmentBackoff.maximum)",
            "WORKFEED_LISTEN_EVENTS": endpoint.events,
            "WORKFEED_METRICS_LISTEN": endpoint.metrics,
        ]
    }

    /// Coordinator starts that ended before answering PING (a port not yet free, say), with their logs.
    private(set) var failedCoordinatorStarts: [String] = []

    /// Starts every coordinator, one after the other.
    func startCoordinators() throws {
        for number in coordinators.indices { try startCoordinator(number) }
    }

    /// Starts coordinator `number` and waits until it answers PING. A port still held by the
    /// killed generation is retried for a while.
    func startCoordinator(_ number: Int = 0, timeout: TimeInterval = 60) throws {
        let coordinator = coordinators[number]
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try coordinator.start()
            while coordinator.isRunning && Date() < deadline {
                if (try? ping(number)) == true { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            if coordinator.isRunning {
                throw ChaosFailure("the coordinator did not answer PING within \(Int(timeout)) s:\n\(coordinator.logTail())")
            }
            failedCoordinatorStarts.append(
                "\(coordinator.name) start #\(coordinator.starts) ended (\(coordinator.terminationDescription)):\n\(coordinator.logTail(10))")
            guard Date() < deadline else {
                throw ChaosFailure("the coordinator could not start (\(coordinator.terminationDescription)):\n\(coordinator.logTail())")
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }

    func startWorkers() throws {
        for worker in workers { try worker.start() }
    }

    /// Starts the coordinator and the workers, imports `routes` workouts with heart rate (through
    /// workctl) and enqueues route and heatmap pictures in both themes: 4 jobs a workout (100 by
    /// default) that can all be drawn.
    func startWithAHundredJobs(routes: Int = 25) throws -> WorkoutFiles {
        let files = try WorkoutFiles(
            routes: routes, withoutHeartRateEvery: 0, includeWaypointsOnly: false, into: directory.appendingPathComponent("inputs"))
        try startCoordinator()
        try startWorkers()
        try waitForWorkers(workers.count)
        let imported = try workctl(["import", "--coordinator", controlEndpoint, files.directory.path])
        guard imported.status == 0 else { throw ChaosFailure("workctl import exited \(imported.status): \(imported.output)") }
        let enqueued: EnqueueReply = try request(
            .enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1]))
        guard enqueued.created == routes * 4 else { throw ChaosFailure("ENQUEUE created \(enqueued.created) jobs, not \(routes * 4)") }
        return files
    }

    /// Waits until `count` workers are connected.
    func waitForWorkers(_ count: Int, timeout: TimeInterval = 60) throws {
        _ = try waitFor("\(count) workers connected", timeout: timeout) { status in status.workers.count >= count }
    }

    // MARK: Control

    /// One request on a fresh DEALER, so that a coordinator restart never leaves a request stuck:
    /// to coordinator `number`, or, when `nil`, to each running coordinator in turn until one answers.
    func request<Reply: Decodable>(
        _ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = [], timeoutMilliseconds: Int = 5_000,
        coordinator number: Int? = nil
    ) throws -> Reply {
        let asked = number.map { [$0] } ?? coordinators.indices.filter { coordinators[$0].isRunning || coordinators.count == 1 }
        var failure: (any Error)?
        for number in asked {
            do {
                var client = try ControlClient(context: context, endpoint: endpoints[number].control, timeoutMilliseconds: timeoutMilliseconds)
                return try client.request(command, body, attachments: attachments)
            } catch {
                failure = error
            }
        }
        throw failure ?? ChaosFailure("no coordinator is running to ask \(command.rawValue)")
    }

    func ping(_ number: Int = 0) throws -> Bool {
        struct Pong: Decodable { var pong: Bool }
        let reply: Pong = try request(.ping, [String: String](), timeoutMilliseconds: 1_000, coordinator: number)
        return reply.pong
    }

    /// STATUS of coordinator `number`, or of the first running one that answers.
    func status(timeoutMilliseconds: Int = 5_000, of number: Int? = nil) throws -> StatusReply {
        try request(.status, [String: String](), timeoutMilliseconds: timeoutMilliseconds, coordinator: number)
    }

    /// Polls STATUS until `condition` holds. Never a fixed sleep: the machine may be slow.
    @discardableResult
    func waitFor(_ what: String, timeout: TimeInterval, poll: TimeInterval = 0.1, _ condition: (StatusReply) -> Bool) throws -> StatusReply {
        let deadline = Date().addingTimeInterval(timeout)
        var last: StatusReply?
        while Date() < deadline {
            guard coordinator.isRunning else {
                throw ChaosFailure(
                    "the coordinator ended (\(coordinator.terminationDescription)) while waiting for \(what):\n\(coordinator.logTail(60))")
            }
            if let status = try? status(timeoutMilliseconds: 2_000) {
                last = status
                if condition(status) { return status }
            }
            Thread.sleep(forTimeInterval: poll)
        }
        throw ChaosFailure(
            "timed out after \(Int(timeout)) s waiting for \(what); last STATUS: \(last.map(Self.describe) ?? "none")\n"
                + "coordinator: \(coordinator.terminationDescription)\n\(coordinator.logTail(20))")
    }

    /// Every workout with its pictures, through FEED pages.
    func feed() throws -> [WorkoutWithPictures] {
        var items: [WorkoutWithPictures] = []
        var cursor: String?
        repeat {
            let page: FeedReply = try request(.feed, FeedRequest(limit: 1000, cursor: cursor), timeoutMilliseconds: 30_000)
            items += page.items
            cursor = page.next
        } while cursor != nil
        return items
    }

    /// Runs workctl against this system's coordinator.
    func workctl(_ arguments: [String], timeout: TimeInterval = 300) throws -> (status: Int32, output: String) {
        try runToCompletion(binaries.appendingPathComponent("workctl"), arguments, timeout: timeout)
    }

    // MARK: Stopping

    /// SIGTERM to every worker, then the coordinators.
    /// - Returns: the processes that did not stop on SIGTERM within the grace period.
    @discardableResult
    func stop() -> [String] {
        var stubborn: [String] = []
        for worker in workers where !worker.terminate(timeout: 30) { stubborn.append(worker.name) }
        for coordinator in coordinators where !coordinator.terminate(timeout: 30) { stubborn.append(coordinator.name) }
        return stubborn
    }

    /// Stops what still runs, the PostgreSQL server too (its log kept in `logs/` with the rest),
    /// and removes the directory (unless WORKFEED_CHAOS_KEEP=1).
    func tearDown() {
        for worker in workers { worker.kill9() }
        for coordinator in coordinators { coordinator.kill9() }
        if let postgres {
            if keep { try? postgres.log.write(to: logDirectory.appendingPathComponent("postgres.log"), atomically: true, encoding: .utf8) }
            postgres.stop()
        }
        if keep {
            print("chaos: kept \(directory.path)")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Logs

    /// The coordinators' JSON log lines (every generation), as dictionaries.
    func coordinatorLogEntries() -> [[String: String]] {
        coordinators.flatMap { Self.jsonLines($0.log()) }
    }

    static func jsonLines(_ text: String) -> [[String: String]] {
        text.split(separator: "\n").compactMap { line in
            guard line.first == "{", let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object.compactMapValues { $0 as? String }
        }
    }

    /// Jobs whose lease a coordinator took back from workers that died, went silent, restarted
    /// or left ("leases returned to the queue").
    func releasedLeases() -> Int {
        coordinatorLogEntries().reduce(0) { total, entry in
            entry["msg"] == "leases returned to the queue" ? total + (entry["jobs"].flatMap { Int($0) } ?? 0) : total
        }
    }

    /// `*.tmp` files under the cache: pictures whose writer died between writing and renaming.
    func temporaryFiles() -> [String] {
        (FileManager.default.enumerator(atPath: cacheDirectory)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".tmp") }
    }

    static func describe(_ status: StatusReply) -> String {
        "workouts \(status.workouts), pending \(status.total(.pending)), generated \(status.total(.generated)), "
            + "failed-no-retry \(status.total(.failedNoRetry)), leased \(status.leased), workers "
            + status.workers.map { "\($0.name) \($0.busy)/\($0.capacity)" }.joined(separator: ", ")
    }
}

/// A chaos run could not go on; the message says where it stood.
struct ChaosFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
