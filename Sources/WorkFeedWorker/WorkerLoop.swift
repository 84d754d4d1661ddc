import Foundation
import Logging
import WorkFeedConfig
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedStore
import WorkFeedRender
import WorkFeedTiles
import WorkFeedWire
import WorkFeedThreads

/// The worker's socket thread: owns the DEALER to the coordinator, the PULL that collects render
/// results, and the wake socket. It never renders, so heartbeats go out on time however long a
/// picture takes.
struct WorkerLoop: ~Copyable {
    let configuration: WorkerConfiguration
    let context: ZMQContext
    let logger: Logger
    let metrics: WorkerMetrics
    let name: String
    /// Drawn once per process and sent in every READY: each reconnection has a new socket
    /// identity, and the coordinator tells by this that it is the same worker coming back.
    let instance = String(UInt64.random(in: 0...UInt64.max), radix: 16).leftPadded(to: 16)
    /// The slots announced in READY: the render threads and ``WorkerConfiguration/jobsAhead``.
    let capacity: Int
    let renderThreads: Int
    let curve: CurveClientKeys?
    let queue = JobQueue()
    let results: ZMQSocket
    let wake: ZMQSocket
    let resultsEndpoint: String
    var dealer: ZMQSocket
    /// Whether `dealer` is connected and announced; false while backing off.
    var connected = false
    /// The coordinators' worker endpoints (`coordinator`): the worker works for one at a time.
    let endpoints: [String]
    /// The place in ``endpoints`` of the coordinator `dealer` connects to.
    var current = 0
    /// Coordinators moved away from since one last answered: the back-off is waited out only
    /// once every one of them has been tried in a row.
    var unansweredInARow = 0
    /// Whether the coordinator of this connection has answered yet (a JOB or a HEARTBEAT).
    var answered = false
    /// The endpoint of the coordinator the worker works for, or tries to.
    var endpoint: String { endpoints[current] }
    /// Why the worker takes no jobs while its cache cannot be written (`nil`: it takes jobs), and
    /// when it next tries a probe write.
    var paused: CachePause?
    let store: any PictureStore
    var inHand: Set<UInt64> = []
    var lastHeard = ContinuousClock.now
    var lastSent = ContinuousClock.now
    var backoff: Backoff
    var stopping = false
    /// Set by ``Worker/stop()``, checked every turn (the wake socket is the fast way).
    let stopRequest: StopRequest
    var renderers: [Thread] = []
    /// Refusals in a row that only another configuration can end (another basemap, the control
    /// endpoint instead of the workers'); reset by any JOB or HEARTBEAT.
    var refusals = 0
    /// Why the loop ended by itself (``refusalsBeforeStopping`` such refusals): the worker exits 78.
    var ended: WorkerError?
    /// After this many refusals in a row the worker stops instead of retrying for ever.
    static let refusalsBeforeStopping = 3
    /// The tilesets this worker draws maps from; `nil` without any.
    let basemap: Basemap?
    let renderThreadsDone = DispatchGroup()

    /// - Throws: ``ZMQError`` when the internal sockets cannot be made or the endpoint is malformed.
    init(
        configuration: WorkerConfiguration, store: any PictureStore, context: ZMQContext, renderThreads: Int, wakeEndpoint: String,
        stopRequest: StopRequest,
        metrics: WorkerMetrics, logger: Logger
    ) throws {
        self.stopRequest = stopRequest
        var opened: Basemap? = nil
        if !configuration.basemapTilesets.isEmpty {
            // A tileset that cannot be opened stops the worker here, with the file or URL named.
            let basemap = try Basemap(
                tilesetLocations: configuration.basemapTilesets, access: TilesetAccess(s3: configuration.s3Store),
                fontPath: configuration.basemapFont,
                fallbackFontPaths: configuration.basemapFallbackFonts,
                attributionOverride: configuration.basemapAttribution, cacheBytes: configuration.basemapCacheMegabytes << 20,
                logger: logger)
            for tileset in basemap.identity.tilesets { logger.info("tileset", metadata: tileset.logMetadata) }
            opened = basemap
        }
        let resultsEndpoint = "inproc://workfeed-worker-results-\(UUID().uuidString)"
        let curve: CurveClientKeys? =
            configuration.keyFile.isEmpty
            ? nil : CurveClientKeys(serverKey: configuration.serverKey, keyPair: try CurveKeyPair.load(file: configuration.keyFile))
        let results = try Self.bound(context, .pull, resultsEndpoint)
        let wake = try Self.bound(context, .pair, wakeEndpoint)
        let dealer = try ZMQSocket(context, type: .dealer)
        basemap = opened
        self.curve = curve
        self.results = results
        self.wake = wake
        self.dealer = dealer
        self.resultsEndpoint = resultsEndpoint
        self.configuration = configuration
        // Never empty: the configuration's list is parsed by EndpointList, and Worker.start refuses an empty one built by hand.
        endpoints = configuration.coordinatorEndpoints
        self.metrics = metrics
        self.context = context
        self.logger = logger
        self.renderThreads = renderThreads
        capacity = renderThreads + configuration.jobsAhead
        self.store = store
        name = configuration.name.isEmpty ? "\(ProcessInfo.processInfo.hostName)-\(getpid())" : configuration.name
        backoff = Backoff(
            initial: .milliseconds(configuration.reconnectInitialMilliseconds), maximum: .milliseconds(configuration.reconnectMaximumMilliseconds))
    }

