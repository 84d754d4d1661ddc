import Foundation
import Logging
import Synchronization
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

extension AttackBench {
    // MARK: The attacks on access: forged roles, refused connections, terminal escapes, slow scrapes

    static func forgedRoles(_ settings: Settings) throws -> Outcome {
        let keyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-attack-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keyDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keyDirectory) }
        var keys: [String: CurveKeyPair] = [:]
        for name in ["coordinator", "worker", "operator", "gateway", "stranger"] { keys[name] = try CurveKeyPair.generate() }
        let keyFile = keyDirectory.appendingPathComponent("coordinator.key")
        try keys["coordinator"]!.fileContents.write(to: keyFile, atomically: true, encoding: .utf8)
        let target = try Target(adjust: {
            $0.keyFile = keyFile.path
            $0.workerKeys = [keys["worker"]!.publicKey]
            $0.operatorKeys = [keys["operator"]!.publicKey]
            $0.gatewayKeys = [keys["gateway"]!.publicKey]
        })
        defer { target.stop() }
        func curve(_ name: String) -> CurveClientKeys { CurveClientKeys(serverKey: keys["coordinator"]!.publicKey, keyPair: keys[name]!) }
        var operatorClient = try target.client(curve: curve("operator"))
        let workout = ImportedWorkout.twoPoint(5)
        let imported: ImportReply = try operatorClient.request(
            .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        let _: EnqueueReply = try operatorClient.request(.enqueue, EnqueueRequest(ids: [imported.id], kinds: [.route], themes: [.light, .dark]))
        var results: [String] = []
        var broken: [String] = []
        // Control socket: only operator and gateway keys.
        for name in ["worker", "stranger", "operator", "gateway"] {
            var client = try target.client(timeoutMilliseconds: 1_500, curve: curve(name))
            let answered = (try? client.requestRaw(.ping, [String: String]())) != nil
            let expected = name == "operator" || name == "gateway"
            if answered != expected { broken.append("\(name) key on the control socket \(answered ? "answered" : "refused")") }
            results.append("\(name) key on control: \(answered ? "answered" : "refused")")
            guard name == "gateway" else { continue }
            // A gateway acts for one named owner, and never with the operators' commands.
            let ownerless = (try? client.request(.delete, DeleteRequest(ids: [imported.id])) as DeleteReply) != nil
            let status = (try? client.request(.status, StatusRequest(owner: "someone")) as StatusReply) != nil
            if ownerless { broken.append("a gateway key deleted without naming an owner") }
            if status { broken.append("a gateway key was answered STATUS") }
            results.append("gateway key without an owner: \(ownerless ? "answered" : "refused"), STATUS: \(status ? "answered" : "refused")")
        }
        // Worker socket: only the worker key gets a job.
        for name in ["operator", "gateway", "stranger", "worker"] {
            let socket = try ZMQSocket(target.context, type: .dealer)
            try socket.makeCurveClient(curve(name))
            try socket.connect(target.endpoints.workers)
            // A DEALER sends only once its handshake is done: a refused key never gets there.
            var ready = false
            var gotJob = false
            let deadline = ContinuousClock.now + .milliseconds(1_500)
            while ContinuousClock.now < deadline && !gotJob {
                if !ready {
                    ready =
                        (try? socket.send(
                            WorkerMessage.ready(capacity: 1, rendererVersion: BuildInfo.rendererVersion, name: "as-\(name)", basemap: "").frames,
                            dontWait: true)) != nil
                }
                guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0], let frames = try socket.receive(dontWait: true) else {
                    continue
                }
                if case .job? = try? WorkerMessage(frames: frames) { gotJob = true }
            }
            try? socket.send(WorkerMessage.disconnect(reason: "attack over").frames, dontWait: true)
            if gotJob != (name == "worker") { broken.append("\(name) key on the worker socket \(gotJob ? "got a job" : "got none")") }
            results.append("\(name) key as a worker: \(gotJob ? "got a job" : "no job")")
        }
        let show: ShowReply? = try? operatorClient.request(.show, ShowRequest(id: imported.id))
        if show == nil { broken.append("the workout is gone") }
        let refusals = target.logLines.all.filter { $0.contains("connection refused") }.count
        return Outcome(
            name: "forged-roles", held: broken.isEmpty,
            happened: results.joined(separator: "; ") + "; \(refusals) refusal lines logged"
                + (broken.isEmpty ? "" : "; BROKEN: " + broken.joined(separator: ", ")))
    }

    static func refusedConnections(_ settings: Settings) throws -> Outcome {
        let coordinatorKeys = try CurveKeyPair.generate()
        let keyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-attack-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keyDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keyDirectory) }
        let keyFile = keyDirectory.appendingPathComponent("coordinator.key")
        try coordinatorKeys.fileContents.write(to: keyFile, atomically: true, encoding: .utf8)
        let target = try Target(adjust: { $0.keyFile = keyFile.path })
        defer { target.stop() }
        let stranger = CurveClientKeys(serverKey: coordinatorKeys.publicKey, keyPair: try CurveKeyPair.generate())
        let started = ContinuousClock.now
        // Kept open until the end: a socket closed at once may never get as far as its handshake.
        var sockets: [SocketBox] = []
        // Contexts of the attacker's own, 500 sockets each (libzmq allows 1,023 a context).
        var contexts: [ZMQContext] = []
        for number in 0..<settings.refusedConnections {
            if number % 500 == 0 { contexts.append(ZMQContext()) }
            let socket = try ZMQSocket(contexts[contexts.count - 1], type: .dealer)
            try socket.makeCurveClient(stranger)
            try socket.connect(target.endpoints.control)
            sockets.append(SocketBox(socket))
        }
        // Give the handshakes time to be refused and the last burst's count to be flushed.
        Thread.sleep(forTimeInterval: 2.5)
        let seconds = DispatchBench.seconds(ContinuousClock.now - started)
        sockets.removeAll()
        let lines = target.logLines.all.filter { $0.contains("connection refused") }
        let counted =
            lines.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("suppressed=") }.flatMap { Int($0.dropFirst("suppressed=".count)) }
            }
            .reduce(0, +) + lines.count
        return Outcome(
            name: "refused-connections", held: Double(lines.count) <= seconds * 2 + 2 && counted > 0,
            happened: "\(lines.count) log lines over \(Measure.format(seconds, 1)) s (\(Measure.format(Double(lines.count) / seconds, 1)) a second) "
                + "accounting for \(counted) refused handshakes with their suppressed= counts (libzmq retries a refused one, and "
                + "the last may still be under way)")
    }

    static func terminalEscapes(_ settings: Settings) throws -> Outcome {
        let target = try Target()
        defer { target.stop() }
        let socket = try ZMQSocket(target.context, type: .dealer)
        try socket.connect(target.endpoints.workers)
        let evil = "evil\n2026-01-01T00:00:00+0000 info workfeed.coordinator: worker=w [WorkFeedCoordinator] worker connected\u{1B}]0;pwned\u{07}"
        try socket.send(WorkerMessage.ready(capacity: 1, rendererVersion: BuildInfo.rendererVersion, name: evil, basemap: "").frames)
        var refusal = ""
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline && refusal.isEmpty {
            guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0], let frames = try socket.receive(dontWait: true) else {
                continue
            }
            if case .error(let text)? = try? WorkerMessage(frames: frames) { refusal = text }
        }
        var client = try target.client()
        var workout = ImportedWorkout.twoPoint(9)
        workout.name = evil
        let imported =
            (try? client.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
                as ImportReply) != nil
        // What an operator's terminal and the log would get: escaped text, no raw escape.
        let shown = evil.escapedForDisplay
        let clean = !shown.contains("\n") && !shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }
        return Outcome(
            name: "terminal-escapes", held: refusal.contains("control or format characters") && imported && clean,
            happened: "the worker was refused (\(refusal.isEmpty ? "NOT REFUSED" : refusal)); the workout was \(imported ? "imported" : "refused") "
                + "and its name is shown as \(shown.prefix(60))…")
    }

    static func slowMetrics(_ settings: Settings) throws -> Outcome {
        let target = try Target()
        defer { target.stop() }
        guard let url = target.endpoints.metrics, let port = UInt16(url.split(separator: ":")[2].prefix { $0.isNumber }) else {
            return Outcome(name: "slow-metrics", held: nil, happened: "metrics are off")
        }
        var slow: [Int32] = []
        defer { for fd in slow { close(fd) } }
        for _ in 0..<8 {
            let fd = try Loopback.connect(port: port)
            _ = Array("GET /met".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            slow.append(fd)
        }
        let started = ContinuousClock.now
        let response = try httpGetText(url)
        let elapsed = Measure.milliseconds(ContinuousClock.now - started)
        let stillWaiting = slow.filter { fd in
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) < 0 && errno == EAGAIN
        }.count
        let ok = response.hasPrefix("HTTP/1.1 200")
        return Outcome(
            name: "slow-metrics", held: ok && stillWaiting == slow.count,
            happened:
                "the scrape was \(ok ? "answered" : "NOT answered") in \(Measure.format(elapsed, 1)) ms while \(stillWaiting) of \(slow.count) slow clients were still waiting"
        )
    }
}

/// A socket in a box: sockets are not copyable, and arrays hold copyable things.
final class SocketBox {
    let socket: ZMQSocket
    init(_ socket: consuming ZMQSocket) { self.socket = socket }
}

/// A TCP connection to 127.0.0.1.
enum Loopback {
    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw BenchError("cannot connect to 127.0.0.1:\(port)")
        }
        return fd
    }
}

/// The text of a scrape of a metrics endpoint (`http://HOST:PORT/metrics`), over a plain socket.
func httpGetText(_ url: String?) throws -> String {
    guard let url, let port = UInt16(url.split(separator: ":").last?.prefix { $0.isNumber } ?? "") else { throw BenchError("no metrics endpoint") }
    let fd = try Loopback.connect(port: port)
    defer { close(fd) }
    _ = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response += buffer[..<count]
    }
    return String(decoding: response, as: UTF8.self)
}

/// A metric's value in Prometheus text, summed over its label sets.
func metricValue(_ name: String, in text: String) -> Double {
    text.split(separator: "\n").filter { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
        .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
}
