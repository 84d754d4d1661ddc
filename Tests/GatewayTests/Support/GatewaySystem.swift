import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
@testable import WorkFeedGateway
import WorkFeedModel
import WorkFeedStore
import WorkFeedTokens
import WorkFeedWire
import WorkFeedWorker

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A coordinator, a worker and a gateway on loopback, with real sockets, a real index and cache in
/// a temporary directory. The gateway serves real HTTP on a port of its own, or (``Reach/router``)
/// its router answers in process: the same routes, middleware and handlers, with no HTTP socket.
final class GatewaySystem: @unchecked Sendable {
    /// How a test reaches the gateway.
    enum Reach {
        /// Its HTTP server on a loopback port, through URLSession: what a client sees, deadlines,
        /// limits and connection handling included.
        case socket
        /// Its router in process (HummingbirdTesting's `.router`): a route's behaviour, no socket.
        case router
    }

    let reach: Reach
    // @unchecked: the stored properties are set in init and only read afterwards; the running
    // server task is the one mutable thing and is only touched by start and stop.
    let directory: URL
    let context = ZMQContext()
    private(set) var coordinator: Coordinator
    let endpoints: Coordinator.Endpoints
    let workers: [Worker]
    let gateway: Gateway
    let secret = Array("a test secret of at least thirty-two bytes".utf8)
    private(set) var port = 0
    private var server: Task<Void, any Error>?
    let coordinatorConfiguration: CoordinatorConfiguration

    /// Key files when the system runs with CURVE: the coordinator's, the worker's, the gateway's.
    private(set) var keys: (coordinator: CurveKeyPair, files: [String: String])?

    /// - Parameter curve: every socket encrypted, the coordinator letting in only the worker's and
    ///   the gateway's public keys.
    /// - Parameter store: every part's picture store (`cache.directory` and `store.s3.*`) instead
    ///   of a directory beside the index.
    /// - Parameter reach: through a socket, or the router in process (``Reach``).
    init(
        reach: Reach = .socket, workers count: Int = 1, curve: Bool = false, store: (location: String, s3: S3StoreSettings)? = nil,
        adjust: (inout GatewayConfiguration) -> Void = { _ in },
        adjustCoordinator: (inout CoordinatorConfiguration) -> Void = { _ in }, adjustWorker: (inout WorkerConfiguration) -> Void = { _ in },
        logger given: Logger? = nil
    ) async throws {
        self.reach = reach
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var pairs: [String: CurveKeyPair] = [:]
        var files: [String: String] = [:]
        if curve {
            for name in ["coordinator", "worker", "gateway"] {
                let pair = try CurveKeyPair.generate()
                let file = directory.appendingPathComponent(name + ".key").path
                try pair.fileContents.write(toFile: file, atomically: true, encoding: .utf8)
                pairs[name] = pair
                files[name] = file
            }
            keys = (pairs["coordinator"]!, files)
        }
        var configuration = CoordinatorConfiguration()
        configuration.indexPath = directory.appendingPathComponent("index.sqlite").path
        if let store {
            configuration.cacheDirectory = store.location
            configuration.s3Store = store.s3
        } else {
            configuration.cacheDirectory = directory.appendingPathComponent("cache").path
            // The cache is a mount a worker checks before it starts; it is never made for it.
            try FileManager.default.createDirectory(atPath: configuration.cacheDirectory, withIntermediateDirectories: true)
        }
        Self.onLoopback(&configuration)
        if curve {
            configuration.keyFile = files["coordinator"]!
            configuration.workerKeys = [pairs["worker"]!.publicKey]
            configuration.gatewayKeys = [pairs["gateway"]!.publicKey]
        }
        adjustCoordinator(&configuration)
        coordinatorConfiguration = configuration
        var logger = given ?? Logger(label: "gateway-test")
        if given == nil { logger.logLevel = .warning }
        let coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
        self.coordinator = coordinator
        endpoints = try coordinator.start()
        let endpoints = self.endpoints
        let context = self.context
        workers = try (0..<count).map { number in
            var worker = WorkerConfiguration()
            worker.coordinatorEndpoints = [endpoints.workers]
            worker.cacheDirectory = configuration.cacheDirectory
            worker.s3Store = configuration.s3Store
            worker.renderThreads = 1
            worker.heartbeatIntervalMilliseconds = 200
            worker.name = "worker-\(number)"
            if curve {
                worker.keyFile = files["worker"]!
                worker.serverKey = pairs["coordinator"]!.publicKey
            }
            adjustWorker(&worker)
            let started = Worker(configuration: worker, context: context, logger: logger)
            try started.start()
            return started
        }
        var gatewayConfiguration = GatewayConfiguration()
        gatewayConfiguration.listen = "127.0.0.1:0"
        gatewayConfiguration.controlEndpoints = [endpoints.control]
        gatewayConfiguration.eventsEndpoints = [endpoints.events]
        gatewayConfiguration.cacheDirectory = configuration.cacheDirectory
        gatewayConfiguration.s3Store = configuration.s3Store
        gatewayConfiguration.tokenSecret = String(decoding: secret, as: UTF8.self)
        gatewayConfiguration.coordinatorTimeoutMilliseconds = 2_000
        if curve {
            gatewayConfiguration.keyFile = files["gateway"]!
            gatewayConfiguration.serverKey = pairs["coordinator"]!.publicKey
        }
        adjust(&gatewayConfiguration)
        do {
            gateway = try Gateway(configuration: gatewayConfiguration, context: context, logger: logger)
        } catch {
            let (workers, coordinator) = (self.workers, self.coordinator)
            await offPool {
                for worker in workers { worker.stop() }
                coordinator.stop()
            }
            throw error
        }
        switch reach {
        case .socket: try await startServer()
        case .router: router = gateway.router()
        }
    }

