import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Issue 23, finding 7: many clients that never read their replies grew the coordinator to 2 GB.
/// The replies waiting for clients are bounded over all clients (`control.max_queued_replies_mb`):
/// past it they are dropped and counted, and a client that reads is still answered. A real
/// coordinator on loopback; the bound is read from its own metrics, never from a clock.
@Suite(.serialized) struct ReplyBudgetTests {
    /// A metric's value in Prometheus text, summed over its label sets that contain `labels`.
    static func value(_ name: String, _ labels: String = "", in text: String) -> Double? {
        let values = text.split(separator: "\n").filter { $0.hasPrefix(name + " ") || ($0.hasPrefix(name + "{") && $0.contains(labels)) }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    /// A client that sends and never reads.
    final class Flooder {
        let socket: ZMQSocket

        init(context: ZMQContext, endpoint: String) throws {
            socket = try ZMQSocket(context, type: .dealer)
            try socket.set(.receiveHighWaterMark(1))
            try socket.connect(endpoint)
        }
    }

    @Test func clientsThatNeverReadStayWithinTheBudgetAndAReaderIsStillAnswered() throws {
        let budget = 1 << 20
        let system = try RunningSystem(workers: 0) {
            $0.controlMaximumQueuedReplyBytes = budget
            $0.controlMaximumClients = 16
        }
        defer { system.stop() }
        var client = try system.client()
        for number in 0..<500 {
            let workout = ImportedWorkout.twoPoint(number)
            let _: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        }
        // The size of one FEED of 500, as the flood asks for it.
        let page: FeedReply = try client.request(.feed, FeedRequest(limit: 500))
        let replyBytes = try ControlCodec.encode(page).count
        #expect(page.items.count == 500)

        // Four clients that send FEEDs in waves and never read a reply: each stops taking them
        // off the wire (a receive high-water mark of 1), so that what the coordinator sends them
        // piles up at its end.
        let flooders = try (0..<4).map { _ in try Flooder(context: system.context, endpoint: system.endpoints.control) }
        let metricsURL = try #require(system.endpoints.metrics)
        var peakQueued = 0.0
        var id: UInt64 = 0
        for _ in 0..<4 {
            for flooder in flooders {
                for _ in 0..<ControlLimits.defaultRequestsInFlight {
                    id += 1
                    try flooder.socket.send(ControlRequest(id: id, command: .feed, body: Array(#"{"limit":500}"#.utf8)).frames)
                }
            }
            // The well-behaved client is answered meanwhile.
            let pong: [String: Bool] = try client.request(.ping, [String: String]())
            #expect(pong["pong"] == true)
            let status: StatusReply = try client.request(.status, [String: String]())
            #expect(status.workouts == 500)
            let small: FeedReply = try client.request(.feed, FeedRequest(limit: 5))
            #expect(small.items.count == 5)
            for _ in 0..<10 {
                let text = try httpGet(metricsURL).body
                peakQueued = max(peakQueued, Self.value("workfeed_control_reply_bytes_queued", in: text) ?? .infinity)
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let text = try httpGet(metricsURL).body
        let dropped = Self.value("workfeed_control_replies_dropped_total", #"reason="budget""#, in: text) ?? 0
        print(
            "reply budget: \(flooders.count) clients sent \(id) FEEDs of \(replyBytes) bytes and read none; replies queued at most "
                + "\(Int(peakQueued)) bytes (budget \(budget)); \(Int(dropped)) dropped past the budget")
        // Waiting replies stay within the budget; beyond it only what the socket already held for
        // each client when it stopped reading (two replies at most) and each client's first
        // waiting reply (one).
        #expect(peakQueued <= Double(budget + flooders.count * 3 * (replyBytes + 1_024)))
        #expect(dropped > 0, "nothing was dropped: the flood did not reach the budget")
        // Still answered after the flood.
        let after: StatusReply = try client.request(.status, [String: String]())
        #expect(after.workouts == 500)
    }
}
