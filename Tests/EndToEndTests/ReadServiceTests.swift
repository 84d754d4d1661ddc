import Foundation
import Logging
import Testing
@testable import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// The read service answers every request, also when identical requests from several clients are
/// answered with one computation. A request queued just after such a group was taken once waited
/// for the next request to arrive (a thread that had taken the group spent its signal), which a
/// client alone saw as a coordinator that never answered (CI of stop 32, `ReplyBudgetTests`).
/// The real service, its threads and a real index; timing varied over many rounds.
@Suite struct ReadServiceTests {
    @Test func everyReadIsAnsweredWhenIdenticalReadsAreTakenTogether() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-reads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        try index.write { transaction in
            for number in 0..<20 { _ = try transaction.importWorkout(ImportedWorkout.twoPoint(number)) }
        }
        let context = ZMQContext()
        let doneEndpoint = "inproc://reads-done-\(UUID().uuidString)"
        let done = try ZMQSocket(context, type: .pull)
        try done.bind(doneEndpoint)
        let service = try ReadService(
            index: SQLiteIndexBackend(path: path),
            answers: { reader in
                ReadAnswers(
                    index: reader, dispatch: DispatchState(), pictureSize: PictureSize(width: 600, height: 400), scales: [1],
                    themes: Theme.shipped, onRequestThemes: Theme.shippedOnRequest, eventsEndpoint: "",
                    feedBudgetBytes: ControlLimits.feedReplyBudgetBytes,
                    summaryZoneDefaults: .standard, logger: Logger(label: "test"))
            },
            context: context, doneEndpoint: doneEndpoint, logger: Logger(label: "test"))
        defer { service.close() }

        let feed = try ControlCodec.encode(FeedRequest(limit: 5))
        let flooders: [[UInt8]] = [[1], [2], [3]]
        let reader: [UInt8] = [9]
        var id: UInt64 = 0
        let rounds = 400
        for round in 0..<rounds {
            // Three clients ask for the same page (taken together), then another asks for STATUS,
            // sometimes at once, sometimes a moment later.
            for flooder in flooders {
                id += 1
                service.submit(ControlWork(identity: flooder, request: ControlRequest(id: id, command: .feed, body: feed), role: nil, bytes: 0))
            }
            if round % 4 != 0 { Thread.sleep(forTimeInterval: Double(round % 4) * 0.000_05) }
            id += 1
            let status = ControlRequest(id: id, command: .status, body: Array("{}".utf8))
            service.submit(ControlWork(identity: reader, request: status, role: nil, bytes: 0))

            var answered: [[UInt8]] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while answered.count < flooders.count + 1, ContinuousClock.now < deadline {
                if let replies = service.results.poll() {
                    answered += replies.map(\.identity)
                } else {
                    _ = try ZMQPoll.poll([done.pollItem()], timeoutMilliseconds: 50)
                    while try done.receive(dontWait: true) != nil {}
                }
            }
            try #require(answered.count == flooders.count + 1, "round \(round) of \(rounds): answered only \(answered) within 10 s")
            #expect(answered.filter { $0 == reader }.count == 1)
        }
    }
}
