import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// An operator's first hour (issue 25): no false alarms, no silent mistakes, with the real
/// `workctl` and the real daemons.
@Suite(.serialized) struct OperatorFirstHourTests {
    /// A worker whose cache directory is missing but whose parent is there makes it, says so, and
    /// works; `make bench-maps` and `make bench-gateway` hung on the worker dying here.
    @Test func aWorkerMakesAMissingCacheDirectoryAndSaysSo() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let cache = system.directory.appendingPathComponent("fresh-cache").path
        #expect(!FileManager.default.fileExists(atPath: cache))
        let worker = try DaemonProcess(
            "workfeed-worker", ["--connect", system.endpoints.workers, "--cache", cache, "--name", "fresh", "--threads", "1"])
        #expect(worker.waitFor("worker starting"), "\(worker.log)")
        #expect(worker.log.contains("created the cache directory"), "\(worker.log)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: cache, isDirectory: &isDirectory) && isDirectory.boolValue)
        var client = try system.client()
        var names: [String] = []
        for _ in 0..<100 {
            let status: StatusReply = try client.request(.status, StatusRequest())
            names = status.workers.map(\.name)
            if names == ["fresh"] { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(names == ["fresh"])
        #expect(worker.terminate() == 0, "\(worker.log)")
    }

    /// `--wait --wait-timeout N` with no worker gives up after N seconds without one, with its own
    /// exit code, and says that the pictures stay queued.
    @Test func waitGivesUpWithoutWorkersWithItsOwnExitCode() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        #expect(try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")] + at).status == 0)
        let result = try WorkCtlProcess.run(["enqueue", "--all", "--kind", "route", "--theme", "light", "--wait", "--wait-timeout", "2"] + at)
        #expect(result.status == 75, "\(result.output)\(result.errors)")
        #expect(result.errors.contains("gave up waiting: no worker has been connected for 2 s"), "\(result.errors)")
        #expect(result.output.contains("not done: 0 generated, 0 failed, 1 pending"), "\(result.output)")
        let usage = try WorkCtlProcess.run(["enqueue", "--all", "--wait-timeout", "2"] + at)
        #expect(usage.status == 64 && usage.errors.contains("--wait-timeout goes with --wait"), "\(usage.errors)")
    }

    /// A worker refused for another basemap stops after a few refusals with exit 78 and the
    /// reason, as a bad configuration does, instead of retrying for ever.
    @Test func aWorkerRefusedForAnotherBasemapStopsWith78() throws {
        let system = try RunningSystem(workers: 0, adjust: { $0.basemapTilesets = [MapSystemTests.heidelberg] })
        defer { system.stop() }
        let worker = try DaemonProcess(
            "workfeed-worker", ["--connect", system.endpoints.workers, "--cache", system.configuration.cacheDirectory, "--name", "monaco"],
            environment: ["WORKFEED_BASEMAP_TILESETS": MapSystemTests.monaco])
        let status = worker.waitForExit(seconds: 60)
        #expect(status == 78, "\(worker.log)")
        #expect(worker.log.contains("refusals in a row") && worker.log.contains("basemap-differs"), "\(worker.log)")
        #expect(worker.log.contains("configure the same basemap.tilesets"), "\(worker.log)")
    }

