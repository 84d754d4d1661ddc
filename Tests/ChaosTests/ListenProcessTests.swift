import Foundation
import Testing
import WorkFeedWire

/// The real coordinator program with addresses beyond loopback. Each runs inside `unshare -n` (a
/// network namespace of its own), so that nothing is ever bound on the machine's interfaces even if
/// a guard failed.
@Suite(.serialized) struct ListenProcessTests {
    static let unshare = URL(fileURLWithPath: "/usr/bin/unshare")

    func coordinator(_ environment: [String: String], directory: URL) throws -> (status: Int32, output: String) {
        try runToCompletion(
            Self.unshare, ["-n", try Binaries.url("workfeed-coordinator").path, "--index", directory.appendingPathComponent("index.sqlite").path],
            environment: environment, timeout: 60)
    }

    @Test(arguments: [
        (["WORKFEED_LISTEN_CONTROL": "tcp://127.0.0.1:0;0.0.0.0:5555"], "listen.control"),
        (["WORKFEED_LISTEN_WORKERS": "tcp://0.0.0.0:5555"], "listen.workers"),
        (["WORKFEED_LISTEN_EVENTS": "tcp://localhost:5557"], "listen.events"),
        (["WORKFEED_METRICS_LISTEN": "0.0.0.0:9464"], "metrics.listen"),
    ])
    func withoutKeysAddressesBeyondLoopbackStopTheStartWithTheReason(environment: [String: String], key: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-listen-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try coordinator(environment, directory: directory)
        #expect(result.status == 78, "exit \(result.status): \(result.output)")
        #expect(result.output.contains("invalid configuration") && result.output.contains(key), "\(result.output)")
        #expect(!result.output.contains("coordinator listening"), "\(result.output)")
    }

    /// Every listen address has a flag, and a flag is held to the same guard as the file and the
    /// environment.
    @Test(arguments: [
        (["--listen-events", "tcp://0.0.0.0:5557"], "listen.events"),
        (["--listen-metrics", "0.0.0.0:9464"], "metrics.listen"),
        (["--listen-control", "tcp://10.0.0.1:5556"], "listen.control"),
    ])
    func listenFlagsAreGuardedToo(flags: [String], key: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-listen-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runToCompletion(
            Self.unshare,
            ["-n", try Binaries.url("workfeed-coordinator").path, "--index", directory.appendingPathComponent("index.sqlite").path] + flags,
            environment: [:], timeout: 60)
        #expect(result.status == 78, "exit \(result.status): \(result.output)")
        #expect(result.output.contains(key), "\(result.output)")
    }

    /// With keys, the coordinator listens on every interface (of its own namespace) and says so.
    @Test func withKeysItListensWhereItIsTold() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-listen-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try CurveKeyPair.generate()
        let keyFile = directory.appendingPathComponent("coordinator.key")
        try keys.fileContents.write(to: keyFile, atomically: true, encoding: .utf8)
        let process = ManagedProcess(
            name: "coordinator", executable: Self.unshare,
            arguments: ["-n", try Binaries.url("workfeed-coordinator").path, "--index", directory.appendingPathComponent("index.sqlite").path],
            environment: [
                "WORKFEED_SECURITY_KEY_FILE": keyFile.path, "WORKFEED_LISTEN_WORKERS": "tcp://0.0.0.0:5555",
                "WORKFEED_LISTEN_CONTROL": "tcp://0.0.0.0:5556", "WORKFEED_LISTEN_EVENTS": "tcp://0.0.0.0:5557",
                "WORKFEED_METRICS_LISTEN": "0.0.0.0:9464", "WORKFEED_METRICS_ALLOW_REMOTE": "true",
                "WORKFEED_CACHE_DIRECTORY": directory.appendingPathComponent("cache").path,
            ],
            logURL: directory.appendingPathComponent("coordinator.log"))
        try process.start()
        defer { process.kill9() }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && !process.log().contains("coordinator listening") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(process.isRunning, "\(process.log())")
        #expect(process.log().contains("workers=tcp://0.0.0.0:5555"), "\(process.log())")
        #expect(process.log().contains("curve=true"), "\(process.log())")
        #expect(process.terminate(timeout: 20), "\(process.log())")
    }
}
