import Foundation
import WorkFeedModel
import WorkFeedStyle
import WorkFeedWire

#if canImport(Glibc)
import Glibc
#endif

/// Sends random and mutated messages at the coordinator's two sockets from DEALER sockets of its
/// own: well-formed messages of both protocols with one thing broken (a frame flipped, truncated,
/// extended, dropped or added; the wrong protocol name; an unknown command; integers at their
/// limits; series whose counts lie), empty frames, thousands of frames, pure noise, and once per
/// socket a message over the coordinator's ZMQ_MAXMSGSIZE.
///
/// Some mutations leave a message well-formed: a READY whose name frame was flipped is a READY,
/// and the fuzzer becomes a worker that takes jobs and never answers. That is part of the test:
/// those jobs must come back once the fuzzer goes silent. The fuzzer never answers a JOB, so it
/// never reports a real lease.
final class Fuzzer {
    struct Statistics: CustomStringConvertible {
        var sent = 0
        var sentByKind: [String: Int] = [:]
        var dropped = 0
        var workerErrors = 0
        var workerDisconnects = 0
        var jobsTaken = 0
        var controlErrors = 0
        var controlOK = 0
        var socketsReplaced = 0
        /// JOBs the fuzzer answered (failed-retry, or generated with a key of its own).
        var jobsAnswered = 0
        /// Workouts whose IMPORT the coordinator acknowledged to the fuzzer.
        var importsAcknowledged: Set<WorkoutID> = []
        /// IMPORTs sent with a value out of range (a time, a length): each must be refused.
        var extremeImportsSent = 0
        var extremeImportsAccepted = 0

        var description: String {
            "sent \(sent) messages (\(sentByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
                + "\(dropped) not queued (high-water mark); worker socket answered \(workerErrors) ERROR, \(workerDisconnects) DISCONNECT, "
                + "\(jobsTaken) JOB (\(jobsAnswered) answered); control socket answered \(controlErrors) ERROR, \(controlOK) OK "
                + "(\(importsAcknowledged.count) imports acknowledged, \(extremeImportsAccepted) of \(extremeImportsSent) out-of-range imports accepted); "
                + "\(socketsReplaced) sockets replaced"
        }
    }

    let context: ZMQContext
    let workerEndpoint: String
    let controlEndpoint: String
    var random: SplitMix64
    private var workerSockets: [Dealer] = []
    private var controlSockets: [Dealer] = []
    var statistics = Statistics()
    var importNumber = 0
    /// Request ids of the IMPORTs sent as they were made (extreme or not), to read their replies.
    var importsSent: [UInt64: Bool] = [:]

    init(context: ZMQContext, workerEndpoint: String, controlEndpoint: String, seed: UInt64) throws {
        self.context = context
        self.workerEndpoint = workerEndpoint
        self.controlEndpoint = controlEndpoint
        random = SplitMix64(seed: seed)
        for _ in 0..<3 {
            workerSockets.append(try Self.dealer(context, workerEndpoint))
            controlSockets.append(try Self.dealer(context, controlEndpoint))
        }
    }

    /// A DEALER in a box: sockets are not copyable, and arrays hold copyable things.
    final class Dealer {
        let socket: ZMQSocket
        init(_ socket: consuming ZMQSocket) { self.socket = socket }
    }

    private static func dealer(_ context: ZMQContext, _ endpoint: String) throws -> Dealer {
        let socket = try ZMQSocket(context, type: .dealer)
        try socket.connect(endpoint)
        return Dealer(socket)
    }