    private static func bound(_ context: ZMQContext, _ type: ZMQSocketType, _ endpoint: String) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, type: type)
        try socket.bind(endpoint)
        return socket
    }

    var heartbeatInterval: Duration { .milliseconds(configuration.heartbeatIntervalMilliseconds) }
    var coordinatorExpiry: Duration { .milliseconds(configuration.heartbeatIntervalMilliseconds * configuration.heartbeatLiveness) }

    mutating func run() {
        startRenderThreads()
        sweepLeftovers()
        logger.info(
            "worker starting",
            metadata: [
                "worker": "\(name)", "coordinator": "\(EndpointList.text(endpoints))", "slots": "\(capacity)", "render_threads": "\(renderThreads)",
                "cache": "\(configuration.cacheDirectory)",
            ])
        connect()
        while (!stopping || !inHand.isEmpty) && ended == nil {
            do {
                try turn()
            } catch let error as ZMQError where error.isTerminated {
                break
            } catch {
                logger.error("worker turn failed", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        if connected {
            try? dealer.send(WorkerMessage.disconnect(reason: stopping ? "worker stopping" : "worker ending").frames, dontWait: true)
        }
        queue.close()
        renderThreadsDone.wait()
        var stopped: Logger.Metadata = ["worker": "\(name)"]
        if let tiles = basemap?.statistics {
            stopped["tile_cache_mib"] = "\(tiles.residentBytes >> 20)"
            stopped["tile_cache_entries"] = "\(tiles.entryCount)"
            stopped["tile_cache_hits"] = "\(tiles.hits)"
            stopped["tile_cache_misses"] = "\(tiles.misses)"
            stopped["tile_cache_evictions"] = "\(tiles.evictions)"
        }
        logger.info("worker stopped", metadata: stopped)
    }

    /// Once per start, in the background: what killed writers left goes (``PictureStore/removeAbandonedWrites()``).
    func sweepLeftovers() {
        let store = store
        let logger = logger
        let thread = Thread {
            let removed = store.removeAbandonedWrites()
            if removed > 0 { logger.notice("removed temporary files left by killed writers", metadata: ["files": "\(removed)"]) }
        }
        thread.name = "cache-sweep"
        thread.qualityOfService = .background
        thread.start()
    }

    mutating func startRenderThreads() {
        for index in 0..<renderThreads {
            let thread = RenderThread(
                index: index, queue: queue, store: store, basemap: basemap, context: context, resultsEndpoint: resultsEndpoint,
                metrics: metrics, logger: logger)
            renderThreadsDone.enter()
            let group = renderThreadsDone
            let handle = Thread {
                thread.run()
                group.leave()
            }
            handle.name = "render-\(index)"
            handle.start()
            renderers.append(handle)
        }
    }

    /// (Re)connects with a fresh socket and identity, and announces the worker's slots.
    mutating func connect() {
        connected = false
        answered = false
        do {
            dealer = try ZMQSocket(context, type: .dealer)
            try dealer.set(.maximumMessageSize(WorkerMessage.maximumMessageSize))
            try dealer.set(.routingID("\(name)-\(UInt32.random(in: 0...UInt32.max))"))
            if let curve { try dealer.makeCurveClient(curve) }
            // Sends block while there is no connection (our key refused, say): never longer than a heartbeat.
            try dealer.set(.sendTimeout(milliseconds: Int32(configuration.heartbeatIntervalMilliseconds)))
            try dealer.connect(endpoint)
            try dealer.send(
                WorkerMessage.ready(
                    capacity: capacity, rendererVersion: BuildInfo.rendererVersion, name: name, basemap: basemap?.identity.hash ?? "",
                    instance: instance
                ).frames)
            connected = true
            lastHeard = .now
            lastSent = .now
        } catch {
            logger.error("cannot connect to the coordinator", metadata: ["coordinator": "\(endpoint)", "error": "\(error)"])
        }
    }

    /// Moves to the next coordinator of the list (round robin; the same one when there is one),
    /// waits out the back-off (still collecting results) once every coordinator has been tried in a
    /// row without an answer, and connects.
    ///
    /// The jobs waiting for a render thread are dropped: the new connection is a new worker to the
    /// coordinator, which takes only the holder's reports and leases those jobs again, so drawing
    /// them would be wasted and would keep the slots announced in READY busy.
    mutating func reconnect(reason: String) throws {
        let from = endpoint
        current = (current + 1) % endpoints.count
        unansweredInARow += 1
        let waits = unansweredInARow >= endpoints.count
        if waits { unansweredInARow = 0 }
        var metadata: Logger.Metadata = ["reason": "\(reason)", "after_ms": "\(waits ? backoff.milliseconds : 0)"]
        if endpoints.count > 1 {
            metadata["coordinator"] = "\(from)"
            metadata["next"] = "\(endpoint)"
        }
        logger.warning("reconnecting to the coordinator", metadata: metadata)
        connected = false
        let dropped = queue.drain()
        for lease in dropped { inHand.remove(lease) }
        metrics.inHand(inHand.count)
        if !dropped.isEmpty {
            logger.notice("jobs not started dropped; the coordinator leases them again", metadata: ["jobs": "\(dropped.count)"])
        }
        let deadline = ContinuousClock.now + (waits ? backoff.current : .zero)
        while ContinuousClock.now < deadline && !stopping {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = try ZMQPoll.poll([results.pollItem(), wake.pollItem()], timeoutMilliseconds: milliseconds)
            try takeWake()
            if ready[0] { try forwardResults() }
        }
        if waits { backoff.grow() }
        if !stopping { connect() }
    }

    /// The coordinator of this connection answered (a JOB or a HEARTBEAT): the back-off starts
    /// over, and the first answer says which coordinator the worker works for.
    mutating func heard() {
        refusals = 0
        backoff.reset()
        unansweredInARow = 0
        guard !answered else { return }
        answered = true
        logger.info("working for the coordinator", metadata: ["coordinator": "\(endpoint)", "worker": "\(name)"])
    }

    mutating func turn() throws {
        if paused != nil {
            try waitForTheCache()
            return
        }
        guard connected else {
            try reconnect(reason: "no connection")
            return
        }
        let ready = try ZMQPoll.poll(
            [dealer.pollItem(), results.pollItem(), wake.pollItem()], timeoutMilliseconds: configuration.heartbeatIntervalMilliseconds)
        try takeWake()
        if ready[0] {
            while connected, let frames = try dealer.receive(dontWait: true) {
                lastHeard = .now
                try handle(frames)
            }
        }
        if ready[1] { try forwardResults() }
        let now = ContinuousClock.now
        if now - lastHeard > coordinatorExpiry {
            try reconnect(reason: "the coordinator has been silent for \(coordinatorExpiry)")
            return
        }
        if now - lastSent >= heartbeatInterval, connected {
            try dealer.send(WorkerMessage.heartbeat.frames, dontWait: true)
            lastSent = now
        }
    }

    mutating func handle(_ frames: [[UInt8]]) throws {
        let message: WorkerMessage
        do {
            message = try WorkerMessage(frames: frames)
        } catch {
            if let first = frames.first, let reached = WireProtocol(frame: first), reached != .worker {
                let reason =
                    WireProtocol.worker.wrongEndpoint(endpoint, reached: reached)
                    + ": point the worker at the worker endpoint (coordinator, --connect, WORKFEED_COORDINATOR)"
                try refused(reason: reason)
                return
            }
            logger.error("malformed message from the coordinator", metadata: ["error": "\(error)"])
            return
        }
        switch message {
        case .job(let job):
            heard()
            if stopping { return }  // its lease returns to the queue when we say DISCONNECT
            inHand.insert(job.lease)
            metrics.inHand(inHand.count)
            queue.push(job)
        case .heartbeat:
            heard()
        case .disconnect(let reason, let code?) where code.needsAnotherConfiguration:
            try refused(reason: "the coordinator refused this worker (\(code.rawValue)): \(reason)")
        case .disconnect(let reason, _):
            try reconnect(reason: "the coordinator said: \(reason)")
        case .error(let text):
            logger.error("the coordinator refused a message", metadata: ["error": "\(text)"])
        case .ready, .status:
            logger.warning("unexpected \(message.command) from the coordinator")
        }
    }

    /// A refusal that no reconnection can end: logged, and after ``refusalsBeforeStopping`` in a
    /// row the worker stops (exit 78, as for a bad configuration) instead of retrying for ever.
    mutating func refused(reason: String) throws {
        refusals += 1
        logger.error("worker refused", metadata: ["reason": "\(reason)", "refusals": "\(refusals)"])
        guard refusals >= Self.refusalsBeforeStopping else {
            try reconnect(reason: reason)
            return
        }
        ended = WorkerError(
            .refused, "worker stopped after \(refusals) refusals in a row: \(reason)",
            hint: "fix the worker's configuration and start it again")
        connected = false
        stopping = true
    }

    /// Sends every finished job's STATUS to the coordinator.
    mutating func forwardResults() throws {
        while let frames = try results.receive(dontWait: true) {
            guard case .status(let report) = try? WorkerMessage(frames: frames) else { continue }
            inHand.remove(report.lease)
            metrics.inHand(inHand.count)
            metrics.finished(outcome: report.outcome.rawValue, microseconds: report.renderMicroseconds)
            if connected {
                try dealer.send(frames, dontWait: true)
                lastSent = .now
            } else {
                logger.notice("result dropped while disconnected; the coordinator leases the job again", metadata: ["lease": "\(report.lease)"])
            }
            if let code = report.code, code.isCacheFailure, paused == nil, !stopping {
                try pause(reason: report.detail, code: code)
            }
        }
    }

    /// The cache cannot be written (full, read-only, forbidden): every job would fail the same
    /// way, so the worker takes no more. The jobs not started go back to the coordinator at once
    /// (DISCONNECT returns them without counting an attempt), and the worker stays away until a
    /// probe write succeeds.
    mutating func pause(reason: String, code: FailureCode) throws {
        let dropped = queue.drain()
        for lease in dropped { inHand.remove(lease) }
        metrics.inHand(inHand.count)
        logger.warning(
            "the cache cannot be written: taking no jobs until a probe write succeeds",
            metadata: [
                "reason": "\(reason)", "code": "\(code)", "returned": "\(dropped.count)", "cache": "\(configuration.cacheDirectory)",
                "store": "\(store)",
            ])
        if connected {
            try? dealer.send(WorkerMessage.disconnect(reason: "cache unavailable (\(code)): \(reason)").frames, dontWait: true)
            // A fresh socket that is not connected: the old connection goes.
            dealer = try ZMQSocket(context, type: .dealer)
            connected = false
        }
        paused = CachePause(reason: reason, at: .now, backoff: backoff)
    }

    /// While paused: collects the results still coming, and probes the cache with a back-off
    /// (the reconnection one, up to `reconnect.max_ms`); once the probe succeeds, connects again.
    mutating func waitForTheCache() throws {
        guard var pause = paused else { return }
        let milliseconds = Int(Backoff.milliseconds(pause.remaining(at: .now)))
        let ready = try ZMQPoll.poll([results.pollItem(), wake.pollItem()], timeoutMilliseconds: min(milliseconds, 100))
        try takeWake()
        if ready[0] { try forwardResults() }
        guard !stopping, pause.isProbeDue(at: .now) else { return }
        do {
            try store.probe()
            paused = nil
            backoff.reset()
            logger.notice("the cache can be written again: taking jobs", metadata: ["cache": "\(configuration.cacheDirectory)"])
            connect()
        } catch {
            pause.probeFailed(at: .now)
            paused = pause
            logger.info(
                "the cache still cannot be written",
                metadata: ["error": "\(error)", "code": "\(error.code)", "next_probe_ms": "\(pause.backoff.milliseconds)"])
        }
    }

    /// SIGTERM: take no more jobs, drop the ones not started (their leases return when we say
    /// DISCONNECT), and finish the rest within the grace period.
    mutating func takeWake() throws {
        while try wake.receive(dontWait: true) != nil {}
        guard stopRequest.isRequested, !stopping else { return }
        stopping = true
        let dropped = queue.drain()
        for lease in dropped { inHand.remove(lease) }
        logger.info("worker stopping", metadata: ["finishing": "\(inHand.count)", "returned": "\(dropped.count)"])
        let deadline = ContinuousClock.now + .seconds(configuration.shutdownGraceSeconds)
        while !inHand.isEmpty && ContinuousClock.now < deadline {
            _ = try ZMQPoll.poll([results.pollItem()], timeoutMilliseconds: 100)
            try forwardResults()
        }
        if !inHand.isEmpty {
            logger.warning("grace period over; unfinished jobs return to the queue", metadata: ["jobs": "\(inHand.count)"])
            inHand.removeAll()
        }
    }
}

extension String {
    /// This text with `0`s before it up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
