import Foundation
import WorkFeedModel
import WorkFeedWire

#if canImport(Glibc)
import Glibc
import WorkFeedStyle
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
    private var random: SplitMix64
    private var workerSockets: [Dealer] = []
    private var controlSockets: [Dealer] = []
    private(set) var statistics = Statistics()
    private var importNumber = 0
    /// Request ids of the IMPORTs sent as they were made (extreme or not), to read their replies.
    private var importsSent: [UInt64: Bool] = [:]

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
    private func route(points: Int, extreme: Bool = false) -> Route {
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

    // MARK: Extreme values

    /// Times a 64-bit millisecond field holds that no workout has: each must be refused.
    static let extremeTimes: [Int64] = [.max, .max - 1, 1 << 62, -(1 << 62), .min + 1, 7_258_118_400_000, -2_208_988_800_001]

    /// A well-formed worker message with values at the edges of their frames.
    private func extremeWorkerMessage() -> [[UInt8]] {
        let protocolFrame = Array("WFW1".utf8)
        switch random.next() % 6 {
        case 0:
            let capacities: [UInt32] = [0, 1025, .max, 1]
            let names = ["", String(repeating: "w", count: 10_000), "evil\nworker connected", "\u{1B}[31mred\u{1B}[0m", "fuzz"]
            return [
                protocolFrame, Array("READY".utf8), capacities[Int(random.next() % 4)].bigEndianFrame,
                random.next() % 5 == 0 ? UInt32.max.bigEndianFrame : UInt32(BuildInfo.rendererVersion).bigEndianFrame,
                Array(names[Int(random.next() % UInt64(names.count))].utf8), noise(Int(random.next() % 80)),
            ]
        case 1:
            let outcomes = ["generated", "failed-retry", "failed-no-retry"]
            return [
                protocolFrame, Array("STATUS".utf8), [0, 1, UInt64.max, random.next()][Int(random.next() % 4)].bytes,
                Array(outcomes[Int(random.next() % 3)].utf8),
                Array(String(repeating: "d", count: [64, 4_097, 100_000][Int(random.next() % 3)]).utf8),
                UInt64.max.bytes, Array("full".utf8),
            ]
        case 2:
            return [protocolFrame, Array("DISCONNECT".utf8), Array(String(repeating: "r", count: 100_000).utf8)]
        case 3:
            return [protocolFrame, Array("HEARTBEAT".utf8)] + Array(repeating: [], count: Int(random.next() % 3))
        case 4:
            return [protocolFrame, Array("ERROR".utf8), Array("\u{1B}]0;title\u{07}".utf8)]
        default:
            return [
                protocolFrame, Array("READY".utf8), UInt32(1).bigEndianFrame, UInt32(BuildInfo.rendererVersion).bigEndianFrame,
                Array("fuzz".utf8), Array(String(repeating: "A", count: 64).utf8),
            ]
        }
    }

    /// A well-formed control request with values at the edges: extreme times in IMPORTs (which
    /// must all be refused), limits, counts, ids and lengths out of range, deep or huge JSON.
    private func extremeControlRequest() -> [[UInt8]] {
        let id = random.next()
        func request(_ command: String, _ body: String, _ attachments: [[UInt8]] = []) -> [[UInt8]] {
            [Array("WFC1".utf8), id.bytes, Array(command.utf8), Array(body.utf8)] + attachments
        }
        let unknownIDs = { (count: Int) in (0..<count).map { _ in "\"\(UUID().uuidString.lowercased())\"" }.joined(separator: ",") }
        switch random.next() % 12 {
        case 0, 1, 2:
            importNumber += 1
            let time = Self.extremeTimes[Int(random.next() % UInt64(Self.extremeTimes.count))]
            var route = Array("WFR1".utf8) + le(UInt32(1)) + le(UInt32(2))
            for (index, milliseconds) in [Int64(1_700_000_000_000), time].enumerated() {
                route += le(Int32(52_0000000 + index * 100)) + le(Int32(4_0000000)) + le(Int32.min) + le(milliseconds)
            }
            var heartRate = Array("WFH1".utf8) + le(UInt32(1)) + le(Int64(1_700_000_000_000)) + le(UInt16.max)
            if random.next() % 2 == 0 {
                route = SeriesCodec.encode(self.route(points: 3)); heartRate = Array("WFH1".utf8) + le(UInt32(1)) + le(time) + le(UInt16(600))
            }
            importsSent[id] = true
            statistics.extremeImportsSent += 1
            let body = "{\"source\":\"gpx\",\"sourceID\":\"fuzz-extreme-\(importNumber)\",\"activity\":\"running\",\"origin\":\"fuzz\"}"
            return request("IMPORT", body, [route, heartRate])
        case 3:
            importNumber += 1
            importsSent[id] = true
            statistics.extremeImportsSent += 1
            let fields = [
                "\"timeZoneOffset\":9223372036854775807", "\"start\":\"0001-01-01T00:00:00Z\"", "\"end\":\"9999-12-31T23:59:59Z\"",
                "\"name\":\"\(String(repeating: "n", count: 100_000))\"",
            ]
            let body =
                "{\"source\":\"gpx\",\"sourceID\":\"fuzz-extreme-\(importNumber)\",\"activity\":\"running\",\"origin\":\"fuzz\",\(fields[Int(random.next() % 4)])}"
            return request("IMPORT", body, [SeriesCodec.encode(route(points: 3)), SeriesCodec.encode([HeartRateSample]())])
        case 4: return request("FEED", "{\"limit\":\([Int.max, -1, 0, 1001, Int.min][Int(random.next() % 5)])}")
        case 5:
            return request(
                "FEED",
                "{\"limit\":1000,\"cursor\":\"\(["1e999|x", "-0|\(UUID().uuidString)", String(repeating: "9", count: 5000)][Int(random.next() % 3)])\"}"
            )
        case 6:
            return request(
                "CHANGES",
                "{\"since\":\([Int64.max, -1, Int64.min][Int(random.next() % 3)]),\"limit\":\([Int.max, 0, 100_001][Int(random.next() % 3)])}")
        case 7: return request("FAILED", "{\"limit\":\([Int.max, 0, -5][Int(random.next() % 3)]),\"group\":true}")
        case 8:
            let fields = [
                "\"priority\":9223372036854775807", "\"scales\":[0,4,-1]", "\"since\":\"0001-01-01T00:00:00Z\"",
                "\"activities\":[\"running\",\"walking\",\"cycling\",\"other\",\"running\"]",
            ]
            return request("ENQUEUE", "{\"ids\":[\(unknownIDs(3))],\"kinds\":[\"route\"],\"themes\":[\"light\"],\(fields[Int(random.next() % 4)])}")
        case 9:
            // More ids than a request may carry, all unknown.
            return request(
                random.next() % 2 == 0 ? "DELETE" : "SHOW", "{\"ids\":[\(unknownIDs(10_001))],\"id\":\"\(String(repeating: "f", count: 36))\"}")
        case 10: return request("STATUS", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
        default: return request("PING", "{\"x\":1e400,\"y\":\"\\ud800\"}")
        }
    }

    /// A report on a real lease that must not make its picture generated.
    private func answer(_ job: JobAssignment) -> [[UInt8]] {
        let key = SHA256.hex(random.next().bytes)
        let reports = [
            JobReport(lease: job.lease, outcome: .failedRetry, detail: "fuzz: transient", renderMicroseconds: .max),
            JobReport(lease: job.lease, outcome: .generated, detail: key, renderMicroseconds: .max, map: .full),
        ]
        return WorkerMessage.status(reports[Int(random.next() % 2)]).frames
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    // MARK: Mutations

    private func mutate(_ frames: [[UInt8]], worker: Bool) -> (kind: String, frames: [[UInt8]]) {
        var frames = frames
        let pick = Int(random.next() % UInt64(frames.count))
        switch random.next() % 14 {
        case 0:
            return ("well-formed", frames)
        case 1:
            if frames[pick].isEmpty {
                frames[pick] = [0xFF]
            } else {
                let byte = Int(random.next() % UInt64(frames[pick].count))
                frames[pick][byte] ^= UInt8(1 << (random.next() % 8))
            }
            return ("bit-flipped", frames)
        case 2:
            frames[pick] = Array(frames[pick].prefix(Int(random.next() % UInt64(frames[pick].count + 1))))
            return ("truncated", frames)
        case 3:
            frames[pick] += noise(Int(1 + random.next() % 64))
            return ("extended", frames)
        case 4:
            if frames.count > 1 { frames.remove(at: pick) } else { frames = [[]] }
            return ("frame-dropped", frames)
        case 5:
            frames += (0..<Int(1 + random.next() % 4)).map { _ in noise(Int(random.next() % 16)) }
            return ("frames-added", frames)
        case 6:
            let names: [[UInt8]] = [
                Array("WFW2".utf8), Array("wfw1".utf8), Array((worker ? "WFC1" : "WFW1").utf8), [], Array("WFW".utf8), noise(4),
                [UInt8](repeating: 0x57, count: 1000),
            ]
            frames[0] = names[Int(random.next() % UInt64(names.count))]
            return ("wrong-protocol", frames)
        case 7:
            let commandFrame = worker ? 1 : 2
            let commands: [[UInt8]] = [Array("BOGUS".utf8), Array("ready".utf8), [0xC3, 0x28], [], noise(40), Array("PING ".utf8)]
            if frames.count > commandFrame { frames[commandFrame] = commands[Int(random.next() % UInt64(commands.count))] }
            return ("unknown-command", frames)
        case 8:
            return ("huge-counts", hugeCounts(frames, worker: worker))
        case 9:
            return ("empty-frames", Array(repeating: [], count: Int(1 + random.next() % 8)))
        case 10:
            let count = random.next() % 4 == 0 ? 10_000 : Int(10 + random.next() % 500)
            return ("many-frames", frames + Array(repeating: [0x00], count: count))
        case 11:
            return ("noise", (0..<Int(1 + random.next() % 8)).map { _ in noise(Int(random.next() % 300)) })
        case 12:
            // Integer frames of the wrong width.
            let width = frames.indices.filter { frames[$0].count == 8 || frames[$0].count == 4 }
            if let index = width.first { frames[index] = noise([0, 1, 3, 5, 7, 9, 16][Int(random.next() % 7)]) }
            return ("wrong-width", frames)
        default:
            // Text frames that are not UTF-8.
            let index = Int(random.next() % UInt64(frames.count))
            frames[index] = [0xFF, 0xFE, 0xC0, 0x80] + frames[index]
            return ("not-utf8", frames)
        }
    }

    /// Integers at their limits: capacities, versions, leases, render times, request ids, and
    /// series whose segment, point and sample counts promise more than follows.
    private func hugeCounts(_ frames: [[UInt8]], worker: Bool) -> [[UInt8]] {
        var frames = frames
        for index in frames.indices {
            if frames[index].count == 4 && index >= 2 { frames[index] = [UInt8](repeating: 0xFF, count: 4) }
            if frames[index].count == 8 && index >= 1 { frames[index] = [UInt8](repeating: 0xFF, count: 8) }
            if frames[index].starts(with: Array("WFR1".utf8)) || frames[index].starts(with: Array("WFH1".utf8)) {
                var series = frames[index]
                if series.count >= 8 { series.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F]) }
                if series.count >= 12 && random.next() % 2 == 0 { series.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF]) }
                frames[index] = series
            }
        }
        return frames
    }

    private func noise(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
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
