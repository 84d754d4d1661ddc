public import Logging
import Foundation
import Synchronization
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
public import WorkFeedConfig
public import WorkFeedMetrics
public import WorkFeedWire
import WorkFeedThreads
import WorkFeedTiles

/// The coordinator: owns the index, dispatches jobs to workers and answers workctl.
///
/// Its work runs on threads of its own, never on Swift's cooperative pool (blocking calls must
/// stay off it): the loop thread owns the ZeroMQ sockets (they are not thread-safe) and parses
/// every message (``CoordinatorLoop``); the index thread runs the ``Dispatcher``, which writes the
/// index in batches; the ``ReadService``'s threads answer read requests from read-only
/// connections; the metrics server has its own. ``start()`` returns once the sockets are bound;
/// ``stop()`` ends the loop after the current turn, with everything it recorded committed.
///
/// ```swift
/// let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: logger)
/// let endpoints = try coordinator.start()
/// // ... until SIGTERM
/// coordinator.stop()
/// ```
public final class Coordinator: Sendable {
    public struct Endpoints: Sendable, Hashable {
        /// Where workers connect (a `*` port resolved).
        public var workers: String
        /// Where workctl connects.
        public var control: String
        /// Where status changes are published.
        public var events: String
        /// The Prometheus endpoint's URL, when metrics are on.
        public var metrics: String?
    }

    private let configuration: CoordinatorConfiguration
    private let context: ZMQContext
    let logger: Logger
    public let metrics: CoordinatorMetrics
    private let metricsServer = Mutex<MetricsServer?>(nil)
    private let wakeEndpoint = "inproc://workfeed-coordinator-wake-\(UUID().uuidString)"
    private let stopRequest = StopRequest()
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case running(done: DispatchSemaphore)
        case stopped
    }

    public init(configuration: CoordinatorConfiguration, context: ZMQContext, logger: Logger, metrics: CoordinatorMetrics = CoordinatorMetrics()) {
        self.metrics = metrics
        self.configuration = configuration
        self.context = context
        self.logger = logger
    }

    /// Opens the index, binds the sockets and starts the loop thread (which starts the index thread
    /// and the read threads).
    /// - Returns: the endpoints actually bound.
    /// - Throws: ``CoordinatorError`` when the index cannot be opened or a socket cannot be bound.
    public func start() throws(CoordinatorError) -> Endpoints {
        if let problem = configuration.listenAddressProblem() {
            throw CoordinatorError(.listenAddress, "cannot start: \(problem.key) = '\(problem.value.escapedForDisplay)': \(problem.reason)")
        }
        // A bucket that is missing, credentials refused, an endpoint that does not answer: stop
        // here (exit 73), naming the bucket, the endpoint and what the service said.
        do {
            try configuration.openStore().checkReachable()
        } catch {
            throw CoordinatorError(.store, "cannot start: the picture store '\(configuration.cacheDirectory)' cannot be used", cause: error)
        }
        let configured: ConfiguredIndex
        do { configured = try ConfiguredIndex(configuration) } catch {
            throw CoordinatorError(.index, "cannot start: \(error.message)", cause: error)
        }
        switch configured {
        case .sqlite(let index): return try start(index: index)
        case .postgres(let index): return try start(index: index)
        }
    }

    /// ``start()`` on the configured index: specialized for each backend (``ConfiguredIndex``).
    private func start<Backend: IndexBackend>(index: Backend) throws(CoordinatorError) -> Endpoints {
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Endpoints, CoordinatorError>?>(nil)
        let thread = Thread { [configuration, context, logger, wakeEndpoint, metrics, stopRequest] in
            do {
                var loop = try CoordinatorLoop(
                    index: index, configuration: configuration, context: context, wakeEndpoint: wakeEndpoint, stopRequest: stopRequest,
                    metrics: metrics,
                    logger: logger)
                outcome.withLock { $0 = .success(loop.endpoints) }
                started.signal()
                loop.run()
            } catch {
                let failure =
                    switch error {
                    case let error as CoordinatorError: error
                    case let error as IndexError: CoordinatorError(.index, "cannot start: the index \(index.location) cannot be used", cause: error)
                    case let error as TileError:
                        CoordinatorError(
                            error.code == .unavailable ? .tilesetUnavailable : .tileset, "cannot start: its basemap cannot be opened", cause: error)
                    default: CoordinatorError(.loop, "cannot start", cause: error)
                    }
                outcome.withLock { $0 = .failure(failure) }
                started.signal()
            }
            done.signal()
        }
        thread.name = "coordinator-loop"
        thread.start()
        started.wait()
        switch outcome.withLock({ $0 })! {
        case .success(var endpoints):
            state.withLock { $0 = .running(done: done) }
            if !configuration.metricsListen.isEmpty {
                let reader: Backend.ReadConnection
                do {
                    reader = try index.openReader(logger: logger)
                } catch {
                    stop()
                    throw CoordinatorError(.index, "cannot start: the index \(index.location) cannot be read for the metrics", cause: error)
                }
                let gauges = JobGauges(reading: reader, themes: configuration.drawnThemes, metrics: metrics, logger: logger)
                do {
                    let server = try MetricsServer(
                        listen: configuration.metricsListen, registry: metrics.registry, beforeScrape: { gauges.refresh() }, logger: logger)
                    metricsServer.withLock { $0 = server }
                    let host = configuration.metricsListen.split(separator: ":").first.map(String.init) ?? "127.0.0.1"
                    endpoints.metrics = "http://\(host):\(server.port)/metrics"
                } catch {
                    stop()
                    throw CoordinatorError(.metrics, "cannot serve metrics.listen = '\(configuration.metricsListen)'", cause: error)
                }
            }
            return endpoints
        case .failure(let error):
            done.wait()
            throw error
        }
    }

    /// Stops dispatching, lets the loop commit what it recorded, and waits for it to end.
    public func stop() {
        let done: DispatchSemaphore? = state.withLock { state in
            guard case .running(let done) = state else { return nil }
            state = .stopped
            return done
        }
        guard let done else { return }
        metricsServer.withLock { $0?.stop() }
        stopRequest.request()
        if let error = context.wake(wakeEndpoint, untilStopped: { done.wait() }) {
            logger.error("could not wake the coordinator loop to stop it", metadata: ["error": "\(error)"])
        }
    }
}

