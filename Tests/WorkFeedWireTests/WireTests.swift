import Foundation
import Testing
import WorkFeedModel
import WorkFeedWire

@Suite struct WorkerMessageTests {
    static let id = WorkoutID("3f2a0000-0000-4000-8000-000000000001")!

    @Test(arguments: [
        WorkerMessage.ready(capacity: 4, rendererVersion: 1, name: "host-1", basemap: "3f2a"),
        .job(JobAssignment(lease: 0xDEAD_BEEF_0000_0001, workoutID: id, cacheKey: "abc", spec: Array("{}".utf8), route: [1, 2, 3], heartRate: [])),
        .status(JobReport(lease: 42, outcome: .failedNoRetry, detail: "no route", renderMicroseconds: 1234)),
        .heartbeat,
        .disconnect(reason: "bye"),
        .error("bad"),
    ])
    func roundTrip(message: WorkerMessage) throws {
        #expect(try WorkerMessage(frames: message.frames) == message)
        #expect(message.frames[0] == Array("WFW1".utf8))
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }
    static let lease: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
    static let malformed: [(frames: [[UInt8]], expected: String)] = [
        ([], "empty message"),
        ([text("WFW2"), text("READY")], "protocol"),
        ([text("WFW1")], "command"),
        ([text("WFW1"), text("PLEASE")], "unknown command"),
        ([text("WFW1"), text("READY"), [0, 0, 0]], "capacity"),
        ([text("WFW1"), text("READY"), [0, 0, 0, 0], [0, 0, 0, 1], text("w")], "capacity must be"),
        ([text("WFW1"), text("STATUS"), lease, text("done"), [], [0, 0, 0, 0, 0, 0, 0, 0]], "outcome"),
        ([text("WFW1"), text("JOB"), lease, text("not-a-uuid"), [], [], [], []], "not a UUID"),
        ([text("WFW1"), text("HEARTBEAT"), [1]], "unexpected frame"),
        ([text("WFW1"), text("ERROR"), [0xFF, 0xFE]], "not UTF-8"),
    ]

    @Test(arguments: malformed)
    func malformedMessagesAreErrorsThatSayWhy(frames: [[UInt8]], expected: String) {
        do {
            _ = try WorkerMessage(frames: frames)
            Issue.record("accepted a malformed message")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func randomBytesNeverCrashTheParser() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...8, using: &generator)
            var frames = (0..<count).map { _ in (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            if count > 1, Bool.random(using: &generator) {
                frames[0] = Array("WFW1".utf8)
                frames[1] = Array(["READY", "JOB", "STATUS", "HEARTBEAT", "DISCONNECT", "ERROR"].randomElement(using: &generator)!.utf8)
            }
            _ = try? WorkerMessage(frames: frames)
        }
    }
}

@Suite struct ControlMessageTests {
    @Test func requestAndReplyRoundTrip() throws {
        let request = ControlRequest(id: 7, command: .importWorkout, body: Array("{}".utf8), attachments: [[1], [2, 3]])
        #expect(try ControlRequest(frames: request.frames) == request)
        let reply = ControlReply.error(id: 7, "no workout with id x")
        let parsed = try ControlReply(frames: reply.frames)
        #expect(parsed.id == 7)
        #expect(!parsed.ok)
        #expect(try ControlCodec.decode(ControlErrorBody.self, from: parsed.body).error == "no workout with id x")
    }

    @Test func unknownCommandIsNamed() {
        #expect(throws: WireError.self) { try ControlRequest(frames: [Array("WFC1".utf8), [0, 0, 0, 0, 0, 0, 0, 1], Array("DROP".utf8), []]) }
    }
}

@Suite struct SocketTests {
    /// Real sockets on loopback: a ROUTER answers a DEALER, and a multipart message arrives whole.
    @Test func routerDealerOnLoopback() throws {
        let context = ZMQContext()
        let router = try ZMQSocket(context, type: .router)
        let endpoint = try router.bind("tcp://127.0.0.1:*")
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let dealer = try ZMQSocket(context, type: .dealer)
        try dealer.connect(endpoint)
        let big = [UInt8](repeating: 7, count: 100_000)
        try dealer.send(WorkerMessage.ready(capacity: 2, rendererVersion: 1, name: "t", basemap: "").frames + [])
        try dealer.send([Array("WFW1".utf8), Array("ERROR".utf8), big])
        #expect(try ZMQPoll.poll([router.pollItem()], timeoutMilliseconds: 5_000) == [true])
        var first = try #require(try router.receive())
        let identity = first.removeFirst()
        #expect(try WorkerMessage(frames: first) == .ready(capacity: 2, rendererVersion: 1, name: "t", basemap: ""))
        var second = try #require(try router.receive())
        second.removeFirst()
        #expect(second[2] == big)
        try router.send([identity] + WorkerMessage.heartbeat.frames)
        #expect(try ZMQPoll.poll([dealer.pollItem()], timeoutMilliseconds: 5_000) == [true])
        #expect(try WorkerMessage(frames: try #require(try dealer.receive())) == .heartbeat)
        #expect(try dealer.receive(dontWait: true) == nil)
    }

    @Test func bindingABadEndpointIsAnErrorNamingIt() throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, type: .router)
        do {
            try socket.bind("tcp://not an endpoint")
            Issue.record("bound a bad endpoint")
        } catch {
            #expect(error.description.contains("bind tcp://not an endpoint"))
        }
    }
}

/// The hand-written summary page is the document Codable would write, and reads back the same.
@Suite struct FeedSummaryTests {
    @Test func theWriterMatchesTheCodableEncoding() throws {
        var workout = WorkoutRecord(
            id: WorkoutID("0b1c4d5e-0000-8000-8000-000000000001")!, owner: "alice", source: .gpx, sourceID: "x", activity: .cycling,
            name: "Tour \"du\" lac\n\u{1}é", summary: WorkoutSummary(route: Route(), heartRate: []), timeZoneOffset: -3600,
            routeVersion: 1, routeHash: "r", heartRateHash: "h", anchor: 3)
        workout.start = Date(timeIntervalSince1970: 1_668_268_705.8498)
        workout.distance = 12_345.678
        workout.duration = 3600
        workout.heartRateMax = 181
        workout.elevationGain = .nan
        workout.pointCount = 42
        let pictures = [
            PictureRecord(
                picture: PictureID(workoutID: workout.id, kind: .route, theme: .dark, scale: 2), status: .generated, reason: nil,
                cacheKey: String(repeating: "ab", count: 32), attempts: 0, updatedAt: Date()),
            PictureRecord(
                picture: PictureID(workoutID: workout.id, kind: .heatmap, theme: .light), status: .failedNoRetry, reason: "no route",
                cacheKey: nil, attempts: 1, updatedAt: Date()),
        ]
        var reply = FeedSummaryReply(items: [WorkoutSummaryItem(workout, pictures: pictures)], next: "1.5|x", pictureSize: PictureSize(width: 512, height: 384))
        let written = FeedSummaryWriter.encode(reply)
        reply.items[0].elevationGain = nil  // not finite: left out
        #expect(written == (try ControlCodec.encode(reply)))
        #expect(try ControlCodec.decode(FeedSummaryReply.self, from: written) == reply)
        let empty = FeedSummaryReply(items: [], next: nil, pictureSize: nil)
        #expect(FeedSummaryWriter.encode(empty) == (try ControlCodec.encode(empty)))
    }
}
