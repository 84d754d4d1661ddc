import Foundation
public import Hummingbird
public import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
public import WorkFeedConfig
import WorkFeedModel
import WorkFeedStore
public import WorkFeedWire
import WorkFeedThreads
import WorkFeedTokens

/// `workfeed-gateway`: the HTTP edge the phone app and browsers reach (docs/gateway.md).
///
/// ```swift
/// let gateway = try Gateway(configuration: configuration, context: ZMQContext(), logger: logger)
/// try await gateway.run()     // until SIGTERM or SIGINT; or use gateway.application in a test
/// ```
public final class Gateway: Sendable {
    public let configuration: GatewayConfiguration
    let clients: CoordinatorClients
    let events: PictureEvents
    let api: GatewayAPI
    let logger: Logger
    /// The port the server bound, once it runs (a configured port 0 resolved).
    private let boundPort = BoundPort()

    /// Opens the coordinator clients and the event subscription; serves nothing yet.
    /// - Throws: an error naming what cannot be set up (a key file, a secret, an endpoint).
    public init(configuration: GatewayConfiguration, context: ZMQContext, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let curve: CurveClientKeys? =
            configuration.keyFile.isEmpty
            ? nil : CurveClientKeys(serverKey: configuration.serverKey, keyPair: try CurveKeyPair.load(file: configuration.keyFile))
        let verifier: TokenVerifier
        do {
            verifier = try TokenVerifier(
                secret: try configuration.secret(),
                publicKeyPEM: configuration.tokenPublicKeyFile.isEmpty
                    ? nil : try String(contentsOfFile: configuration.tokenPublicKeyFile, encoding: .utf8))
        } catch let error as TokenKeyError {
            throw GatewayError(.badTokenKey, "tokens.public_key_file: \(error.message)")
        }
        // A bucket that is missing, credentials refused, an endpoint that does not answer: stop
        // here (exit 73), naming the bucket, the endpoint and what the service said.
        let store: any PictureStore
        do {
            store = try configuration.openStore()
            try store.checkReachable()
        } catch {
            throw GatewayError(
                .store, "gateway cannot start: the picture store '\(configuration.cacheDirectory)' cannot be read: \(error)", cause: error)
        }
        clients = try CoordinatorClients(
            count: configuration.coordinatorClients, context: context, endpoints: configuration.controlEndpoints,
            timeoutMilliseconds: configuration.coordinatorTimeoutMilliseconds, curve: curve, logger: logger)
        let memory = PictureMemoryCache(capacity: configuration.memoryCacheMegabytes << 20)
        let verdicts = PictureVerdicts()
        do {
            // Released keys are known gone before they leave the memory cache, so that bytes read
            // just before are not put back in it (PictureVerdicts).
            events = try PictureEvents(
                context: context, endpoints: configuration.eventsEndpoints, curve: curve, logger: logger,
                released: { keys in
                    verdicts.release(keys)
                    memory.remove(keys)
                })
        } catch {
            clients.stop()
            throw error
        }
        let metrics = GatewayMetrics()
        api = GatewayAPI(
            configuration: configuration, clients: clients, events: events,
            pictures: PictureReader(
                store: store, work: BlockingWork(label: "picture reads", threads: PictureReader.threads, limit: PictureReader.maximumReads)),
            memory: memory, verdicts: verdicts, reads: ClientReads(perClient: configuration.pictureReadsPerClient), metrics: metrics,
            uploads: UploadLimiter(perMinute: configuration.uploadsPerOwnerPerMinute),
            parsing: BlockingWork(label: "uploads being read", threads: GatewayAPI.parsingThreads, limit: GatewayAPI.maximumParsing),
            logger: logger)
        self.verifier = verifier
    }

    private let verifier: TokenVerifier
    private let closed = Atomic<Bool>(false)

    /// The router: every endpoint of ``endpoints``, behind metrics and problem details; owner
    /// endpoints behind tokens.
    func router() -> Router<GatewayContext> {
        let router = Router(context: GatewayContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: MetricsMiddleware(metrics: api.metrics))
        router.add(middleware: ProblemMiddleware(routes: Self.methods))
        let owner = router.group().add(middleware: TokenMiddleware(verifier: verifier))
        for endpoint in Self.endpoints {
            let handler = endpoint.handler(api)
            switch endpoint.access {
            case .everyone: router.on(RouterPath(endpoint.path), method: endpoint.method, use: handler)
            case .owner: owner.on(RouterPath(endpoint.path), method: endpoint.method, use: handler)
            }
        }
        return router
    }

    /// One endpoint: its method and path, who may call it, and what answers it.
    struct Endpoint: Sendable {
        enum Access: Sendable {
            case everyone
            /// A bearer token naming the owner (``TokenMiddleware``).
            case owner
        }

        typealias Handler = @Sendable (Request, GatewayContext) async throws -> Response

        var method: HTTPRequest.Method
        var path: String
        var access: Access
        var handler: @Sendable (GatewayAPI) -> Handler

        init(_ method: HTTPRequest.Method, _ path: String, _ access: Access, _ handler: @escaping @Sendable (GatewayAPI) -> Handler) {
            self.method = method
            self.path = path
            self.access = access
            self.handler = handler
        }
    }