/// The coordinator could not start: what failed (``code``), in words (``message``), and the
/// error underneath (``cause``: an ``IndexError``, a ``ZMQError``, ...), kept whole rather than
/// flattened into text, as swift-nio's `FileSystemError` and GRDB's `DatabaseError` keep theirs.
public struct CoordinatorError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A listen address the configuration may not use (`listen.*`, `metrics.listen`).
        case listenAddress
        /// A socket could not be bound (the loop did not start).
        case loop
        /// The index cannot be used (``cause``: an ``IndexError``, whose ``IndexError/code`` says why
        /// and picks the exit status).
        case index
        /// `privacy.secret_file` cannot be read, or is too short.
        case privacySecret
        /// The metrics endpoint could not be served.
        case metrics
        /// `originals.directory` is inside the shared cache, or cannot be made private.
        case originals
        /// The picture store cannot be used: a bucket missing, credentials refused, an endpoint
        /// that does not answer (``cause``: a ``PictureStoreError``).
        case store
        /// The picture store is another index's (its owner marker names another), or holds
        /// pictures without a marker while this index has no workout (``StoreOwnership``).
        case foreignStore
        /// A tileset of `basemap.tilesets` (or the map's font) cannot be used: missing, not a
        /// tileset, refused by its server (``cause``: a ``TileError``).
        case tileset
        /// A remote tileset does not answer now (no answer, HTTP 429 or 5xx).
        case tilesetUnavailable
    }

    /// The exit status that says why (docs/operations.md, "Exit codes"): 73 (EX_CANTCREAT) when the
    /// picture store cannot be used, like a worker's; for the index 75 (EX_TEMPFAIL) when another
    /// coordinator holds it, 65 (EX_DATAERR) when what is there is no index or a damaged one, 74
    /// (EX_IOERR) when it cannot be opened or read; 78 (EX_CONFIG) for a tileset that cannot be
    /// used; 69 (EX_UNAVAILABLE) otherwise (a port taken, a remote tileset that does not answer).
    public var exitCode: Int32 {
        switch code {
        case .store: return 73
        case .foreignStore, .tileset: return 78
        case .index:
            switch (cause as? IndexError)?.code {
            case .locked?: return 75
            case .notAnIndex?, .damaged?, .corruptRow?: return 65
            case .unavailable?, .migration?, .failed?, .conflict?, .badCursor?, .refused?, .lostLead?, nil: return 74
            }
        case .listenAddress, .loop, .privacySecret, .metrics, .originals, .tilesetUnavailable: return 69
        }
    }

    public var code: Code
    public var message: String
    public var cause: (any Error & Sendable)?

    /// The most precise code there is, for logs and scripts: the index error's own
    /// (`index/index-locked`) when the index is what failed, else ``code``'s.
    public var detailedCode: String {
        if let index = cause as? IndexError { return "\(code.rawValue)/\(index.code.rawValue)" }
        return code.rawValue
    }

    init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { cause.map { "\(message): \($0)" } ?? message }
}
