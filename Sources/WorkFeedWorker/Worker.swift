import Foundation
public import Logging
import Synchronization
import WorkFeedModel
import WorkFeedS3
import WorkFeedStore
public import WorkFeedConfig
public import WorkFeedMetrics
public import WorkFeedWire
import WorkFeedThreads
import WorkFeedTiles

/// A worker process's engine: one socket thread that talks to the coordinator (so heartbeats keep
/// flowing while pictures render) and a pool of render threads.
///
/// ```swift
/// let worker = Worker(configuration: configuration, context: ZMQContext(), logger: logger)
/// worker.start()
/// // ... until SIGTERM
/// worker.stop()   // finishes the jobs in hand within the grace period, reports them, says DISCONNECT
/// ```
public final class Worker: Sendable {
    private let configuration: WorkerConfiguration
    private let context: ZMQContext
    let logger: Logger
    public let metrics: WorkerMetrics
    private let metricsServer = Mutex<MetricsServer?>(nil)
    private let wakeEndpoint = "inproc://workfeed-worker-wake-\(UUID().uuidString)"
    private let stopRequest = StopRequest()
    private let done = DispatchSemaphore(value: 0)
    private let started = Mutex(false)
    /// Why the socket thread ended by itself, when it did (``WorkerError/Code/refused``).
    private let ended = Mutex<WorkerError?>(nil)
    /// Fired when the socket thread ends, and by ``run()``'s shutdown: what ``run()`` waits for.
    let runWake = Signal()

    public init(configuration: WorkerConfiguration, context: ZMQContext, logger: Logger, metrics: WorkerMetrics = WorkerMetrics()) {
        self.metrics = metrics
        self.configuration = configuration
        self.context = context
        self.logger = logger
    }

    /// The number of render threads: as configured, or one per core.
    public var renderThreads: Int {
        configuration.renderThreads > 0 ? configuration.renderThreads : ProcessInfo.processInfo.activeProcessorCount
    }

    /// Starts the socket thread and the render threads, and returns at once. The worker connects
    /// (and reconnects) to the coordinator by itself.
    /// - Throws: ``WorkerError`` when the worker's sockets cannot be made (a malformed endpoint, say).
    public func start() throws(WorkerError) {
        guard !configuration.coordinatorEndpoints.isEmpty else {
            throw WorkerError(
                .loop, "worker cannot start: coordinator lists no endpoint", hint: "coordinator is tcp://HOST:5555, or several comma-separated")
        }
        if let problem = configuration.listenAddressProblem() {
            throw WorkerError(.listenAddress, "worker cannot start: \(problem.key) = '\(problem.value.escapedForDisplay)': \(problem.reason)")
        }
        // A cache this worker cannot write would fail every job it took: refuse to start instead.
        // A missing directory whose parent is there is made (a fresh host, a new checkout).
        let store: any PictureStore
        do {
            store = try configuration.openStore()
            if try store.createIfMissing() {
                logger.notice("created the cache directory, which did not exist", metadata: ["cache": "\(store)"])
            }
            try store.probe()
        } catch let error as PictureStoreError {
            throw WorkerError(
                .store, "worker cannot start: the picture store '\(configuration.cacheDirectory)' cannot take pictures", cause: error,
                hint: Self.storeHint(error))
        } catch {
            throw WorkerError(.store, "worker cannot start: \(error)", cause: error, hint: "cache.directory is a directory or s3://bucket/prefix")
        }
        guard
            started.withLock({ started in
                defer { started = true }
                return !started
            })
        else { return }
        let bound = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error & Sendable)?>(nil)
        let thread = Thread { [self, configuration, store, context, logger, wakeEndpoint, renderThreads, done, metrics, stopRequest] in
            do {
                var loop = try WorkerLoop(
                    configuration: configuration, store: store, context: context, renderThreads: renderThreads, wakeEndpoint: wakeEndpoint,
                    stopRequest: stopRequest,
                    metrics: metrics, logger: logger)
                bound.signal()
                loop.run()
                if let reason = loop.ended { self.ended.withLock { $0 = reason } }
                self.runWake.fire()
            } catch {
                failure.withLock { $0 = error }
                bound.signal()
            }
            done.signal()
        }
        thread.name = "worker-socket"
        thread.start()
        bound.wait()
        if let cause = failure.withLock({ $0 }) {
            if let tileError = cause as? TileError {
                // A tileset or font that cannot be used; one that does not answer now is told apart.
                let unavailable = tileError.code == .unavailable
                throw WorkerError(
                    unavailable ? .tilesetUnavailable : .tileset, "worker cannot start: its basemap cannot be opened", cause: tileError,
                    hint: unavailable
                        ? "start the worker again once the tileset answers (or take it out of basemap.tilesets)"
                        : "correct basemap.tilesets (or basemap.font), or take the tileset out")
            }
            throw WorkerError(.loop, "worker cannot start", cause: cause)
        }
        if !configuration.metricsListen.isEmpty {
            do {
                let server = try MetricsServer(listen: configuration.metricsListen, registry: metrics.registry, logger: logger)
                metricsServer.withLock { $0 = server }
            } catch {
                stop()
                throw WorkerError(.metrics, "worker cannot start: cannot serve metrics.listen = '\(configuration.metricsListen)'", cause: error)
            }
        }
    }

    /// The Prometheus endpoint's URL (a port 0 resolved) once started with `metrics.listen`;
    /// `nil` without it.
    public var metricsURL: String? {
        guard let port = metricsServer.withLock({ $0?.port }) else { return nil }
        let host = configuration.metricsListen.split(separator: ":").first.map(String.init) ?? "127.0.0.1"
        return "http://\(host):\(port)/metrics"
    }

    /// Stops taking jobs, finishes the ones in hand within the grace period, reports them, says
    /// DISCONNECT, and returns when the worker has stopped.
    public func stop() {
        guard started.withLock({ $0 }) else { return }
        metricsServer.withLock { $0?.stop() }
        // The socket thread has ended by itself: nobody reads the wake socket any more.
        if endedBy != nil {
            waitUntilStopped()
            return
        }
        stopRequest.request()
        if let error = context.wake(wakeEndpoint, untilStopped: waitUntilStopped) {
            logger.error("could not wake the worker to stop it", metadata: ["error": "\(error)"])
        }
    }

    /// Why the worker stopped by itself (the coordinator kept refusing it), once it has; `nil`
    /// while it runs or after ``stop()``.
    public var endedBy: WorkerError? { ended.withLock { $0 } }

    /// Blocks until the worker has stopped.
    public func waitUntilStopped() {
        done.wait()
        done.signal()
    }
}

