import Foundation
import WorkFeedModel
import WorkFeedStyle
import WorkFeedWire

// The messages the fuzzer sends: values at the edges of their frames, and mutations of
// well-formed messages.
extension Fuzzer {
    // MARK: Extreme values

    /// Times a 64-bit millisecond field holds that no workout has: each must be refused.
    static let extremeTimes: [Int64] = [.max, .max - 1, 1 << 62, -(1 << 62), .min + 1, 7_258_118_400_000, -2_208_988_800_001]

    /// A well-formed worker message with values at the edges of their frames.
    func extremeWorkerMessage() -> [[UInt8]] {
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
    func extremeControlRequest() -> [[UInt8]] {
        let id = random.next()
        func request(_ command: String, _ body: String, _ attachments: [[UInt8]] = []) -> [[UInt8]] {
            [Array("WFC1".utf8), id.bytes, Array(command.utf8), Array(body.utf8)] + attachments
        }
        // An IMPORT's body and series, sent as IMPORT or, one time in two, as the gateway's UPLOAD
        // of one workout (issue 37): either must be refused the same.
        func importing(_ body: String, _ series: [[UInt8]]) -> [[UInt8]] {
            guard random.next() % 2 == 1 else { return request("IMPORT", body, series) }
            let upload = "{\"workouts\":[\(body)],\"hasOriginal\":false,\"kinds\":[\"route\"],\"scales\":[1],\"priority\":0,\"owner\":\"fuzz\"}"
            return request("UPLOAD", upload, series)
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
            return importing(body, [route, heartRate])
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
            return importing(body, [SeriesCodec.encode(route(points: 3)), SeriesCodec.encode([HeartRateSample]())])
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
    func answer(_ job: JobAssignment) -> [[UInt8]] {
        let key = SHA256.hex(random.next().bytes)
        let reports = [
            JobReport(lease: job.lease, outcome: .failedRetry, detail: "fuzz: transient", renderMicroseconds: .max),
            JobReport(lease: job.lease, outcome: .generated, detail: key, renderMicroseconds: .max, map: .full),
        ]
        return WorkerMessage.status(reports[Int(random.next() % 2)]).frames
    }

    func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    // MARK: Mutations

    func mutate(_ frames: [[UInt8]], worker: Bool) -> (kind: String, frames: [[UInt8]]) {
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
    func hugeCounts(_ frames: [[UInt8]], worker: Bool) -> [[UInt8]] {
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

    func noise(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
