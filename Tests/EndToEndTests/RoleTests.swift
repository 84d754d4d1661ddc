import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Keys have roles (issue 13, finding 4): a worker key speaks only the worker protocol, an
/// operator or gateway key only the control protocol and the event stream. Every pairing of role
/// and socket, with real CURVE sockets on loopback.
@Suite(.serialized) struct RoleTests {
    final class Keys {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-keys-\(UUID().uuidString)")
        var pairs: [String: CurveKeyPair] = [:]
        static let names = ["coordinator", "worker", "operator", "gateway", "stranger"]

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for name in Self.names {
                let pair = try CurveKeyPair.generate()
                pairs[name] = pair
                try pair.fileContents.write(to: directory.appendingPathComponent(name + ".key"), atomically: true, encoding: .utf8)
            }
        }

        subscript(name: String) -> CurveKeyPair { pairs[name]! }
        func file(_ name: String) -> String { directory.appendingPathComponent(name + ".key").path }
        func client(_ name: String) -> CurveClientKeys { CurveClientKeys(serverKey: self["coordinator"].publicKey, keyPair: self[name]) }
        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static func system(_ keys: Keys, workers: Int = 1) throws -> RunningSystem {
        try RunningSystem(
            workers: workers,
            adjust: {
                $0.keyFile = keys.file("coordinator")
                $0.workerKeys = [keys["worker"].publicKey]
                $0.operatorKeys = [keys["operator"].publicKey]
                $0.gatewayKeys = [keys["gateway"].publicKey]
            },
            workerKeys: (keys.file("worker"), keys["coordinator"].publicKey))
    }

    /// A control client with `name`'s key.
    static func client(_ system: RunningSystem, _ keys: Keys, _ name: String, timeoutMilliseconds: Int = 10_000) throws -> ControlClient {
        try ControlClient(
            context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: timeoutMilliseconds, curve: keys.client(name))
    }