/// The worker could not start: what failed (``code``), in words (``message``), and the error
/// underneath (``cause``: a ``PictureStoreError``, a ``ZMQError``, ...), kept whole.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A listen address the configuration may not use (`metrics.listen`).
        case listenAddress
        /// The picture store cannot take pictures (missing, read-only, full, forbidden).
        case store
        /// The sockets or the render threads could not be set up (a bad endpoint, a basemap).
        case loop
        /// The metrics endpoint could not be served.
        case metrics
        /// A tileset of `basemap.tilesets` (or the map's font) cannot be used: missing, not a
        /// tileset, refused by its server.
        case tileset
        /// A remote tileset does not answer now (no answer, HTTP 429 or 5xx).
        case tilesetUnavailable
        /// The coordinator kept refusing the worker for its configuration (another basemap or
        /// renderer), or the endpoint was the coordinator's control endpoint: the worker stopped.
        case refused
    }

    public var code: Code
    public var message: String
    public var cause: (any Error & Sendable)?
    /// What to do about it.
    public var hint: String?

    init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil, hint: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        self.hint = hint
    }

    /// The exit status that says why: 73 (EX_CANTCREAT) when the store cannot be written, 78
    /// (EX_CONFIG) when the coordinator kept refusing the worker's configuration or a tileset
    /// cannot be used, 69 (EX_UNAVAILABLE) otherwise (a remote tileset that does not answer now
    /// included).
    public var exitCode: Int32 {
        switch code {
        case .store: 73
        case .refused, .tileset: 78
        case .listenAddress, .loop, .metrics, .tilesetUnavailable: 69
        }
    }

    public var description: String {
        (cause.map { "\(message): \($0)" } ?? message) + (hint.map { ". \($0)" } ?? "")
    }
}

extension Worker {
    /// What an operator does about a store that cannot take pictures, by its code.
    static func storeHint(_ error: PictureStoreError) -> String {
        let s3 = error.cause is S3Error
        switch error.code {
        case .notFound:
            return s3
                ? "the bucket does not exist at that endpoint: create it, or correct cache.directory (s3://bucket/prefix) and store.s3.endpoint"
                : "a worker makes the directory itself only when its parent exists: mount it or create it (cache.directory, --cache)"
        case .denied:
            return s3
                ? "the credentials were refused or are missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or store.s3.credentials_file, "
                    + "with permission to put, get, list and delete objects under the prefix"
                : "a worker writes, flushes, renames and deletes files there: give this user write access (cache.directory, --cache)"
        case .unavailable:
            return s3
                ? "the endpoint did not answer or is failing: check store.s3.endpoint (WORKFEED_S3_ENDPOINT) and that the service runs"
                : "the file system reports I/O errors: check the mount"
        case .full: return "free space or raise the quota"
        case .corrupt: return "the store answered with something that is not what was asked: check the endpoint is an S3-compatible service"
        }
    }
}
