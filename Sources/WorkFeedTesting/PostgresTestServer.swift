import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for tests: Debian's `postgresql` package (deploy/install-test-deps.sh
/// installs it), a cluster made with `initdb` in a temporary directory and its server started
/// (`postgres`, a child of the test process) on a Unix socket there and on a free loopback port,
/// stopped when the test process ends. As
/// root (CI), the cluster belongs to the `postgres` user the package made: the server refuses to
/// run as root.
///
/// It runs with `fsync = off`: tests check what is committed and what several sessions see, not
/// what survives a power cut, and the disk here does 290 flushes a second. Benchmarks start a
/// server of their own with the defaults (`durable: true`: every commit flushed; docs/benchmarks.md).
public final class PostgresTestServer: Sendable {
    /// The superuser the cluster is made with, and the tests connect as.
    public static let user = "workfeed"

    /// The folder of Debian's PostgreSQL programs (the newest version installed).
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed()
            .map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }()
    public static var isInstalled: Bool { binaries != nil }
    public static let skipReason = "no PostgreSQL server in /usr/lib/postgresql: run deploy/install-test-deps.sh (make test does)"

    /// The server every test of a run shares; each test makes a database of its own
    /// (``createDatabase()``).
    public static let shared = Result<PostgresTestServer, PostgresTestServerError> { () throws(PostgresTestServerError) in
        try PostgresTestServer()
    }

    /// The directory that holds the server's socket (`.s.PGSQL.<port>`).
    public let socketDirectory: String
    public let port: Int
    /// The password of ``user`` over TCP, which requires one (over the socket, none is asked).
    public let password: String
    /// A file holding ``password``, as `index.password_file` names one.
    public let passwordFile: String
    private let root: String
    private let dataDirectory: String
    private nonisolated(unsafe) var process: SpawnedProcess?

    /// Makes and starts a cluster of its own.
    /// - Parameter durable: PostgreSQL's defaults (`fsync`, `full_page_writes`: a commit is on
    ///   disk when it returns), for benchmarks; tests leave them off.
    public init(durable: Bool = false) throws(PostgresTestServerError) {
        guard let binaries = Self.binaries else { throw PostgresTestServerError(Self.skipReason) }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-pg-\(UUID().uuidString.prefix(8))").path
        dataDirectory = root + "/data"
        socketDirectory = root
        passwordFile = root + "/password"
        password = "pw-" + UUID().uuidString.prefix(12).lowercased()
        do {
            port = try MotoServer.freePort()
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        } catch {
            throw PostgresTestServerError("could not prepare \(root): \(error)")
        }
        let owner = getuid() == 0 ? "postgres" : nil
        if let owner { try Self.run("/bin/chown", ["-R", owner, root]) }
        try Self.run(
            "\(binaries)/initdb",
            [
                "-D", dataDirectory, "-U", Self.user, "--pwfile", passwordFile, "--auth-local=trust", "--auth-host=scram-sha-256",
                "-E", "UTF8", "--locale=C", "--no-sync",
            ], as: owner)
        self.durable = durable
        self.owner = owner
        try startServer()
    }

    /// `fsync` on (benchmarks) or off (tests).
    private let durable: Bool
    /// The user the server runs as (`postgres` when the tests run as root).
    private let owner: String?

    /// Starts `postgres` on the cluster and waits until it takes connections.
    private func startServer() throws(PostgresTestServerError) {
        guard let binaries = Self.binaries else { throw PostgresTestServerError(Self.skipReason) }
        // The server is a child of this process, as moto's is (pg_ctl's daemon was seen to leave
        // Foundation's Process waiting for ever on the pg_ctl it had started). Started without
        // Foundation's Process: ``SpawnedProcess``.
        let server =
            [
                "\(binaries)/postgres", "-D", dataDirectory, "-k", root, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c",
                "max_connections=200",
            ] + (durable ? [] : ["-c", "fsync=off", "-c", "full_page_writes=off"])
            // Settings of one's own, to look into a run: WORKFEED_TEST_PG_SETTINGS="log_min_duration_statement=5 …".
            + (ProcessInfo.processInfo.environment["WORKFEED_TEST_PG_SETTINGS"] ?? "").split(separator: " ").flatMap { ["-c", String($0)] }
        let command = owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] + server } ?? server
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(command[0], Array(command.dropFirst()), output: root + "/server.log")
        } catch {
            throw PostgresTestServerError("postgres could not start: \(error)")
        }
        self.process = process
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            if (try? Self.run("\(binaries)/pg_isready", ["-q", "-h", root, "-p", String(port)])) != nil {
                if let pid = postmasterPID { Self.running.withLock { _ = $0.insert(pid) } }
                return
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let said = self.log
        stop()
        throw PostgresTestServerError("postgres did not start on \(root) port \(port): \(said.suffix(2_000))")
    }

    /// Restarts the server as an operator's `systemctl restart postgresql` does: a fast shutdown
    /// (SIGINT: every session ended, every open transaction rolled back), then a start on the same
    /// cluster and port, after `down` of nobody listening.
    public func restart(down: Duration = .zero) throws(PostgresTestServerError) {
        if let pid = postmasterPID {
            Glibc.kill(pid, SIGINT)
            _ = Self.running.withLock { $0.remove(pid) }
        }
        process?.wait()
        if down > .zero { Thread.sleep(forTimeInterval: Double(down.components.seconds) + Double(down.components.attoseconds) / 1e18) }
        try startServer()
    }

    deinit { stop() }

    /// A new, empty database; its name.
    public func createDatabase() throws(PostgresTestServerError) -> String {
        let name = "wf_" + UUID().uuidString.prefix(8).lowercased()
        guard let binaries = Self.binaries else { throw PostgresTestServerError(Self.skipReason) }
        try Self.run("\(binaries)/createdb", ["-h", socketDirectory, "-p", String(port), "-U", Self.user, name])
        return name
    }

    /// `database`'s URL over the Unix socket (no password asked).
    public func socketURL(database: String) -> String {
        "postgres://\(Self.user)@:\(port)/\(database)?host=\(socketDirectory)"
    }

    /// `database`'s URL over loopback TCP (the password required, from ``passwordFile``).
    public func tcpURL(database: String) -> String {
        "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// What the server wrote to its log, for a failing test's message.
    public var log: String { (try? String(contentsOfFile: root + "/server.log", encoding: .utf8)) ?? "" }

    /// Stops the server at once (as a crash would: SIGQUIT) and removes its cluster.
    public func stop() {
        if let pid = postmasterPID {
            Glibc.kill(pid, SIGQUIT)
            _ = Self.running.withLock { $0.remove(pid) }
        }
        process?.wait()
        try? FileManager.default.removeItem(atPath: root)
    }

    private var postmasterPID: Int32? {
        (try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8))?
            .split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Servers still running, stopped when the test process exits (the shared one is a static and
    /// never deinitialized).
    static let running: Mutex<Set<Int32>> = {
        atexit {
            for pid in PostgresTestServer.running.withLock({ $0 }) { Glibc.kill(pid, SIGQUIT) }
        }
        return Mutex([])
    }()

    /// Runs a program to its end (as `user`, through runuser, when given); what it printed when it failed.
    private static func run(_ program: String, _ arguments: [String], as user: String? = nil) throws(PostgresTestServerError) {
        let command = user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] } ?? [program]
        // A file, not a pipe: the server pg_ctl starts keeps its parent's descriptors, and a pipe
        // would never reach its end while the server runs.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-pg-run-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let ended: SpawnedProcess.Termination
        do {
            ended = try SpawnedProcess.run(command[0], Array(command.dropFirst()) + arguments, output: log.path)
        } catch {
            throw PostgresTestServerError("\(error)")
        }
        guard ended == .exited(0) else {
            let said = (try? Data(contentsOf: log)) ?? Data()
            throw PostgresTestServerError(
                "\((program as NSString).lastPathComponent) \(arguments.joined(separator: " ")) \(ended): "
                    + String(decoding: said.suffix(2_000), as: UTF8.self))
        }
    }
}

public struct PostgresTestServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