    /// Whether a control client with this key gets an answer to PING.
    static func controlAnswers(_ system: RunningSystem, _ curve: CurveClientKeys?) throws -> Bool {
        var client = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 1_000, curve: curve)
        do {
            let pong: [String: Bool] = try client.request(.ping, [String: String]())
            return pong["pong"] == true
        } catch {
            return false
        }
    }

    /// Whether a worker with this key is given a job.
    static func workerGetsAJob(_ system: RunningSystem, _ curve: CurveClientKeys?, name: String) throws -> Bool {
        let worker = try FakeWorker(system, capacity: 1, name: name, curve: curve)
        guard case .job(let job)? = try worker.next(within: 1.5) else { return false }
        // Hand it back at once, so the next pairing has a job to get.
        try worker.socket.send(WorkerMessage.disconnect(reason: "test done").frames)
        _ = job
        return true
    }

    /// Whether a subscriber with this key hears the event stream (a worker event, when a worker connects).
    static func eventsHeard(_ system: RunningSystem, _ keys: Keys, _ curve: CurveClientKeys?) throws -> Bool {
        let subscriber = try ZMQSocket(system.context, type: .sub)
        if let curve { try subscriber.makeCurveClient(curve) }
        try subscriber.subscribe("worker")
        try subscriber.connect(system.endpoints.events)
        // A worker coming and going publishes events; keep one coming until heard or given up.
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            let worker = try FakeWorker(system, capacity: 1, name: "announcer", curve: keys.client("worker"))
            if try ZMQPoll.poll([subscriber.pollItem()], timeoutMilliseconds: 250)[0] { return true }
            try worker.socket.send(WorkerMessage.disconnect(reason: "bye").frames)
        }
        return false
    }

    @Test func everyRoleSpeaksOnlyItsOwnProtocol() throws {
        let keys = try Keys()
        let system = try Self.system(keys, workers: 0)
        defer { system.stop() }
        // Something to lease, so that a worker that gets in is given a job.
        var operatorClient = try Self.client(system, keys, "operator")
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &operatorClient)
        let _: EnqueueReply = try operatorClient.request(.enqueue, EnqueueRequest(ids: [id], kinds: [.route], themes: [.light, .dark]))

        let expectations: [(key: String?, control: Bool, worker: Bool, events: Bool)] = [
            ("worker", false, true, false),
            ("operator", true, false, true),
            ("gateway", true, false, true),
            ("stranger", false, false, false),
            (nil, false, false, false),
        ]
        for expected in expectations {
            let curve = expected.key.map(keys.client)
            let label = expected.key ?? "no key"
            #expect(try Self.controlAnswers(system, curve) == expected.control, "\(label) on the control socket")
            #expect(try Self.workerGetsAJob(system, curve, name: "as-\(label)") == expected.worker, "\(label) on the worker socket")
            #expect(try Self.eventsHeard(system, keys, curve) == expected.events, "\(label) on the event socket")
        }
    }

    /// The finding: the worker key, which every worker host holds, deleted a workout through the
    /// control socket. Now it cannot even connect there, and nothing is deleted.
    @Test func theWorkerKeyCannotDeleteAWorkout() throws {
        let keys = try Keys()
        let system = try Self.system(keys, workers: 0)
        defer { system.stop() }
        var operatorClient = try Self.client(system, keys, "operator")
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &operatorClient)
        var workerAsOperator = try Self.client(system, keys, "worker", timeoutMilliseconds: 1_500)
        #expect(throws: ControlClientError.self) { let _: DeleteReply = try workerAsOperator.request(.delete, DeleteRequest(ids: [id])) }
        let show: ShowReply = try operatorClient.request(.show, ShowRequest(id: id))
        #expect(show.item.workout.id == id)
    }

    /// Real workers with the worker key render; nothing else is needed from them.
    @Test func realWorkersWithTheWorkerKeyRender() throws {
        let keys = try Keys()
        let system = try Self.system(keys, workers: 1)
        defer { system.stop() }
        var gateway = try Self.client(system, keys, "gateway")
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &gateway, owner: "alice")
        var enqueue = EnqueueRequest(ids: [id], kinds: [.route], themes: [.light])
        enqueue.owner = "alice"
        let _: EnqueueReply = try gateway.request(.enqueue, enqueue)
        var status: PictureRecord?
        for _ in 0..<200 {
            let show: ShowReply = try gateway.request(.show, ShowRequest(id: id, owner: "alice"))
            status = show.item.pictures.first
            if status?.status == .generated { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(status?.status == .generated)
    }

    /// A gateway key does what the app's endpoints need, for a named owner, and nothing more.
    @Test func aGatewayKeyActsForOneNamedOwnerOnly() throws {
        let keys = try Keys()
        let system = try Self.system(keys, workers: 0)
        defer { system.stop() }
        var gateway = try Self.client(system, keys, "gateway")
        var operatorClient = try Self.client(system, keys, "operator")
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &gateway, owner: "alice")
        let page: FeedReply = try gateway.request(.feed, FeedRequest(limit: 10, owner: "alice"))
        #expect(page.items.map(\.workout.id) == [id])
        let other: FeedReply = try gateway.request(.feed, FeedRequest(limit: 10, owner: "bob"))
        #expect(other.items.isEmpty)
        // An owner's settings, for that owner (GET/PUT /v1/settings).
        let settings: SettingsReply = try gateway.request(.settings, SettingsRequest(owner: "alice", set: OwnerSettings(units: .imperial)))
        #expect(settings.settings.units == .imperial)
        // Without an owner: everyone's feed, refused; so are the operators' commands.
        let refused: [(ControlCommand, [UInt8])] = [
            (.feed, try ControlCodec.encode(FeedRequest(limit: 10))),
            (.show, try ControlCodec.encode(ShowRequest(id: id))),
            (.delete, try ControlCodec.encode(DeleteRequest(ids: [id]))),
            (.status, try ControlCodec.encode(StatusRequest(owner: "alice"))),
            (.failed, try ControlCodec.encode(FailedRequest(limit: 10, group: true))),
            (.resolve, try ControlCodec.encode(ResolveRequest(prefixes: [String(id.description.prefix(8))]))),
            (.settings, Array(#"{"owner": ""}"#.utf8)),
        ]
        for (command, body) in refused {
            let error = #expect(throws: ControlClientError.self, "\(command.rawValue) accepted from a gateway key") {
                _ = try gateway.requestRaw(command, body: body)
            }
            #expect(error?.description.contains("refused") == true, "\(command.rawValue): \(String(describing: error))")
        }
        // PICTURE names only a cache key (a picture URL carries no owner) and says only whether
        // it was withdrawn: a gateway key may ask it; a key that is not one is refused.
        let picture: PictureReply = try gateway.request(.picture, PictureRequest(key: String(repeating: "ab", count: 32)))
        #expect(!picture.withdrawn)
        #expect(throws: ControlClientError.self) { _ = try gateway.requestRaw(.picture, body: Array(#"{"key": "../x"}"#.utf8)) }
        // The operator still sees everything.
        let all: FeedReply = try operatorClient.request(.feed, FeedRequest(limit: 10))
        #expect(all.items.map(\.workout.id) == [id])
    }

    @Test func oneListForEverySocketIsRefusedAndAKeyHasOneRole() async throws {
        let key = String(repeating: "A", count: 40)
        do {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: ["WORKFEED_SECURITY_ALLOWED_KEYS": key])
            Issue.record("security.allowed_keys accepted")
        } catch {
            #expect(error.key == "security.allowed_keys")
            #expect(error.description.contains("security.worker_keys"))
        }
        do {
            _ = try await CoordinatorConfiguration.load(
                file: nil, environment: ["WORKFEED_SECURITY_WORKER_KEYS": key, "WORKFEED_SECURITY_OPERATOR_KEYS": key])
            Issue.record("a key in two roles accepted")
        } catch {
            #expect(error.description.contains("a key has one role"), "\(error)")
        }
    }

    @Test func theZAPHandlerDecidesBySocketAndRole() {
        let key = [UInt8](repeating: 7, count: 32)
        let z85 = ZAP.decide(Self.zapRequest(domain: "workfeed-control", key: key), roles: [:]).client
        for domain in ZAP.Domain.allCases {
            for role in ClientRole.allCases {
                let decision = ZAP.decide(Self.zapRequest(domain: domain.rawValue, key: key), roles: [z85: role])
                #expect(decision.allowed == domain.roles.contains(role), "\(role) on \(domain)")
                #expect(decision.reply[2] == Array((decision.allowed ? "200" : "400").utf8))
                if decision.allowed { #expect(decision.reply[4] == Array(role.rawValue.utf8)) }
            }
        }
        #expect(!ZAP.decide(Self.zapRequest(domain: "workfeed", key: key), roles: [z85: .operator]).allowed)
        #expect(!ZAP.decide(Array(Self.zapRequest(domain: "workfeed-control", key: key).prefix(6)), roles: [z85: .operator]).allowed)
    }

    static func zapRequest(domain: String, key: [UInt8]) -> [[UInt8]] {
        [Array("1.0".utf8), [1], Array(domain.utf8), Array("127.0.0.1".utf8), [], Array("CURVE".utf8), key]
    }
}
