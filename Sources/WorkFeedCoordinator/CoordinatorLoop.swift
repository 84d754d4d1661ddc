import CZeroMQ
import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire

/// The coordinator's event loop. Lives on the coordinator thread, which alone touches its sockets
/// and its index.
///
/// Each turn: wait for messages (or the next heartbeat), drain every socket, apply all of it to the
/// index in one transaction (statuses, imports, enqueues, expired workers, new leases), and only
/// after that transaction has committed, send the replies and the jobs. A job is therefore never
/// on the wire without its lease being durable.
struct CoordinatorLoop: ~Copyable {
    let endpoints: Coordinator.Endpoints
    let configuration: CoordinatorConfiguration
    /// The cache directory as an absolute path, as operators are told it.
    let cacheDirectory: String
    let logger: Logger
    let metrics: CoordinatorMetrics
    let index: WorkoutIndex
    let workerSocket: ZMQSocket
    let controlSocket: ZMQSocket
    let wakeSocket: ZMQSocket
    let eventSocket: ZMQSocket
    /// Answers libzmq's authentication requests; bound only when keys are configured.
    let zapSocket: ZMQSocket
    let allowedKeys: Set<String>
    let secure: Bool
    var lastDeadlineCheck = ContinuousClock.now
    var specs: PictureSpecs
    var workers: [[UInt8]: WorkerState] = [:]
    let retry: RetryPolicy
    let heartbeatInterval: Duration
    let workerExpiry: Duration
    /// Leases are `boot << 32 | counter`: a random boot number keeps a previous run's late reports
    /// from matching this run's leases.
    let bootPrefix = UInt64(UInt32.random(in: 1...UInt32.max)) << 32
    var leaseCounter: UInt64 = 0
    var progress = ProgressReporter()
    /// Jobs finished in the last minute, for `workctl status`.
    let finishedCounter = RateWindow()
    var finishedLastMinute: Int { finishedCounter.total() }
    var stopping = false

    /// What the loop knows of a connected worker. Credits are `capacity - inFlight.count`.
    struct WorkerState {
        var name: String
        var key: String
        var capacity: Int
        var inFlight: Set<UInt64> = []
        var lastHeard: ContinuousClock.Instant
        var lastSent: ContinuousClock.Instant
        var done = 0
        var credits: Int { max(0, capacity - inFlight.count) }
    }

    /// Everything one turn wants sent once its transaction has committed.
    struct Outbox {
        var worker: [(identity: [UInt8], message: WorkerMessage)] = []
        var control: [(identity: [UInt8], reply: ControlReply)] = []
        var events: [CoordinatorEvent] = []
        /// Cache files of deleted workouts.
        var removals: [String] = []
        /// What the turn adds to the metrics.
        var tally = Tally()
    }

    /// The metrics a turn's changes add up to, recorded once its transaction has committed: a
    /// rolled-back turn counts nothing, and the metrics' locks are taken once a turn, not once a job.
    struct Tally {
        struct Result: Hashable {
            var kind: JobKind
            var status: JobStatus
        }
        var results: [Result: Int] = [:]
        var renderMicroseconds: [UInt64] = []
        var failures: [String] = []

        mutating func record(_ effect: CompletionEffect, renderMicroseconds: UInt64?) {
            guard case .updated(let picture, let status, let reason, _) = effect else { return }
            results[Result(kind: picture.kind, status: status), default: 0] += 1
            if let renderMicroseconds { self.renderMicroseconds.append(renderMicroseconds) }
            if let reason { failures.append(reason) }
        }
    }