    /// Every endpoint the gateway answers (docs/gateway.md, docs/openapi.yaml): the router and
    /// the methods each path allows (``methods``) are both made from it.
    static let endpoints: [Endpoint] = [
        Endpoint(.get, "/healthz", .everyone) { $0.alive },
        Endpoint(.get, "/readyz", .everyone) { $0.ready },
        Endpoint(.get, "/metrics", .everyone) { $0.prometheus },
        Endpoint(.get, "/v1/pictures/{file}", .everyone) { $0.picture },
        Endpoint(.get, "/", .everyone) { FeedPageRoute.page(pictureOrigin: $0.pictureOrigin) },
        Endpoint(.get, "/v1/feed", .owner) { $0.feed },
        Endpoint(.get, "/v1/changes", .owner) { $0.changes },
        Endpoint(.post, "/v1/workouts", .owner) { $0.upload },
        Endpoint(.get, "/v1/workouts/{id}", .owner) { $0.workout },
        Endpoint(.delete, "/v1/workouts/{id}", .owner) { $0.deleteWorkout },
        Endpoint(.get, "/v1/workouts/{id}/track", .owner) { $0.track },
        Endpoint(.get, "/v1/workouts/{id}/pictures/{kind}/{theme}", .owner) { $0.requestPicture },
        Endpoint(.get, "/v1/zones", .owner) { $0.zones },
        Endpoint(.post, "/v1/zones", .owner) { $0.addZone },
        Endpoint(.delete, "/v1/zones/{id}", .owner) { $0.deleteZone },
        Endpoint(.get, "/v1/settings", .owner) { $0.settings },
        Endpoint(.put, "/v1/settings", .owner) { $0.putSettings },
        Endpoint(.patch, "/v1/settings", .owner) { $0.patchSettings },
        Endpoint(.get, "/v1/summaries", .owner) { $0.summaries },
    ]

    /// The methods each path answers (HEAD wherever GET: the router makes them); any other
    /// method on these paths is 405 with `Allow` (before any token check), not 404
    /// (``ProblemMiddleware``).
    static let methods: [(path: String, allowed: [HTTPRequest.Method])] = {
        var paths: [String] = []
        var allowed: [String: [HTTPRequest.Method]] = [:]
        for endpoint in endpoints {
            if allowed[endpoint.path] == nil { paths.append(endpoint.path) }
            allowed[endpoint.path, default: []] += endpoint.method == .get ? [.get, .head] : [endpoint.method]
        }
        return paths.map { ($0, allowed[$0] ?? []) }
    }()

    /// The HTTP application (a Service). `onRunning` is called with the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        guard let address = HostAndPort(configuration.listen) else {
            throw GatewayError(.badListenAddress, "listen: not HOST:PORT: \(configuration.listen)")
        }
        let boundPort = self.boundPort
        let logger = self.logger
        let headTimeout = configuration.headTimeoutSeconds
        let bodyTimeout = configuration.bodyTimeoutSeconds
        return Application(
            router: router(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        RequestDeadlines(head: .milliseconds(Int64(headTimeout * 1000)), body: .milliseconds(Int64(bodyTimeout * 1000)))
                    ],
                    idleTimeout: .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)))),
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: "workfeed-gateway"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.set(port)
                logger.info("gateway listening", metadata: ["port": "\(port)"])
                await onRunning(port)
            },
            logger: logger)
    }

    /// The port bound, once the server runs.
    public var port: Int? { boundPort.get() }

    /// Serves until SIGTERM or SIGINT (with `signals`) or ``stop()``, then stops the server
    /// (finishing requests in hand), the event subscription and the coordinator clients, in that
    /// order.
    public func run(signals: Bool = true) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: try application())], gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [], logger: logger))
        serviceGroup.withLock { $0 = group }
        do {
            try await group.run()
        } catch {
            await shutdown()
            throw GatewayError.listening(configuration.listen, failedWith: error) ?? error
        }
        await shutdown()
    }

    /// Asks a running ``run(signals:)`` to stop, as SIGTERM would.
    public func stop() async {
        await serviceGroup.withLock { $0 }?.triggerGracefulShutdown()
    }

    private let serviceGroup = Mutex<ServiceGroup?>(nil)

    /// Closes the coordinator clients and the event subscription (their threads close their
    /// sockets), off the cooperative pool. Call it after the server stopped, before the ZeroMQ
    /// context goes.
    public func shutdown() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        let clients = self.clients
        let events = self.events
        await BlockingWork.shared.runToEnd {
            events.stop()
            clients.stop()
        }
        await api.parsing.shutdown()
        await api.pictures.work.shutdown()
    }
}

/// The gateway cannot start.
public struct GatewayError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// `listen` is not `HOST:PORT`.
        case badListenAddress
        /// The token key (`tokens.public_key_file`) is not one the gateway verifies with.
        case badTokenKey
        /// The HTTP server could not take its address (`listen`): taken, not this host's, or forbidden.
        case cannotListen
        /// The picture store cannot be read: a bucket missing, credentials refused, an endpoint
        /// that does not answer.
        case store
    }

    public var code: Code
    public var message: String
    /// The error underneath (the socket's), kept whole.
    public var cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    /// The daemon's exit status: 78 (EX_CONFIG) for a configuration it cannot use, 69
    /// (EX_UNAVAILABLE) when the address cannot be taken now, 73 (EX_CANTCREAT, as a worker's)
    /// when the picture store cannot be used.
    public var exitCode: Int32 {
        switch code {
        case .badListenAddress, .badTokenKey: 78
        case .cannotListen: 69
        case .store: 73
        }
    }
}

/// Set once by the server's start, read by whoever needs the port.
private final class BoundPort: Sendable {
    private let value = Mutex<Int?>(nil)
    func set(_ port: Int) { value.withLock { $0 = port } }
    func get() -> Int? { value.withLock { $0 } }
}
