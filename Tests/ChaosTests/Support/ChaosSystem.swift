import Foundation
import WorkFeedModel
import WorkFeedWire

#if canImport(Glibc)
import Glibc
#endif

/// A coordinator and workers as real processes on loopback, with their index, cache and logs in a
/// temporary directory. The coordinator always comes back on the same ports and index, so workers
/// find it again by themselves after it is killed.
final class ChaosSystem {
    struct Settings {
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

    let settings: Settings
    let directory: URL
    let indexPath: String
    let cacheDirectory: String
    let logDirectory: URL
    let binaries: URL
    let workerEndpoint: String
    let controlEndpoint: String
    let eventsEndpoint: String
    /// Where the coordinator serves its Prometheus `/metrics`.
    let metricsListen: String
    let coordinator: ManagedProcess
    private(set) var workers: [ManagedProcess] = []
    let context = ZMQContext()
    /// Keep the directory after the run (WORKFEED_CHAOS_KEEP=1), to read the logs.
    let keep = ProcessInfo.processInfo.environment["WORKFEED_CHAOS_KEEP"] == "1"

    init(_ settings: Settings, label: String) throws {
        self.settings = settings
        binaries = try Binaries.directory()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-\(label)-\(UUID().uuidString.prefix(8))")
        logDirectory = directory.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        indexPath = directory.appendingPathComponent("index/index.sqlite").path
        cacheDirectory = settings.cacheDirectory ?? directory.appendingPathComponent("cache").path
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        var ports = Set<Int>()
        while ports.count < 4 { ports.insert(try freeLoopbackPort()) }
        let sorted = ports.sorted()
        workerEndpoint = "tcp://127.0.0.1:\(sorted[0])"
        controlEndpoint = "tcp://127.0.0.1:\(sorted[1])"
        eventsEndpoint = "tcp://127.0.0.1:\(sorted[2])"
        metricsListen = "127.0.0.1:\(sorted[3])"
        coordinator = ManagedProcess(
            name: "coordinator", executable: binaries.appendingPathComponent("workfeed-coordinator"),
            arguments: [
                "--index", indexPath, "--cache", cacheDirectory, "--listen-workers", workerEndpoint, "--listen-control", controlEndpoint,
                "--log-level", settings.logLevel, "--log-format", "json",
            ],
            environment: [
                "WORKFEED_HEARTBEAT_INTERVAL_MS": "\(settings.heartbeatMilliseconds)",
                "WORKFEED_HEARTBEAT_LIVENESS": "\(settings.liveness)",
                "WORKFEED_RETRY_MAX_ATTEMPTS": "\(settings.maximumAttempts)",
                "WORKFEED_RETRY_INITIAL_BACKOFF_SECONDS": "0.2",
                "WORKFEED_RETRY_MAX_BACKOFF_SECONDS": "2",
                "WORKFEED_RETRY_ENVIRONMENT_INITIAL_BACKOFF_SECONDS": "\(settings.environmentBackoff.initial)",
                "WORKFEED_RETRY_ENVIRONMENT_MAX_BACKOFF_SECONDS": "\(settings.environmentBackoff.maximum)",
                // The event stream's and the metrics' ports too, so that several systems (and a demo)
                // can run side by side.
                "WORKFEED_LISTEN_EVENTS": eventsEndpoint,
                "WORKFEED_METRICS_LISTEN": metricsListen,
            ],
            logURL: logDirectory.appendingPathComponent("coordinator.log"))
        let workerExecutable = binaries.appendingPathComponent("workfeed-worker")
        workers = (0..<settings.workers).map { number in
            let arguments = [
                "--connect", workerEndpoint, "--cache", cacheDirectory, "--threads", "\(settings.threadsPerWorker)",
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

    /// Coordinator starts that ended before answering PING (a port not yet free, say), with their logs.
    private(set) var failedCoordinatorStarts: [String] = []

    /// Starts the coordinator and waits until it answers PING. A port still held by the killed
    /// generation is retried for a while.
    func startCoordinator(timeout: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try coordinator.start()
            while coordinator.isRunning && Date() < deadline {
                if (try? ping()) == true { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            if coordinator.isRunning {
                throw ChaosFailure("the coordinator did not answer PING within \(Int(timeout)) s:\n\(coordinator.logTail())")
            }
            failedCoordinatorStarts.append("start #\(coordinator.starts) ended (\(coordinator.terminationDescription)):\n\(coordinator.logTail(10))")
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

    /// One request on a fresh DEALER, so that a coordinator restart never leaves a request stuck.
    func request<Reply: Decodable>(
        _ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = [], timeoutMilliseconds: Int = 5_000
    ) throws -> Reply {
        var client = try ControlClient(context: context, endpoint: controlEndpoint, timeoutMilliseconds: timeoutMilliseconds)
        return try client.request(command, body, attachments: attachments)
    }

    func ping() throws -> Bool {
        struct Pong: Decodable { var pong: Bool }
        let reply: Pong = try request(.ping, [String: String](), timeoutMilliseconds: 1_000)
        return reply.pong
    }

    func status(timeoutMilliseconds: Int = 5_000) throws -> StatusReply {
        try request(.status, [String: String](), timeoutMilliseconds: timeoutMilliseconds)
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

    /// SIGTERM to every worker, then the coordinator.
    /// - Returns: the processes that did not stop on SIGTERM within the grace period.
    @discardableResult
    func stop() -> [String] {
        var stubborn: [String] = []
        for worker in workers where !worker.terminate(timeout: 30) { stubborn.append(worker.name) }
        if !coordinator.terminate(timeout: 30) { stubborn.append(coordinator.name) }
        return stubborn
    }

    /// Stops what still runs and removes the directory (unless WORKFEED_CHAOS_KEEP=1).
    func tearDown() {
        for worker in workers { worker.kill9() }
        coordinator.kill9()
        if keep {
            print("chaos: kept \(directory.path)")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Logs

    /// The coordinator's JSON log lines (every generation), as dictionaries.
    func coordinatorLogEntries() -> [[String: String]] {
        Self.jsonLines(coordinator.log())
    }

    static func jsonLines(_ text: String) -> [[String: String]] {
        text.split(separator: "\n").compactMap { line in
            guard line.first == "{", let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object.compactMapValues { $0 as? String }
        }
    }

    /// Jobs whose lease the coordinator took back from workers that died, went silent, restarted
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