    /// - Throws: ``IndexError`` when the index cannot be opened, ``ZMQError`` when a socket cannot be bound.
    init(
        configuration: CoordinatorConfiguration, context: ZMQContext, wakeEndpoint: String, metrics: CoordinatorMetrics, logger: Logger
    ) throws {
        let index = try WorkoutIndex(
            path: configuration.indexPath, durability: WorkoutIndex.Durability(rawValue: configuration.durability) ?? .full,
            logger: logger)
        let keyPair: CurveKeyPair? = configuration.keyFile.isEmpty ? nil : try CurveKeyPair.load(file: configuration.keyFile)
        let zapSocket = try ZMQSocket(context, type: .rep)
        if keyPair != nil {
            try zapSocket.bind(ZAP.endpoint)
        } else {
            logger.notice("no security.key_file: CURVE is off and the coordinator listens on loopback only")
        }
        let workerSocket = try ZMQSocket(context, type: .router)
        try workerSocket.setOption(ZMQ_ROUTER_MANDATORY, int32: 1)
        try workerSocket.setOption(ZMQ_MAXMSGSIZE, int64: WorkerMessage.maximumMessageSize)
        if let keyPair { try workerSocket.makeCurveServer(secretKey: keyPair.secretKey) }
        let workers = try workerSocket.bind(configuration.workerEndpoint)
        let controlSocket = try ZMQSocket(context, type: .router)
        try controlSocket.setOption(ZMQ_ROUTER_MANDATORY, int32: 1)
        try controlSocket.setOption(ZMQ_MAXMSGSIZE, int64: WorkerMessage.maximumMessageSize)
        // Replies are sent without blocking the loop; a client may pipeline up to this many
        // requests before replies would be dropped (libzmq's default is 1,000).
        try controlSocket.setOption(ZMQ_SNDHWM, int32: Int32(Self.maximumRequestsInFlight))
        if let keyPair { try controlSocket.makeCurveServer(secretKey: keyPair.secretKey) }
        let control = try controlSocket.bind(configuration.controlEndpoint)
        let eventSocket = try ZMQSocket(context, type: .pub)
        if let keyPair { try eventSocket.makeCurveServer(secretKey: keyPair.secretKey) }
        let events = try eventSocket.bind(configuration.eventsEndpoint)
        let wakeSocket = try ZMQSocket(context, type: .pair)
        try wakeSocket.bind(wakeEndpoint)
        let endpoints = Coordinator.Endpoints(workers: workers, control: control, events: events)
        self.index = index
        self.workerSocket = workerSocket
        self.controlSocket = controlSocket
        self.wakeSocket = wakeSocket
        self.eventSocket = eventSocket
        self.zapSocket = zapSocket
        allowedKeys = Set(configuration.allowedKeys)
        secure = keyPair != nil
        self.endpoints = endpoints
        self.configuration = configuration
        cacheDirectory = URL(fileURLWithPath: configuration.cacheDirectory).standardizedFileURL.path
        self.logger = logger
        self.metrics = metrics
        specs = PictureSpecs(configuration: configuration)
        retry = RetryPolicy(
            maximumAttempts: configuration.maximumAttempts, initialBackoff: configuration.initialBackoffSeconds,
            maximumBackoff: configuration.maximumBackoffSeconds)
        heartbeatInterval = .milliseconds(configuration.heartbeatIntervalMilliseconds)
        workerExpiry = .milliseconds(configuration.heartbeatIntervalMilliseconds * configuration.heartbeatLiveness)
        logger.info(
            "coordinator listening",
            metadata: [
                "workers": "\(endpoints.workers)", "control": "\(endpoints.control)", "events": "\(endpoints.events)",
                "curve": "\(keyPair != nil)", "index": "\(configuration.indexPath)",
                "cache": "\(configuration.cacheDirectory)", "renderer": "\(PictureSpec.rendererVersion)",
            ])
    }