    /// workctl at the workers' endpoint, and a worker at the control endpoint, say which endpoint
    /// they reached and which one they need; the worker stops (78) after a few such answers.
    @Test func aClientAtTheOtherEndpointSaysWhichOneItNeeds() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let workctl = try WorkCtlProcess.run(["status", "--coordinator", system.endpoints.workers, "--timeout", "5"])
        #expect(workctl.status != 0)
        #expect(
            workctl.errors.contains("\(system.endpoints.workers) is the coordinator's worker endpoint (listen.workers, for workfeed-worker)"),
            "\(workctl.errors)")
        #expect(workctl.errors.contains("not its control endpoint (listen.control, port 5556 by default)"), "\(workctl.errors)")
        #expect(!workctl.errors.contains("frame 0"), "\(workctl.errors)")

        let worker = try DaemonProcess(
            "workfeed-worker", ["--connect", system.endpoints.control, "--cache", system.configuration.cacheDirectory, "--name", "lost"])
        let status = worker.waitForExit(seconds: 60)
        #expect(status == 78, "\(worker.log)")
        #expect(
            worker.log.contains(
                "is the coordinator's control endpoint (listen.control, for workctl and the gateway), not its worker endpoint (listen.workers"),
            "\(worker.log)")
        #expect(!worker.log.contains("frame 0"), "\(worker.log)")
    }

    /// An import that finds no workout file says what it found and ignored, and exits 2; the
    /// summary names the owner, and says when it is the coordinator's default.
    @Test func anImportOfNothingSaysSoAndTheSummaryNamesTheOwner() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        let empty = system.directory.appendingPathComponent("empty")
        let others = system.directory.appendingPathComponent("others")
        for folder in [empty, others] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try Data("a note".utf8).write(to: others.appendingPathComponent("notes.txt"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: others.appendingPathComponent("photo.png"))

        let nothing = try WorkCtlProcess.run(["import", empty.path] + at)
        #expect(nothing.status == 2, "\(nothing.output)\(nothing.errors)")
        #expect(nothing.output.contains("no workout files found: import reads .gpx, .tcx, .fit and .zip files"), "\(nothing.output)")

        let ignored = try WorkCtlProcess.run(["import", others.path] + at)
        #expect(ignored.status == 2, "\(ignored.output)\(ignored.errors)")
        #expect(ignored.output.contains("2 other files ignored"), "\(ignored.output)")
        #expect(ignored.output.contains("ignored (not workout files): \(others.path)/notes.txt, \(others.path)/photo.png"), "\(ignored.output)")

        let byDefault = try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")] + at)
        #expect(byDefault.status == 0)
        #expect(
            byDefault.output.contains(
                "imported 1, unchanged 0, updated 0, skipped 0; owner default (the coordinator's owners.default: --owner names another)"),
            "\(byDefault.output)")
        let named = try WorkCtlProcess.run(["import", "--owner", "alice", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), others.path] + at)
        #expect(named.status == 0, "\(named.output)\(named.errors)")
        #expect(named.output.contains("imported 1, unchanged 0, updated 0, skipped 0; owner alice\n"), "\(named.output)")
        #expect(named.output.contains("ignored (not workout files): "), "\(named.output)")
    }

    /// A gateway whose port is taken names the address and exits 69 (cannot start), as the
    /// other daemons do; `--version` is known.
    @Test func aGatewayOnATakenPortNamesTheAddressAndExits69() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-gateway-port-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("token.secret").path
        #expect(try WorkCtlProcess.run(["token", "secret", "--out", secret]).status == 0)
        let taken = try TakenPort()
        let gateway = try DaemonProcess(
            "workfeed-gateway", ["--listen", "127.0.0.1:\(taken.port)", "--cache", directory.path],
            environment: ["WORKFEED_TOKENS_SECRET_FILE": secret])
        #expect(gateway.waitForExit(seconds: 60) == 69, "\(gateway.log)")
        #expect(gateway.log.contains("cannot listen on 127.0.0.1:\(taken.port) (listen, --listen"), "\(gateway.log)")
        #expect(gateway.log.contains("Address already in use: another process listens there"), "\(gateway.log)")
        #expect(!gateway.log.contains("bind(descriptor:"), "\(gateway.log)")

        let version = try DaemonProcess("workfeed-gateway", ["--version"])
        #expect(version.waitForExit(seconds: 30) == 0, "\(version.log)")
        #expect(version.log.contains(BuildInfo.description), "\(version.log)")
    }

    /// A misspelt configuration key stops the daemon with the nearest known keys, not the whole
    /// list of them.
    @Test func anUnknownKeySuggestsTheNearestKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-keys-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("coordinator.yaml")
        try "heartbeat:\n  intervall_ms: 500\n".write(to: file, atomically: true, encoding: .utf8)
        let coordinator = try DaemonProcess(
            "workfeed-coordinator", ["--config", file.path, "--index", directory.appendingPathComponent("index.sqlite").path])
        #expect(coordinator.waitForExit(seconds: 60) == 78, "\(coordinator.log)")
        #expect(coordinator.log.contains("heartbeat.intervall_ms: unknown key; did you mean 'heartbeat.interval_ms'?"), "\(coordinator.log)")
        #expect(!coordinator.log.contains("known keys:") && !coordinator.log.contains("styles.light"), "\(coordinator.log)")

        let worker = directory.appendingPathComponent("worker.yaml")
        try "listen:\n  metrics: 127.0.0.1:0\n".write(to: worker, atomically: true, encoding: .utf8)
        let started = try DaemonProcess("workfeed-worker", ["--config", worker.path])
        #expect(started.waitForExit(seconds: 60) == 78, "\(started.log)")
        #expect(started.log.contains("listen.metrics: unknown key; did you mean 'metrics.listen'?"), "\(started.log)")
    }

    /// Words and numbers: one workout deleted is "1 workout", and `show` points at the line that
    /// holds the file's sha256, which comes below the identity.
    @Test func wordsAndNumbersSayWhatTheyMean() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        #expect(try WorkCtlProcess.run(["import", try fixture("runkeeper_hr-on-waypoint.gpx")] + at).status == 0)
        let feed = try decodeJSON(FeedPage.self, try WorkCtlProcess.run(["feed", "--json"] + at).output).items
        let id = try #require(feed.first?.id)
        let shown = try WorkCtlProcess.run(["show", id.description] + at)
        let lines = shown.output.split(separator: "\n").map(String.init)
        if let identity = lines.firstIndex(where: { $0.contains("identity:") && $0.contains("sha256") }) {
            #expect(lines[identity].contains("its sha256 on the file line below"), "\(shown.output)")
            #expect(lines[(identity + 1)...].contains { $0.contains("sha256 ") }, "\(shown.output)")
        }
        #expect(!shown.output.contains("sha256 above"), "\(shown.output)")
        let deleted = try WorkCtlProcess.run(["delete", id.description] + at)
        #expect(deleted.status == 0)
        #expect(deleted.output.hasPrefix("deleted 1 workout: 1 series, "), "\(deleted.output)")
        #expect(deleted.output.contains(", 1 original file\n"), "\(deleted.output)")
    }

    /// A worker's socket identity changes with every reconnection (it is the name and a random
    /// number). The same worker reconnecting under its name and instance replaces its old entry
    /// at once, whatever the timing: listed once, never reported gone while it works. Another
    /// process under the same name is another worker.
    @Test func aReconnectingWorkerReplacesItsOldEntry() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        func workers() throws -> [String] {
            let status: StatusReply = try client.request(.status, StatusRequest())
            return status.workers.map(\.name).sorted()
        }
        func connect(_ instance: String) throws -> ZMQSocket {
            let socket = try ZMQSocket(system.context, type: .dealer)
            try socket.set(.sendTimeout(milliseconds: 500))
            try socket.connect(system.endpoints.workers)
            try socket.send(
                WorkerMessage.ready(capacity: 1, rendererVersion: BuildInfo.rendererVersion, name: "twin", basemap: "", instance: instance).frames)
            return socket
        }
        let first = try connect("00000000000000aa")
        try first.send(WorkerMessage.heartbeat.frames)
        var names: [String] = []
        for _ in 0..<50 where names.isEmpty {
            names = try workers()
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(names == ["twin"])
        // The first connection is still open and has said nothing more (its READY was on its way
        // when the worker gave up on it): the second one, same instance, replaces it.
        let second = try connect("00000000000000aa")
        for _ in 0..<20 {
            try second.send(WorkerMessage.heartbeat.frames)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try workers() == ["twin"])
        // Past the silence limit of the first connection (5 × 200 ms): still there, once.
        for _ in 0..<15 {
            try second.send(WorkerMessage.heartbeat.frames)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try workers() == ["twin"])
        // Another process that happens to use the same name is another worker.
        let other = try connect("00000000000000bb")
        for _ in 0..<5 {
            try second.send(WorkerMessage.heartbeat.frames)
            try other.send(WorkerMessage.heartbeat.frames)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try workers() == ["twin", "twin"])
        _ = first.pollItem()  // the first connection stays open, silent, to the end
    }
}

/// A loopback TCP port held open (listening) until this value goes.
final class TakenPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, listen(descriptor, 1) == 0 else {
            close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
