import Foundation
import Synchronization
import Testing
import WorkFeedModel
import WorkFeedWire

@Suite struct WorkerMessageTests {
    static let id = WorkoutID("3f2a0000-0000-4000-8000-000000000001")!

    @Test(arguments: [
        WorkerMessage.ready(capacity: 4, rendererVersion: 1, name: "host-1", basemap: String(repeating: "3f2a", count: 16)),
        .job(JobAssignment(lease: 0xDEAD_BEEF_0000_0001, workoutID: id, cacheKey: "abc", spec: Array("{}".utf8), route: [1, 2, 3], heartRate: [])),
        .status(JobReport(lease: 42, outcome: .failedNoRetry, detail: "no route", renderMicroseconds: 1234)),
        .heartbeat,
        .disconnect(reason: "bye", code: .basemapDiffers),
        .ready(capacity: 2, rendererVersion: 3, name: "w", basemap: "", instance: "0123456789abcdef"),
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

    /// Random and mutated messages, from a fixed seed that is printed (`WORKFEED_FUZZ_SEED`, hex,
    /// replays another): every message is either refused with an error that names what is wrong,
    /// or read into a message that writes back to frames which read back to the same message.
    @Test func randomAndMutatedMessagesAreReadOrRefusedWithAReason() {
        let seed = WireFuzz.seed(default: 0x57F1_0001)
        print("WorkerMessage fuzz seed: \(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            let frames = WireFuzz.frames(from: Self.samples, commandFrame: 1, using: &random)
            do {
                let message = try WorkerMessage(frames: frames)
                accepted += 1
                #expect(try WorkerMessage(frames: message.frames) == message, "round \(round): \(frames)")
            } catch {
                refused += 1
                #expect(WireFuzz.saysWhy(error.description), "round \(round): '\(error.description)'")
            }
        }
        print("WorkerMessage fuzz: \(accepted) accepted, \(refused) refused")
        #expect(accepted > 100 && refused > 100)
    }

    static let samples: [[[UInt8]]] = [
        WorkerMessage.ready(capacity: 4, rendererVersion: 3, name: "host-1", basemap: String(repeating: "ab", count: 32)).frames,
        WorkerMessage.job(JobAssignment(lease: 7, workoutID: id, cacheKey: "k", spec: [], route: [1], heartRate: [])).frames,
        WorkerMessage.status(JobReport(lease: 9, outcome: .generated, detail: String(repeating: "0f", count: 32), renderMicroseconds: 5)).frames,
        WorkerMessage.status(JobReport(lease: 9, outcome: .failedRetry, detail: "cache write failed", renderMicroseconds: 5, map: .partial)).frames,
        WorkerMessage.heartbeat.frames, WorkerMessage.disconnect(reason: "bye").frames, WorkerMessage.error("bad").frames,
    ]

    @Test func overlongTextsAreRefusedNamingTheFrame() throws {
        let long = String(repeating: "x", count: WorkerMessage.maximumTextBytes + 1)
        #expect(throws: WireError.self) { try WorkerMessage(frames: WorkerMessage.disconnect(reason: long).frames) }
        var ready = WorkerMessage.ready(capacity: 1, rendererVersion: 1, name: "w", basemap: "").frames
        ready[4] = Array(String(repeating: "n", count: 257).utf8)
        do {
            _ = try WorkerMessage(frames: ready)
            Issue.record("accepted a 257-byte name")
        } catch {
            #expect(error.description.contains("frame 4 (name) is 257 bytes, at most 256"))
        }
        // A worker's own long reason is shortened to fit, at a character boundary.
        let report = JobReport(lease: 1, outcome: .failedRetry, detail: String(repeating: "é", count: 3_000), renderMicroseconds: 0)
        #expect(report.detail.utf8.count == WorkerMessage.maximumTextBytes)
        #expect(try WorkerMessage(frames: WorkerMessage.status(report).frames) == .status(report))
    }

    @Test func aGeneratedReportMustCarryACacheKey() {
        let report = JobReport(lease: 1, outcome: .generated, detail: "not a key", renderMicroseconds: 0)
        #expect(throws: WireError.self) { try WorkerMessage(frames: WorkerMessage.status(report).frames) }
    }
}

/// Random frames and mutations of sample messages for the parsers' fuzz tests.
enum WireFuzz {
    static func seed(default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["WORKFEED_FUZZ_SEED"].flatMap { UInt64($0, radix: 16) } ?? value
    }

    /// Pure noise, or a sample with one thing broken: a byte flipped, a frame cut, lengthened,
    /// dropped, added or emptied, an integer at its limit, a text frame that is not UTF-8.
    static func frames(from samples: [[[UInt8]]], commandFrame: Int, using random: inout SplitMix64) -> [[UInt8]] {
        if random.next() % 8 == 0 {
            return (0..<Int.random(in: 0...8, using: &random)).map { _ in noise(Int.random(in: 0...40, using: &random), &random) }
        }
        var frames = samples[Int(random.next() % UInt64(samples.count))]
        let pick = Int(random.next() % UInt64(frames.count))
        switch random.next() % 10 {
        case 0: break
        case 1: if !frames[pick].isEmpty { frames[pick][Int(random.next() % UInt64(frames[pick].count))] ^= UInt8(1 << (random.next() % 8)) }
        case 2: frames[pick] = Array(frames[pick].prefix(Int(random.next() % UInt64(frames[pick].count + 1))))
        case 3: frames[pick] += noise(Int.random(in: 1...5_000, using: &random), &random)
        case 4: frames.remove(at: pick)
        case 5: frames.insert(noise(Int.random(in: 0...8, using: &random), &random), at: Int(random.next() % UInt64(frames.count + 1)))
        case 6: frames[pick] = []
        case 7: frames[pick] = [UInt8](repeating: 0xFF, count: [4, 8][Int(random.next() % 2)])
        case 8: frames[pick] = [0xC3, 0x28] + frames[pick]
        default: if frames.count > commandFrame { frames[commandFrame] = noise(Int.random(in: 0...12, using: &random), &random) }
        }
        return frames
    }

    static func noise(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// Whether an error says what is wrong: a frame, the command, the protocol, or an empty message.
    static func saysWhy(_ text: String) -> Bool {
        ["frame", "command", "protocol", "empty message", "unexpected", "must be", "missing"].contains { text.contains($0) }
    }
}

@Suite struct ControlMessageTests {
    /// A deadline rides in frame 1 after the id (16 bytes); an 8-byte frame 1 has none; any other
    /// length is refused. An ERROR's code survives the trip, and a code this build does not know
    /// leaves the message readable (issue 23, finding 5).
    @Test func aDeadlineAndAnErrorCodeTravel() throws {
        let request = ControlRequest(id: 9, command: .zones, body: Array("{}".utf8), deadline: 1_800_000_000_123)
        #expect(request.frames[1].count == 16)
        let parsed = try ControlRequest(frames: request.frames)
        #expect(parsed == request && parsed.deadline == 1_800_000_000_123 && parsed.id == 9)
        #expect(parsed.isPastDeadline(at: 1_800_000_000_123) && !parsed.isPastDeadline(at: 1_800_000_000_122))
        #expect(try ControlRequest(frames: ControlRequest(id: 9, command: .ping, body: []).frames).deadline == nil)
        var frames = request.frames
        frames[1] = Array(frames[1].prefix(12))
        #expect(throws: WireError.self) { try ControlRequest(frames: frames) }
        let expired = try ControlReply(frames: ControlReply.error(id: 9, code: .expired, "too late").frames)
        #expect(try ControlCodec.decode(ControlErrorBody.self, from: expired.body).code == .expired)
        let unknown = try ControlCodec.decode(ControlErrorBody.self, from: Array(#"{"message": "new", "code": "from-a-newer-build"}"#.utf8))
        #expect(unknown.message == "new" && unknown.code == nil)
    }

    /// An ERROR's body carries `code` and `message`, and `error` (the message again) for clients
    /// of before codes; it reads the shapes of before (`{"error"}`, `{"error", "code": "expired"}`).
    @Test(arguments: ControlErrorCode.allCases)
    func errorBodiesCarryTheirCodeBothWays(code: ControlErrorCode) throws {
        let reply = try ControlReply(frames: ControlReply.error(id: 3, code: code, "what happened").frames)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: String])
        #expect(object == ["code": code.rawValue, "message": "what happened", "error": "what happened"])
        #expect(try ControlCodec.decode(ControlErrorBody.self, from: reply.body) == ControlErrorBody(code: code, message: "what happened"))
        // What a client of before codes reads: `error`, and `code` only when it is "expired".
        struct BodyBeforeCodes: Decodable { var error: String }
        #expect(try ControlCodec.decode(BodyBeforeCodes.self, from: reply.body).error == "what happened")
    }

    @Test func errorBodiesOfACoordinatorOfBeforeAreRead() throws {
        let old = try ControlCodec.decode(ControlErrorBody.self, from: Array(#"{"error": "no workout with id x"}"#.utf8))
        #expect(old == ControlErrorBody(code: nil, message: "no workout with id x"))
        let oldExpired = try ControlCodec.decode(ControlErrorBody.self, from: Array(#"{"code": "expired", "error": "too late"}"#.utf8))
        #expect(oldExpired == ControlErrorBody(code: .expired, message: "too late"))
        #expect(throws: (any Error).self) { try ControlCodec.decode(ControlErrorBody.self, from: Array(#"{"code": "not-found"}"#.utf8)) }
    }

    /// A PROGRESS reply (issue 25) is read as one, with its counts; OK and ERROR are not
    /// progress; any other verdict is refused naming the three.
    @Test func aProgressReplyTravels() throws {
        let progress = ControlReply.progress(id: 4, ControlProgress(done: 250, total: 5_002, unit: "workouts"))
        #expect(progress.frames[2] == Array("PROGRESS".utf8))
        let parsed = try ControlReply(frames: progress.frames)
        #expect(parsed.isProgress && parsed.ok && parsed.id == 4)
        #expect(try ControlCodec.decode(ControlProgress.self, from: parsed.body) == ControlProgress(done: 250, total: 5_002, unit: "workouts"))
        #expect(try !ControlReply(frames: ControlReply(id: 4, ok: true, body: []).frames).isProgress)
        var frames = progress.frames
        frames[2] = Array("DONE".utf8)
        let error = #expect(throws: WireError.self) { try ControlReply(frames: frames) }
        #expect(error?.description.contains("OK, ERROR or PROGRESS") == true)
    }

    @Test func requestAndReplyRoundTrip() throws {
        let request = ControlRequest(id: 7, command: .importWorkout, body: Array("{}".utf8), attachments: [[1], [2, 3]])
        #expect(try ControlRequest(frames: request.frames) == request)
        let reply = ControlReply.error(id: 7, code: .notFound, "no workout with id x")
        let parsed = try ControlReply(frames: reply.frames)
        #expect(parsed.id == 7)
        #expect(!parsed.ok)
        #expect(try ControlCodec.decode(ControlErrorBody.self, from: parsed.body).message == "no workout with id x")
    }

    @Test func randomAndMutatedRequestsAreReadOrRefusedWithAReason() {
        let seed = WireFuzz.seed(default: 0x57F1_0002)
        print("ControlRequest fuzz seed: \(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        let samples = [
            ControlRequest(id: 1, command: .ping, body: Array("{}".utf8)).frames,
            ControlRequest(id: 2, command: .importWorkout, body: Array("{}".utf8), attachments: [[1], [2]]).frames,
            ControlRequest(id: 3, command: .upload, body: Array(#"{"workouts":[]}"#.utf8), attachments: [[1], [2], [3]]).frames,
            ControlRequest(id: .max, command: .feed, body: Array("{\"limit\":3}".utf8)).frames,
        ]
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            let frames = WireFuzz.frames(from: samples, commandFrame: 2, using: &random)
            do {
                let request = try ControlRequest(frames: frames)
                accepted += 1
                #expect(try ControlRequest(frames: request.frames) == request, "round \(round)")
                #expect([.importWorkout, .upload].contains(request.command) || request.attachments.isEmpty)
            } catch {
                refused += 1
                #expect(WireFuzz.saysWhy(error.description), "round \(round): '\(error.description)'")
            }
        }
        print("ControlRequest fuzz: \(accepted) accepted, \(refused) refused")
        #expect(accepted > 100 && refused > 100)
    }

    @Test func attachmentsOnlyWithImportAndBodiesWithinTheLimit() {
        #expect(throws: WireError.self) { try ControlRequest(frames: ControlRequest(id: 1, command: .ping, body: [], attachments: [[1]]).frames) }
        let big = [UInt8](repeating: 0x20, count: ControlLimits.maximumBodyBytes + 1)
        #expect(throws: WireError.self) { try ControlRequest(frames: ControlRequest(id: 1, command: .feed, body: big).frames) }
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

    /// A coordinator on a thread of its own: a ROUTER on a loopback port that takes `requests`
    /// control requests one after the other, handing each (with its sender's identity) to
    /// `answer`. Returns its endpoint and a semaphore signalled once it is done.
    static func fakeCoordinator(
        _ context: ZMQContext, requests: Int,
        answer: @escaping @Sendable (_ number: Int, borrowing ZMQSocket, _ identity: [UInt8], ControlRequest) -> Void
    ) throws -> (endpoint: String, served: DispatchSemaphore) {
        let endpoint = Mutex<String?>(nil)
        let bound = DispatchSemaphore(value: 0)
        let served = DispatchSemaphore(value: 0)
        let coordinator = Thread {
            defer { served.signal() }
            guard let router = try? ZMQSocket(context, type: .router), let address = try? router.bind("tcp://127.0.0.1:*") else {
                bound.signal()
                return
            }
            endpoint.withLock { $0 = address }
            bound.signal()
            for number in 0..<requests {
                guard (try? ZMQPoll.poll([router.pollItem()], timeoutMilliseconds: 10_000)) == [true],
                    var frames = try? router.receive(), !frames.isEmpty
                else { return }
                let identity = frames.removeFirst()
                guard let request = try? ControlRequest(frames: frames) else { return }
                answer(number, router, identity, request)
            }
        }
        coordinator.start()
        bound.wait()
        return (try #require(endpoint.withLock { $0 }), served)
    }

    /// A client that asked for progress waits as long as PROGRESS replies keep coming, each within
    /// its timeout of the one before, though all of them together take far longer; and gives up,
    /// naming the last report, once they stop (issue 25, and stop 42: the end-to-end test of a
    /// long delete timed this with a coordinator's steps on a loaded machine).
    @Test func theTimeoutOfARequestWithProgressIsOneOfSilence() throws {
        let context = ZMQContext()
        // A coordinator that reports 8 times 250 ms apart (2 s in all) and then answers, then
        // reports once and falls silent.
        let (address, served) = try Self.fakeCoordinator(context, requests: 2) { number, router, identity, request in
            let answers = number == 0
            for done in answers ? 1...8 : 1...1 {
                Thread.sleep(forTimeInterval: 0.25)
                let report = ControlReply.progress(id: request.id, ControlProgress(done: done, total: 9, unit: "workouts"))
                try? router.send([identity] + report.frames)
            }
            if answers {
                let body = (try? ControlCodec.encode(DeleteReply(deleted: [], missing: [], pictures: 0, series: 9))) ?? []
                try? router.send([identity] + ControlReply(id: request.id, ok: true, body: body).frames)
            }
        }
        var client = try ControlClient(context: context, endpoint: address, timeoutMilliseconds: 1_000)

        var reports: [Int] = []
        let started = ContinuousClock.now
        let reply = try client.request(.delete, DeleteRequest(ids: nil, owner: "leaving", progress: true), as: DeleteReply.self) {
            reports.append($0.done)
        }
        let took = ContinuousClock.now - started
        #expect(reply.series == 9)
        #expect(reports == Array(1...8))
        #expect(took > .milliseconds(1_500), "8 reports 250 ms apart came in \(took): the test proves nothing")

        reports = []
        do {
            let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: nil, owner: "leaving", progress: true)) {
                reports.append($0.done)
            }
            Issue.record("a silent coordinator was waited for for ever")
        } catch {
            #expect(error.description.contains("within 1 s of its last progress report"), "\(error)")
        }
        #expect(reports == [1])
        served.wait()
    }

    /// A client of several coordinators (issue 34): a request the first does not answer goes to
    /// the next, which is told to `failover`; the client stays with the one that answered; an
    /// answer that is an error is the answer, never sent elsewhere.
    @Test func aRequestNotAnsweredGoesToTheNextCoordinatorAndStaysThere() throws {
        let context = ZMQContext()
        // A coordinator that refuses the first request and answers the second.
        let (live, served) = try Self.fakeCoordinator(context, requests: 2) { number, router, identity, request in
            let ok = number == 1
            let body =
                ok
                ? (try? ControlCodec.encode(["pong": true])) ?? []
                : (try? ControlCodec.encode(ControlErrorBody(code: .notFound, message: "no such workout"))) ?? []
            try? router.send([identity] + ControlReply(id: request.id, ok: ok, body: body).frames)
        }
        // Nothing listens there.
        let dead = "tcp://127.0.0.1:1"
        let moves = Mutex<[String]>([])
        var client = try ControlClient(
            context: context, endpoints: [dead, live], timeoutMilliseconds: 500,
            failover: { from, to, _ in moves.withLock { $0.append("\(from)>\(to)") } })
        struct Pong: Decodable { var pong: Bool }
        do {
            let _: Pong = try client.request(.ping, [String: String]())
            Issue.record("an error answer was taken as a reply")
        } catch {
            #expect(error.fromCoordinator && error.code == .notFound && !error.unanswered, "\(error)")
        }
        #expect(moves.withLock { $0 } == ["\(dead)>\(live)"])
        #expect(client.endpoint == live && client.endpointIndex == 1)
        let started = ContinuousClock.now
        let pong: Pong = try client.request(.ping, [String: String]())
        #expect(pong.pong)
        #expect(ContinuousClock.now - started < .milliseconds(400), "the second request waited for the dead coordinator again")
        #expect(moves.withLock { $0 }.count == 1)
        served.wait()

        // None answers: each is named, and the error says it went unanswered.
        var nobody = try ControlClient(context: context, endpoints: [dead, "tcp://127.0.0.1:2"], timeoutMilliseconds: 300)
        do {
            let _: Pong = try nobody.request(.ping, [String: String]())
            Issue.record("no coordinator answered, yet a reply came")
        } catch {
            #expect(error.unanswered && !error.fromCoordinator)
            #expect(error.description.contains("no reply from any of the coordinators at \(dead), tcp://127.0.0.1:2"), "\(error)")
        }
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

    /// A stop wakes a loop that still runs through its socket, and does not wait when the loop
    /// has seen its stop flag and ended first (the coordinator's stop once waited for ever there,
    /// a PAIR send to an endpoint nobody binds any more: stop 33).
    @Test func wakingALoopSendsToItAndNeverWaitsForOneThatEnded() throws {
        let context = ZMQContext()
        let endpoint = "inproc://wake-\(UUID().uuidString)"
        do {
            let loop = try ZMQSocket(context, type: .pair)
            try loop.bind(endpoint)
            var heard: [[UInt8]]?
            let error = context.wake(endpoint) {
                heard = (try? ZMQPoll.poll([loop.pollItem()], timeoutMilliseconds: 5_000)) == [true] ? try? loop.receive() : nil
            }
            #expect(error == nil)
            #expect(heard == [Array("STOP".utf8)])
        }
        // The loop's socket is closed: nobody takes the message.
        let returned = DispatchSemaphore(value: 0)
        Thread {
            context.wake(endpoint) {}
            returned.signal()
        }.start()
        #expect(returned.wait(timeout: .now() + 10) == .success, "waking an ended loop waited")
    }
}

/// IMPORT carries what the route series does not: how its altitudes were measured (issue 36).
@Suite struct ImportRequestTests {
    @Test(arguments: [AltitudeSource.barometric, .gps])
    func theAltitudeSourceTravels(source: AltitudeSource) throws {
        let route = Route(segments: [[RoutePoint(latitude: 52, longitude: 4, elevation: 1.5)]], altitudeSource: source)
        let request = ImportRequest(ImportedWorkout(source: .gpx, route: route, origin: "walk.gpx"))
        let text = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        #expect(text.contains("\"altitudeSource\":\"\(source.rawValue)\""))
        #expect(try JSONDecoder().decode(ImportRequest.self, from: Data(text.utf8)).altitudeSource == source)
        // A request from before has none: the coordinator counts its climb as GPS altitude.
        #expect(
            try JSONDecoder().decode(ImportRequest.self, from: Data(#"{"source":"gpx","activity":"other","origin":"a"}"#.utf8)).altitudeSource == nil)
    }
}