    mutating func run() {
        while !stopping {
            do {
                try turn()
            } catch let error as ZMQError where error.isTerminated {
                logger.notice("ZeroMQ context terminated; coordinator loop ends")
                return
            } catch {
                logger.error("coordinator turn failed; retrying next turn", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        logger.info("coordinator stopped; index committed")
    }

    /// At most this many messages are taken from a socket per turn, so that one busy socket cannot
    /// starve the others and a turn's transaction stays short.
    static let maximumMessagesPerTurn = 2_000
    /// Below this many worker messages, a turn waits a moment for more (see ``turn()``).
    static let smallTurn = 32
    /// Control requests a client may have in flight (docs/PROTOCOL.md).
    static let maximumRequestsInFlight = 100_000

    mutating func turn() throws {
        let ready = try ZMQPoll.poll(
            [workerSocket.pollItem(), controlSocket.pollItem(), wakeSocket.pollItem(), zapSocket.pollItem()],
            timeoutMilliseconds: pollTimeout())
        if ready[2], try wakeSocket.receive(dontWait: true) != nil {
            stopping = true
        }
        if ready[3] { try answerAuthentication() }
        var workerMessages = try Self.drain(workerSocket)
        // A turn's fixed cost (its transaction, its commit) is spread over what it carries: when
        // reports trickle in, wait up to a millisecond for more before committing.
        if (1..<Self.smallTurn).contains(workerMessages.count), !stopping,
            try ZMQPoll.poll([workerSocket.pollItem()], timeoutMilliseconds: 1)[0]
        {
            workerMessages += try Self.drain(workerSocket, upTo: Self.maximumMessagesPerTurn - workerMessages.count)
        }
        let controlMessages = try Self.drain(controlSocket)

        let now = ContinuousClock.now
        var outbox = Outbox()
        // Worker bookkeeping is applied to a copy and kept only if the transaction commits.
        var workersAfter = workers
        var specsAfter = specs
        var leaseCounterAfter = leaseCounter
        var progressAfter = progress
        progressAfter.countTurn()
        try index.write { transaction in
            for message in workerMessages {
                try handleWorker(message.identity, message.frames, now: now, workers: &workersAfter, transaction: &transaction, outbox: &outbox, progress: &progressAfter)
            }
            for message in controlMessages {
                outbox.control.append(
                    (message.identity, handleControl(message.frames, workers: workersAfter, specs: &specsAfter, transaction: &transaction, outbox: &outbox)))
            }
            try expireWorkers(now: now, workers: &workersAfter, transaction: &transaction, outbox: &outbox)
            if now - lastDeadlineCheck >= .seconds(1) {
                let expired = try transaction.expireLeases(retry: retry)
                metrics.leasesExpired(expired.count, cause: "deadline")
                for effect in expired {
                    outbox.tally.record(effect, renderMicroseconds: nil)
                    if let event = CoordinatorEvent(effect) { outbox.events.append(event) }
                    if case .updated(let picture, _, let reason, _) = effect {
                        logger.warning("job past its deadline; leased again", metadata: ["picture": "\(picture)", "reason": "\(reason ?? "")"])
                    }
                }
            }
            if !stopping {
                try dispatch(workers: &workersAfter, specs: &specsAfter, leaseCounter: &leaseCounterAfter, transaction: &transaction, outbox: &outbox)
            }
            if progressAfter.isDue(now: now) {
                progressAfter.report(transaction, workers: workersAfter, logger: logger, now: now)
            }
        }
        if now - lastDeadlineCheck >= .seconds(1) { lastDeadlineCheck = now }
        // The job gauges, which need a scan of the index, are computed when Prometheus scrapes
        // (Coordinator.start), not here on the loop thread.
        metrics.workers(workersAfter.count)
        metrics.leased(index.leases.count)
        workers = workersAfter
        specs = specsAfter
        leaseCounter = leaseCounterAfter
        progress = progressAfter
        send(outbox, now: now)
        sendHeartbeats(now: now)
        if stopping { sayGoodbye() }
    }

    /// Takes what is waiting on a ROUTER socket, without blocking: each message split into the
    /// sender's identity and the protocol frames.
    static func drain(_ socket: borrowing ZMQSocket, upTo limit: Int = maximumMessagesPerTurn) throws -> [(identity: [UInt8], frames: [[UInt8]])] {
        var messages: [(identity: [UInt8], frames: [[UInt8]])] = []
        while messages.count < limit, var frames = try socket.receive(dontWait: true), !frames.isEmpty {
            let identity = frames.removeFirst()
            messages.append((identity, frames))
        }
        return messages
    }

    /// Wake for the next heartbeat at the latest; sooner when backed-off jobs become ready.
    func pollTimeout() -> Int {
        stopping ? 0 : configuration.heartbeatIntervalMilliseconds
    }
}

extension CoordinatorLoop {
    func leaseKey(_ identity: [UInt8]) -> String {
        identity.hexString
    }

    mutating func handleWorker(
        _ identity: [UInt8], _ frames: [[UInt8]], now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState],
        transaction: inout IndexTransaction, outbox: inout Outbox, progress: inout ProgressReporter
    ) throws {
        let message: WorkerMessage
        do {
            message = try WorkerMessage(frames: frames)
        } catch {
            logger.warning("malformed worker message", metadata: ["peer": "\(identity.hexString)", "error": "\(error)"])
            outbox.worker.append((identity, .error("\(error)")))
            return
        }
        // One lookup for the common messages (STATUS, HEARTBEAT); valid until a worker is added or removed.
        let known = workers.index(forKey: identity)
        if let known { workers.values[known].lastHeard = now }
        switch message {
        case .ready(let capacity, let rendererVersion, let name):
            guard rendererVersion == PictureSpec.rendererVersion else {
                logger.error(
                    "worker refused: its renderer version differs from the coordinator's",
                    metadata: ["worker": "\(name)", "worker_renderer": "\(rendererVersion)", "renderer": "\(PictureSpec.rendererVersion)"])
                outbox.worker.append((identity, .disconnect(reason: "renderer version \(rendererVersion) differs from the coordinator's \(PictureSpec.rendererVersion): upgrade the worker")))
                return
            }
            if let previous = workers[identity] {
                // A worker that says READY again has reset: whatever it held is not coming back.
                try release(previous, reason: "worker \(previous.name) restarted", cause: "restarted", transaction: &transaction, outbox: &outbox)
            }
            workers[identity] = WorkerState(name: name, key: leaseKey(identity), capacity: capacity, lastHeard: now, lastSent: now)
            logger.info("worker connected", metadata: ["worker": "\(name)", "slots": "\(capacity)"])
            outbox.events.append(.worker(name: name, change: "connected"))
        case .status(let report):
            var key = ""
            if let known {
                workers.values[known].inFlight.remove(report.lease)
                workers.values[known].done += 1
                key = workers.values[known].key
            }
            let outcome: JobReportRecord.Outcome =
                switch report.outcome {
                case .generated: .generated
                case .failedNoRetry: .failedNoRetry
                case .failedRetry: .failedRetry
                }
            let effect = try transaction.complete(
                JobReportRecord(lease: report.lease, outcome: outcome, detail: report.detail), from: key, retry: retry)
            progress.record(effect, renderMicroseconds: report.renderMicroseconds)
            if let event = CoordinatorEvent(effect) { outbox.events.append(event) }
            outbox.tally.record(effect, renderMicroseconds: report.outcome == .generated ? report.renderMicroseconds : nil)
            switch effect {
            case .staleLease:
                logger.debug("late report for a lease that is no longer current; ignored", metadata: ["lease": "\(report.lease)"])
            case .updated(let picture, let status, let reason, _):
                if status == .failedNoRetry || reason != nil {
                    logger.info("picture failed", metadata: ["picture": "\(picture)", "status": "\(status.rawValue)", "reason": "\(reason ?? "")"])
                } else {
                    logger.debug("picture generated", metadata: ["picture": "\(picture)", "render_us": "\(report.renderMicroseconds)"])
                }
            }
            if known == nil {
                outbox.worker.append((identity, .disconnect(reason: "unknown worker: send READY")))
            }
        case .heartbeat:
            if known == nil {
                outbox.worker.append((identity, .disconnect(reason: "unknown worker: send READY")))
            }
        case .disconnect(let reason):
            if let worker = workers.removeValue(forKey: identity) {
                logger.info("worker disconnected", metadata: ["worker": "\(worker.name)", "reason": "\(reason)"])
                outbox.events.append(.worker(name: worker.name, change: "disconnected"))
                // A worker that says goodbye has reported what it finished; the rest were never started.
                try release(
                    worker, reason: "worker \(worker.name) disconnected", cause: "disconnected", countAttempt: false, transaction: &transaction,
                    outbox: &outbox)
            }
        case .job, .error:
            outbox.worker.append((identity, .error("\(message.command) is sent by the coordinator, not to it")))
        }
    }

    /// Workers silent past their expiry are gone; their leases return to the queue.
    func expireWorkers(
        now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState], transaction: inout IndexTransaction, outbox: inout Outbox
    ) throws {
        for (identity, worker) in workers where now - worker.lastHeard > workerExpiry {
            workers.removeValue(forKey: identity)
            outbox.events.append(.worker(name: worker.name, change: "gone"))
            logger.warning("worker went silent; its jobs go to others", metadata: ["worker": "\(worker.name)", "jobs": "\(worker.inFlight.count)"])
            try release(worker, reason: "worker \(worker.name) went silent", cause: "silent", transaction: &transaction, outbox: &outbox)
        }
    }

    func release(
        _ worker: WorkerState, reason: String, cause: String, countAttempt: Bool = true, transaction: inout IndexTransaction, outbox: inout Outbox
    ) throws {
        let effects = try transaction.releaseLeases(of: worker.key, reason: reason, countAttempt: countAttempt, retry: retry)
        metrics.leasesExpired(worker.inFlight.count, cause: cause)
        for effect in effects { outbox.tally.record(effect, renderMicroseconds: nil) }
        if !worker.inFlight.isEmpty {
            logger.notice("leases returned to the queue", metadata: ["worker": "\(worker.name)", "jobs": "\(worker.inFlight.count)", "reason": "\(reason)"])
        }
    }

    /// Leases ready jobs to workers with free slots, never more than their free slots, the least
    /// loaded workers first.
    func dispatch(
        workers: inout [[UInt8]: WorkerState], specs: inout PictureSpecs, leaseCounter: inout UInt64,
        transaction: inout IndexTransaction, outbox: inout Outbox
    ) throws {
        let order = workers.filter { $0.value.credits > 0 }
            .sorted { ($0.value.inFlight.count, $0.value.key) < ($1.value.inFlight.count, $1.value.key) }
        guard !order.isEmpty else { return }
        let identities = Dictionary(uniqueKeysWithValues: order.map { ($0.value.key, $0.key) })
        let jobs = try transaction.lease(
            order.map { ($0.value.key, $0.value.credits) }, deadline: configuration.jobDeadlineSeconds
        ) {
            leaseCounter += 1
            return bootPrefix | leaseCounter
        }
        for job in jobs {
            guard let identity = identities[job.worker] else { continue }
            workers[identity]!.inFlight.insert(job.lease)
            let assignment = JobAssignment(
                lease: job.lease, workoutID: job.picture.workoutID,
                cacheKey: specs.cacheKey(for: job.picture, routeHash: job.routeHash, heartRateHash: job.heartRateHash),
                spec: specs.encodedSpec(for: job.picture), route: job.route, heartRate: job.heartRate)
            outbox.worker.append((identity, .job(assignment)))
        }
    }

    mutating func send(_ outbox: Outbox, now: ContinuousClock.Instant) {
        record(outbox.tally)
        for (identity, message) in outbox.worker {
            do {
                try workerSocket.send(message.frames, to: identity, dontWait: true)
                workers[identity]?.lastSent = now
            } catch {
                // The worker is gone (EHOSTUNREACH): its leases return when it expires.
                logger.warning("could not send to worker", metadata: ["worker": "\(workers[identity]?.name ?? identity.hexString)", "error": "\(error)"])
            }
        }
        for path in outbox.removals {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch CocoaError.fileNoSuchFile {
                // Never rendered, or already gone.
            } catch {
                logger.warning("could not remove a deleted workout's picture", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        let timestamp = Date()
        let stamp = CoordinatorEvent.iso8601(timestamp)
        for event in outbox.events {
            do {
                try eventSocket.send(event.frames(at: timestamp, stamped: stamp), dontWait: true)
            } catch {
                logger.debug("event not published", metadata: ["error": "\(error)"])
            }
        }
        for (identity, reply) in outbox.control {
            do {
                try controlSocket.send(reply.frames, to: identity, dontWait: true)
            } catch {
                logger.warning(
                    "could not reply to a control client (gone, or more than \(Self.maximumRequestsInFlight) requests in flight)",
                    metadata: ["error": "\(error)"])
            }
        }
    }

    mutating func sendHeartbeats(now: ContinuousClock.Instant) {
        for (identity, worker) in workers where now - worker.lastSent >= heartbeatInterval {
            do {
                try workerSocket.send(WorkerMessage.heartbeat.frames, to: identity, dontWait: true)
                workers[identity]?.lastSent = now
            } catch {
                logger.debug("heartbeat not sent", metadata: ["worker": "\(worker.name)", "error": "\(error)"])
            }
        }
    }

    /// Counts a committed turn's changes in the metrics.
    func record(_ tally: Tally) {
        var finished = 0
        for (result, count) in tally.results {
            metrics.completed(kind: result.kind.rawValue, status: result.status.rawValue, count: count)
            if result.status != .pending { finished += count }
        }
        if finished > 0 { finishedCounter.add(finished) }
        for microseconds in tally.renderMicroseconds { metrics.rendered(microseconds: microseconds) }
        for reason in tally.failures { metrics.failed(reason: reason) }
    }

    /// Lets in CURVE clients whose public key is on the allow-list; logs every refusal.
    func answerAuthentication() throws {
        while let request = try zapSocket.receive(dontWait: true) {
            let decision = ZAP.decide(request, allowed: allowedKeys)
            if !decision.allowed {
                logger.warning("connection refused: key not allowed", metadata: ["key": "\(decision.client)", "address": "\(decision.address)"])
            }
            try zapSocket.send(decision.reply)
        }
    }

    /// Tells every worker the coordinator is going away, so they reconnect instead of waiting out
    /// the heartbeat expiry.
    func sayGoodbye() {
        for identity in workers.keys {
            try? workerSocket.send(WorkerMessage.disconnect(reason: "coordinator stopping").frames, to: identity, dontWait: true)
        }
    }
}