    /// Fuzzes for `seconds`, about `rate` messages a second, calling `check` every half second
    /// (to look at the coordinator while it goes on).
    func run(seconds: Double, rate: Int = 1_500, includeOversize: Bool = true, check: () throws -> Void = {}) throws {
        let started = Date()
        let end = started.addingTimeInterval(seconds)
        var nextCheck = started.addingTimeInterval(0.5)
        var oversizeSent = !includeOversize
        let burst = 25
        let pause = Double(burst) / Double(rate)
        while Date() < end {
            for _ in 0..<burst {
                switch random.next() % 5 {
                case 0, 1: try send(worker: true, mutate(workerTemplate(), worker: true))
                case 2, 3: try send(worker: false, mutate(controlTemplate(), worker: false))
                default:
                    // Structure-aware: well-formed frames whose values sit at the edges.
                    if random.next() % 2 == 0 {
                        try send(worker: true, ("extreme-values", extremeWorkerMessage()))
                    } else {
                        try send(worker: false, ("extreme-values", extremeControlRequest()))
                    }
                }
            }
            if !oversizeSent && Date().timeIntervalSince(started) > seconds / 2 {
                oversizeSent = true
                // Over the coordinator's 256 MiB ZMQ_MAXMSGSIZE: libzmq drops it and closes that connection.
                let huge = [UInt8](repeating: 0x41, count: Int(WorkerMessage.maximumMessageSize) + 1024)
                try send(worker: true, ("oversize", [Array("WFW1".utf8), Array("READY".utf8), huge]))
                try send(worker: false, ("oversize", [Array("WFC1".utf8), UInt64(1).bytes, Array("PING".utf8), huge]))
            }
            try drain()
            if random.next() % 40 == 0 { try replaceSocket() }
            if Date() >= nextCheck {
                try check()
                nextCheck = Date().addingTimeInterval(0.5)
            }
            Thread.sleep(forTimeInterval: pause)
        }
        try drain()
    }

    /// Closes the fuzzer's sockets: it goes silent, as a crashed peer would.
    func close() {
        workerSockets.removeAll()
        controlSockets.removeAll()
    }

    // MARK: Sending and receiving

    private func send(worker: Bool, _ message: (kind: String, frames: [[UInt8]])) throws {
        let index = Int(random.next() % UInt64(worker ? workerSockets.count : controlSockets.count))
        do {
            if worker {
                try workerSockets[index].socket.send(message.frames, dontWait: true)
            } else {
                try controlSockets[index].socket.send(message.frames, dontWait: true)
            }
            statistics.sent += 1
            statistics.sentByKind[message.kind, default: 0] += 1
        } catch let error where error.code == EAGAIN {
            statistics.dropped += 1
        }
    }

    private func drain() throws {
        for socket in workerSockets {
            while let frames = try socket.socket.receive(dontWait: true) {
                switch frames.count > 1 ? String(decoding: frames[1], as: UTF8.self) : "" {
                case "ERROR": statistics.workerErrors += 1
                case "DISCONNECT": statistics.workerDisconnects += 1
                case "JOB":
                    statistics.jobsTaken += 1
                    // Most are taken and never answered; some get a report a worker may send
                    // that must not make the picture generated (a transient failure, another
                    // key, absurd figures).
                    if random.next() % 3 == 0, case .job(let job)? = try? WorkerMessage(frames: frames) {
                        try? socket.socket.send(answer(job), dontWait: true)
                        statistics.jobsAnswered += 1
                    }
                default: break
                }
            }
        }
        for socket in controlSockets {
            while let frames = try socket.socket.receive(dontWait: true) {
                guard let reply = try? ControlReply(frames: frames) else { continue }
                if reply.ok { statistics.controlOK += 1 } else { statistics.controlErrors += 1 }
                guard let extreme = importsSent.removeValue(forKey: reply.id), reply.ok else { continue }
                if extreme { statistics.extremeImportsAccepted += 1 }
                if let imported = try? ControlCodec.decode(ImportReply.self, from: reply.body) {
                    // A duplicate is acknowledged but not stored under its own id: the workout it
                    // duplicates is what must be there.
                    switch imported.result {
                    case .duplicate, .replacedDuplicate:
                        if let original = imported.duplicateOf { statistics.importsAcknowledged.insert(original) }
                    default:
                        statistics.importsAcknowledged.insert(imported.id)
                    }
                }
            }
        }
    }

    /// A new identity, as a peer that reconnects.
    private func replaceSocket() throws {
        statistics.socketsReplaced += 1
        if random.next() % 2 == 0 {
            workerSockets[Int(random.next() % UInt64(workerSockets.count))] = try Self.dealer(context, workerEndpoint)
        } else {
            controlSockets[Int(random.next() % UInt64(controlSockets.count))] = try Self.dealer(context, controlEndpoint)
        }
    }

    // MARK: Well-formed messages