    /// A test coordinator's sockets and pace: every endpoint on a free loopback port, no metrics,
    /// 200 ms heartbeats, scales 1 and 2.
    static func onLoopback(_ configuration: inout CoordinatorConfiguration) {
        configuration.workerEndpoint = "tcp://127.0.0.1:*"
        configuration.controlEndpoint = "tcp://127.0.0.1:*"
        configuration.eventsEndpoint = "tcp://127.0.0.1:*"
        configuration.metricsListen = ""
        configuration.heartbeatIntervalMilliseconds = 200
        configuration.scales = [1, 2]
    }

    /// The gateway's router, when tests reach it in process.
    private var router: Router<GatewayContext>?

    private func startServer() async throws {
        let gateway = self.gateway
        server = Task { try await gateway.run(signals: false) }
        for _ in 0..<500 {
            if let port = gateway.port {
                self.port = port
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw URLError(.cannotConnectToHost)
    }

    /// Stops the gateway (server, event subscription, clients), then the workers and the coordinator.
    func stop() async {
        await gateway.stop()
        _ = await server?.result
        if reach == .router { await gateway.shutdown() }
        let (workers, coordinator, directory) = (self.workers, self.coordinator, self.directory)
        await offPool {
            for worker in workers { worker.stop() }
            coordinator.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Stops the coordinator (the gateway keeps running), off the cooperative pool: the gateway's
    /// handlers run there, and the test suites running beside this one keep it busy enough.
    func stopCoordinator() async {
        let coordinator = self.coordinator
        await offPool { coordinator.stop() }
    }

    /// Starts a coordinator again on the same index, cache and endpoints.
    func restartCoordinator() async throws {
        try await offPool { try self.startCoordinatorAgain() }
    }

    private func startCoordinatorAgain() throws {
        var configuration = coordinatorConfiguration
        configuration.workerEndpoint = endpoints.workers
        configuration.controlEndpoint = endpoints.control
        configuration.eventsEndpoint = endpoints.events
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .warning
        coordinator = Coordinator(configuration: configuration, context: context, logger: logger)
        _ = try coordinator.start()
    }

    /// A token for `owner`, valid for an hour unless said otherwise.
    func token(_ owner: String, expires: TimeInterval = 3600, secret: [UInt8]? = nil) -> String {
        OwnerToken(owner: owner, expires: Date().addingTimeInterval(expires)).signed(secret: secret ?? self.secret)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    // MARK: HTTP

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        /// An upload's first workout (`workouts[0].workout`, a feed item).
        var uploaded: [String: Any] { ((json["workouts"] as? [[String: Any]])?.first?["workout"] as? [String: Any]) ?? [:] }
        /// What became of an upload's first workout (`workouts[0].result`).
        var uploadResult: String? { (json["workouts"] as? [[String: Any]])?.first?["result"] as? String }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    func call(_ method: String, _ path: String, token: String? = nil, headers: [String: String] = [:], body: Data? = nil) async throws -> Reply {
        if let router { return try await callRouter(router, method, path, token: token, headers: headers, body: body) }
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    /// One request through the router in process, as HummingbirdTesting's router client sends it.
    private func callRouter(
        _ router: Router<GatewayContext>, _ method: String, _ path: String, token: String?, headers: [String: String], body: Data?
    ) async throws -> Reply {
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        for (name, value) in headers { fields[try #require(HTTPField.Name(name))] = value }
        let method = try #require(HTTPRequest.Method(method))
        let request = fields
        let application = Application(router: router, logger: Logger(label: "gateway-router-test"))
        return try await application.test(.router) { client in
            let response = try await client.execute(uri: path, method: method, headers: request, body: body.map { ByteBuffer(bytes: $0) })
            var headers: [String: String] = [:]
            for field in response.headers { headers[field.name.canonicalName] = field.value }
            return Reply(status: Int(response.status.code), headers: headers, body: Data(response.body.readableBytesView))
        }
    }

    func get(_ path: String, as owner: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        try await call("GET", path, token: owner.map { token($0) }, headers: headers)
    }

    /// Uploads a file as `owner`.
    func upload(_ file: String, as owner: String, name: String? = nil) async throws -> Reply {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let query = "?filename=" + (name ?? URL(fileURLWithPath: file).lastPathComponent)
        return try await call("POST", "/v1/workouts" + query, token: token(owner), headers: ["Content-Type": "application/octet-stream"], body: data)
    }
}

extension GatewaySystem {
    /// The keys of `count` (at most 6) pictures drawn for a workout `owner` uploads: keys the index
    /// calls current, whose files a test can then replace (the gateway reads the store only for
    /// such keys). Needs a worker.
    func drawnKeys(_ count: Int, as owner: String = "alice") async throws -> [String] {
        let upload = try await upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: owner)
        let id = try #require(upload.uploaded["id"] as? String, "\(upload.status)")
        var keys: [String] = []
        for (kind, theme, scale) in [
            ("route", "light", 1), ("route", "dark", 1), ("route", "light", 2), ("route", "dark", 2), ("heatmap", "light", 1), ("heatmap", "dark", 1),
        ].prefix(count) {
            let reply = try await get("/v1/workouts/\(id)/pictures/\(kind)/\(theme)?scale=\(scale)&wait=10", as: owner)
            let url = try #require((reply.json["picture"] as? [String: Any])?["url"] as? String, "\(reply.status) \(kind) \(theme) @\(scale)x")
            keys.append(String(url.dropFirst("/v1/pictures/".count).dropLast(".png".count)))
        }
        return keys
    }
}

/// Runs `body` against a fresh system and stops it whatever happens.
func withSystem(
    workers: Int = 0, _ adjust: (inout GatewayConfiguration) -> Void = { _ in }, _ body: (GatewaySystem) async throws -> Void
) async throws {
    let system = try await GatewaySystem(workers: workers, adjust: adjust)
    do {
        try await body(system)
    } catch {
        await system.stop()
        throw error
    }
    await system.stop()
}

/// A fixture of the end-to-end tests (Tests/EndToEndTests/Fixtures, origins in SOURCES.md there).
func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EndToEndTests/Fixtures/\(name)").path
}

/// Runs blocking work (stopping threads, waiting for them) on a thread of its own, never on the
/// cooperative pool.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

func offPool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            body()
            continuation.resume()
        }
    }
}