    private func workerTemplate() -> [[UInt8]] {
        switch random.next() % 7 {
        case 0:
            return WorkerMessage.ready(capacity: Int(1 + random.next() % 4), rendererVersion: BuildInfo.rendererVersion, name: "fuzz", basemap: "")
                .frames
        case 1:
            return WorkerMessage.heartbeat.frames
        case 2, 3:
            let outcome = JobOutcome.allCases[Int(random.next() % 3)]
            return WorkerMessage.status(
                JobReport(
                    lease: random.next(), outcome: outcome, detail: SHA256.hex(random.next().bytes), renderMicroseconds: random.next() % 100_000)
            ).frames
        case 4:
            return WorkerMessage.disconnect(reason: "fuzz").frames
        case 5:
            return WorkerMessage.error("fuzz").frames
        default:
            let job = JobAssignment(
                lease: random.next(), workoutID: WorkoutID(UUID()), cacheKey: SHA256.hex(random.next().bytes),
                spec: PictureSpec(kind: .route, theme: .light, width: 512, height: 512, scale: 1, style: .light, heatmap: .standard).encoded(),
                route: SeriesCodec.encode(route(points: 3)), heartRate: SeriesCodec.encode([HeartRateSample]()))
            return WorkerMessage.job(job).frames
        }
    }

    private func controlTemplate() -> [[UInt8]] {
        let id = random.next()
        func request(_ command: String, _ body: String, _ attachments: [[UInt8]] = []) -> [[UInt8]] {
            [Array("WFC1".utf8), id.bytes, Array(command.utf8), Array(body.utf8)] + attachments
        }
        switch random.next() % 9 {
        case 0: return request("PING", "{}")
        case 1: return request("STATUS", "{}")
        case 2: return request("SHOW", "{\"id\":\"\(UUID().uuidString.lowercased())\"}")
        case 3: return request("FEED", "{\"limit\":\(1 + random.next() % 20)}")
        case 4: return request("FEED", "{\"limit\":3,\"cursor\":\"\(random.next() % 2 == 0 ? "1e308|zz" : "nan|")\"}")
        case 5:
            // Only unknown ids: a well-formed ENQUEUE must not queue anything real.
            return request("ENQUEUE", "{\"ids\":[\"\(UUID().uuidString.lowercased())\"],\"kinds\":[\"route\"],\"themes\":[\"light\"]}")
        default:
            importNumber += 1
            let extreme = random.next() % 4 == 0
            let points = route(points: Int(2 + random.next() % 20), extreme: extreme)
            let samples = (0..<Int(random.next() % 5)).map {
                HeartRateSample(time: Date(timeIntervalSince1970: 1_700_000_000 + Double($0)), bpm: Double(60 + random.next() % 150))
            }
            let body =
                "{\"source\":\"gpx\",\"sourceID\":\"fuzz-\(importNumber)\",\"activity\":\"running\",\"name\":\"fuzz \(importNumber)\",\"origin\":\"fuzz\",\"allowDuplicates\":true}"
            importsSent[id] = false
            return request("IMPORT", body, [SeriesCodec.encode(points), SeriesCodec.encode(samples)])
        }
    }

    /// A small route, or with `extreme` one at the limits of the series format.
    func route(points: Int, extreme: Bool = false) -> Route {
        var segment: [RoutePoint] = []
        for index in 0..<points {
            if extreme {
                let choices: [RoutePoint] = [
                    RoutePoint(latitude: 214.7, longitude: -214.7, elevation: 2e7, time: Date(timeIntervalSince1970: -9e12)),
                    RoutePoint(latitude: 0, longitude: 0, elevation: nil, time: nil),
                    RoutePoint(latitude: 89.99999, longitude: 179.99999, elevation: -2e7, time: Date(timeIntervalSince1970: 9e12)),
                    RoutePoint(latitude: -89.99999, longitude: -179.99999, elevation: 0, time: Date(timeIntervalSince1970: 0)),
                ]
                segment.append(choices[Int(random.next() % UInt64(choices.count))])
            } else {
                segment.append(
                    RoutePoint(
                        latitude: 52.1 + Double(index) * 0.001 + Double(random.next() % 1000) * 1e-6, longitude: 4.4 + Double(index) * 0.001,
                        elevation: 1, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))))
            }
        }
        return Route(segments: [segment])
    }
}

extension UInt64 {
    /// Big-endian, as integer frames are sent.
    var bytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}

extension UInt32 {
    /// Big-endian, as integer frames are sent.
    var bigEndianFrame: [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}
