import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire
import WorkFeedThreads

/// The coordinator's event loop. Lives on the coordinator thread, which alone touches its sockets.
///
/// The loop receives and parses every message. Worker messages and write requests (IMPORT,
/// ENQUEUE, DELETE) go into the ``Inbox`` of the ``Dispatcher``, which runs on the index thread: as
/// soon as it has committed one batch it takes everything received meanwhile as the next. Read
/// requests go to the ``ReadService``, which answers them from a read-only connection on a thread
/// of its own; PING is answered here. Malformed messages, requests a role may not send and
/// requests beyond a client's bounds (``ClientLoads``) are answered here at once with ERROR, so
/// that no client's garbage or flood reaches the index thread. When a batch's outbox or a read's
/// reply comes back, the loop sends it. It also answers CURVE authentication and sends
/// heartbeats, which keep flowing while a long transaction (a bulk ENQUEUE) runs.
struct CoordinatorLoop: ~Copyable {
    let endpoints: Coordinator.Endpoints
    let logger: Logger
    let workerSocket: ZMQSocket
    let controlSocket: ZMQSocket
    let wakeSocket: ZMQSocket
    let eventSocket: ZMQSocket
    /// Where the index thread says a batch is done.
    let doneSocket: ZMQSocket
    /// Where the read service says replies are ready.
    let readsDoneSocket: ZMQSocket
    /// Control replies held until their batch's removals were tried (``RemovalQueue``).
    let removedReplies: HeldReplies
    let reads: ReadService
    /// Where IMPORTs and UPLOADs keep their original files before the index thread sees them.
    let intake: OriginalIntake
    /// What each control client has in flight.
    var clients: ClientLoads
    /// Replies on their way to control clients, bounded over all of them.
    var replies: ReplyQueues
    /// Clients with requests in flight or replies waiting, at most; a new one past it is refused.
    let maximumClients: Int
    let metrics: CoordinatorMetrics
    /// Refusals and malformed messages, logged at most once a second each kind.
    var throttle = LogThrottle()
    /// Answers libzmq's authentication requests; bound only when keys are configured.
    let zapSocket: ZMQSocket
    /// Every allowed public key with its role (empty without keys).
    let keyRoles: [String: ClientRole]
    let heartbeatInterval: Duration
    /// How often the dispatcher is asked for a batch even if nothing came in (expiries, back-offs,
    /// the lead's renewal): every heartbeat, and at least every second, so that a long heartbeat
    /// never lets the lead lapse (``IndexWriting/lead(now:)``).
    let tickInterval: Duration
    let inbox: Inbox
    let outboxes: Handoff<Outbox>
    let indexThreadDone: DispatchSemaphore
    /// When the dispatcher was last asked for a batch even if nothing came in.
    var lastTick = ContinuousClock.now
    /// The connected workers, as of the last outbox, and when each was last sent something.
    var peers: [[UInt8]: ContinuousClock.Instant] = [:]
    var stopping = false
    /// Set by ``Coordinator/stop()``, checked every turn (the wake socket is the fast way).
    let stopRequest: StopRequest

    /// At most this many messages go into one batch, so that a turn's transaction stays short.
    static let maximumMessagesPerBatch = 4_000

    /// Binds the sockets and starts the index thread and the read service on `index`.
    /// - Throws: ``IndexError`` when the index cannot be opened, ``ZMQError`` when a socket cannot be bound.
    init<Backend: IndexBackend>(
        index: Backend, configuration: CoordinatorConfiguration, context: ZMQContext, wakeEndpoint: String, stopRequest: StopRequest,
        metrics: CoordinatorMetrics, logger: Logger
    ) throws {
        self.stopRequest = stopRequest
        let keyPair: CurveKeyPair? = configuration.keyFile.isEmpty ? nil : try CurveKeyPair.load(file: configuration.keyFile)
        let zapSocket = try ZMQSocket(context, type: .rep)
        if keyPair != nil {
            try zapSocket.bind(ZAP.endpoint)
        } else {
            // Checked at start (CoordinatorConfiguration.listenAddressProblem): every endpoint is one loopback address.
            logger.notice("no security.key_file: CURVE is off and the coordinator listens on loopback only")
        }
        let workerSocket = try ZMQSocket(context, type: .router)
        try workerSocket.set(.routerMandatory(true))
        try workerSocket.set(.maximumMessageSize(WorkerMessage.maximumMessageSize))
        // Credits bound what waits for a worker (at most its capacity, 1,024, plus heartbeats):
        // libzmq's default of 1,000 messages would drop JOBs to a worker with more slots.
        try workerSocket.set(.sendHighWaterMark(4_096))
        if let keyPair { try workerSocket.makeCurveServer(secretKey: keyPair.secretKey, domain: .workers) }
        let workers = try workerSocket.bind(configuration.workerEndpoint)
        let controlSocket = try ZMQSocket(context, type: .router)
        try controlSocket.set(.routerMandatory(true))
        try controlSocket.set(.maximumMessageSize(WorkerMessage.maximumMessageSize))
        // Replies are sent without blocking the loop. The socket holds one reply for a client that
        // is not reading; the rest wait in ReplyQueues, bounded per client and over all clients.
        try controlSocket.set(.sendHighWaterMark(ReplyQueues.socketHighWaterMark))
        if let keyPair { try controlSocket.makeCurveServer(secretKey: keyPair.secretKey, domain: .control) }
        let control = try controlSocket.bind(configuration.controlEndpoint)
        let eventSocket = try ZMQSocket(context, type: .pub)
        if let keyPair { try eventSocket.makeCurveServer(secretKey: keyPair.secretKey, domain: .events) }
        let events = try eventSocket.bind(configuration.eventsEndpoint)
        let wakeSocket = try ZMQSocket(context, type: .pair)
        try wakeSocket.bind(wakeEndpoint)
        let doneEndpoint = "inproc://workfeed-coordinator-done-\(UUID().uuidString)"
        let inbox = Inbox()
        let outboxes = Handoff<Outbox>()
        let indexThreadDone = DispatchSemaphore(value: 0)
        let doneSocket = try ZMQSocket(context, type: .pair)
        try doneSocket.bind(doneEndpoint)
        let dispatchState = DispatchState()
        // The read threads and the removal thread wake the loop here when they have replies.
        let readsDoneEndpoint = "inproc://workfeed-coordinator-reads-\(UUID().uuidString)"
        let readsDoneSocket = try ZMQSocket(context, type: .pull)
        try readsDoneSocket.bind(readsDoneEndpoint)
        let removedReplies = HeldReplies()
        let (privacySecret, originals) = try Self.startIndexThread(
            index: index, configuration: configuration, context: context, doneEndpoint: doneEndpoint, inbox: inbox, outboxes: outboxes,
            removals: (removedReplies, readsDoneEndpoint),
            done: indexThreadDone, metrics: metrics, dispatchState: dispatchState, logger: logger)
        let pictureSize = PictureSize(width: configuration.pictureWidth, height: configuration.pictureHeight)
        let intake: OriginalIntake
        do {
            intake = try OriginalIntake(originals: originals, context: context, doneEndpoint: readsDoneEndpoint, logger: logger)
        } catch {
            inbox.close()
            indexThreadDone.wait()
            throw error
        }
        do {
            reads = try ReadService(
                index: index,
                answers: { connection in
                    ReadAnswers(
                        index: connection, dispatch: dispatchState, pictureSize: pictureSize,
                        scales: configuration.scales, themes: configuration.themes, onRequestThemes: configuration.onRequestThemes,
                        eventsEndpoint: events,
                        feedBudgetBytes: ControlLimits.feedReplyBudgetBytes, summaryZoneDefaults: configuration.summaryZoneDefaults,
                        privacy: (privacySecret, configuration.privacyEndTrimMetres), logger: logger)
                },
                context: context, doneEndpoint: readsDoneEndpoint, logger: logger)
        } catch {
            intake.close()
            inbox.close()
            indexThreadDone.wait()
            throw error
        }
        self.intake = intake
        self.readsDoneSocket = readsDoneSocket
        self.removedReplies = removedReplies
        clients = ClientLoads(maximumRequests: configuration.controlMaximumInFlight, maximumBytes: configuration.controlMaximumInFlightBytes)
        replies = ReplyQueues(maximumBytes: configuration.controlMaximumQueuedReplyBytes, maximumPerClient: 2 * configuration.controlMaximumInFlight)
        maximumClients = configuration.controlMaximumClients
        self.metrics = metrics

        endpoints = Coordinator.Endpoints(workers: workers, control: control, events: events)
        self.workerSocket = workerSocket
        self.controlSocket = controlSocket
        self.wakeSocket = wakeSocket
        self.eventSocket = eventSocket
        self.doneSocket = doneSocket
        self.inbox = inbox
        self.outboxes = outboxes
        self.indexThreadDone = indexThreadDone
        self.zapSocket = zapSocket
        keyRoles = configuration.keyRoles
        self.logger = logger
        heartbeatInterval = .milliseconds(configuration.heartbeatIntervalMilliseconds)
        tickInterval = min(heartbeatInterval, .seconds(1))
        logger.info(
            "coordinator listening",
            metadata: [
                "workers": "\(endpoints.workers)", "control": "\(endpoints.control)", "events": "\(endpoints.events)",
                "curve": "\(keyPair != nil)", "index": "\(index.location)",
                "cache": "\(configuration.cacheDirectory)", "renderer": "\(BuildInfo.rendererVersion)",
            ])
    }

    /// Opens the index on a thread of its own and runs the dispatcher there until its last batch;
    /// returns once the index is open (or throws why it could not be).
    /// Kept removals taken up at a start; more wait for the next start (a store that refused more
    /// than this for long).
    static let keptRemovalsAtStart = 100_000

    private static func startIndexThread<Backend: IndexBackend>(
        index backend: Backend, configuration: CoordinatorConfiguration, context: ZMQContext, doneEndpoint: String, inbox: Inbox,
        outboxes: Handoff<Outbox>, removals removalsEnd: (replies: HeldReplies, doneEndpoint: String),
        done: DispatchSemaphore, metrics: CoordinatorMetrics, dispatchState: DispatchState, logger: Logger
    ) throws -> (privacySecret: [UInt8], originals: OriginalFileStore) {
        // The dispatcher's privacy secret once it is open (made and kept in the index the first
        // time), for the read threads' TRACK, and its originals' store, for the intake; or why it
        // could not open.
        let opened = Handoff<Result<([UInt8], OriginalFileStore), any Error>>()
        let thread = Thread {
            defer { done.signal() }
            do {
                var dispatcher = try Dispatcher(
                    configuration: configuration, index: try backend.openWriter(logger: logger), metrics: metrics, dispatchState: dispatchState,
                    logger: logger)
                dispatcher.isStopping = { inbox.isClosing }
                let doneSocket = try ZMQSocket(context, type: .pair)
                try doneSocket.connect(doneEndpoint)
                // Removals leave this thread: the store may be a round trip away. Those a run
                // before this one could not do wait in the index, and are tried at once.
                let waiting = try dispatcher.index.read { try $0.keptRemovals(limit: Self.keptRemovalsAtStart) }
                let removals = try RemovalQueue(
                    store: dispatcher.store, originals: dispatcher.originals, held: removalsEnd.replies, context: context,
                    doneEndpoint: removalsEnd.doneEndpoint, waiting: waiting.compactMap(Removal.init(keptName:)),
                    keeping: { keep, done in inbox.add(removalsToKeep: keep, done: done) }, logger: logger)
                if !waiting.isEmpty { logger.notice("removals that waited in the index tried again", metadata: ["removals": "\(waiting.count)"]) }
                opened.put(.success((dispatcher.specs.privacy.secret, dispatcher.originals)))
                var sweeps: [SweepThread] = []
                while true {
                    let batch = inbox.take()
                    var outbox = dispatcher.process(batch)
                    if outbox.beganTerm != nil {
                        // The start sweeps, by the coordinator that does the periodic work, once a
                        // term (with one writer: once per start): pictures nothing refers to
                        // (written late, or by a worker that died), which the dispatcher checks and
                        // removes; pictures drawn before by-content names get theirs.
                        for sweep in sweeps { sweep.stop() }
                        sweeps = [
                            OrphanSweep.start(index: backend, store: dispatcher.store, inbox: inbox, logger: logger),
                            KeyLinkSweep.start(index: backend, store: dispatcher.store, logger: logger),
                        ]
                    }
                    if batch.stopping {
                        // The last batch: its replies go with it, after its removals.
                        removals.removeNow(outbox.removals)
                    } else if !outbox.removals.isEmpty {
                        // Its replies wait for its removals ("deleted" means gone), for a second
                        // at most (RemovalQueue.longestReplyHold); its jobs do not, and neither do PROGRESS replies: they promise nothing of the files,
                        // and a long DELETE's client must hear of each step while the removals
                        // of the steps before are still going (LongDeleteTests: a 2 s timeout).
                        removals.enqueue(outbox.removals, holding: outbox.control.filter { !$0.reply.isProgress })
                        outbox.control.removeAll { !$0.reply.isProgress }
                    }
                    outbox.removals = []
                    outboxes.put(outbox)
                    // A byte to wake the loop's poll; the outbox itself goes through memory.
                    try? doneSocket.send([[1]])
                    if batch.stopping { break }
                }
                for sweep in sweeps { sweep.stop() }
                removals.close()
                // Give back the leases and the lead (PostgreSQL), and fold the write-ahead log
                // into the index file, so that a clean stop leaves the single file index.sqlite
                // (docs/operations.md, "Moving the coordinator"), even if a reader's connection
                // is still open.
                dispatcher.leaveAndCheckpoint()
                logger.debug("index thread ends; every batch committed")
            } catch {
                opened.put(.failure(error))
            }
        }
        thread.name = "coordinator-index"
        thread.start()
        switch opened.take() {
        case .success(let (secret, originals)): return (secret, originals)
        case .failure(let error):
            done.wait()
            throw error
        }
    }

    mutating func run() {
        defer {
            // Whatever ended the loop, the read threads end, and the index thread records what it
            // has and ends too (last: its connection is then the index's last one).
            reads.close()
            intake.close()
            inbox.close()
            indexThreadDone.wait()
        }
        while true {
            do {
                if try turn() { break }
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

    /// One wait for something to do, and doing it.
    /// - Returns: `true` once the last batch (after a stop) has been sent.
    mutating func turn() throws -> Bool {
        // A full batch of worker messages leaves the rest in the sockets (and in ZeroMQ's queues)
        // until it is taken. Control requests are always read: each is answered, admitted or
        // refused at once, and what is admitted is bounded per client.
        let full = inbox.workerCount >= Self.maximumMessagesPerBatch
        var items = [doneSocket.pollItem(), wakeSocket.pollItem(), zapSocket.pollItem(), readsDoneSocket.pollItem(), controlSocket.pollItem()]
        if !full { items.append(workerSocket.pollItem()) }
        let ready = try ZMQPoll.poll(items, timeoutMilliseconds: pollTimeout())
        if ready[1] { while try wakeSocket.receive(dontWait: true) != nil {} }
        if stopRequest.isRequested && !stopping {
            stopping = true
            inbox.close()
        }
        if ready[2] { try answerAuthentication() }
        var workerMessages: [Batch.Message] = []
        var controlMessages: [Batch.Message] = []
        if !full { try Self.drain(workerSocket, into: &workerMessages, upTo: Self.maximumMessagesPerBatch, withRoles: true) }
        try Self.drain(controlSocket, into: &controlMessages, upTo: Self.maximumMessagesPerBatch, withRoles: true)
        // Requests back from the intake go first: a client's later ones wait behind them.
        let kept = intake.takeDone()
        inbox.add(worker: parseWorkerMessages(workerMessages), control: kept + admit(controlMessages))
        if ready[3] {
            while try readsDoneSocket.receive(dontWait: true) != nil {}
            while let replies = reads.results.poll() {
                for (identity, answer, bytes) in replies { reply(answer, to: identity, bytes: bytes) }
            }
        }
        // Replies whose removals were tried, and those held for them too long (a stalled store).
        for (identity, answer, bytes) in removedReplies.take() { reply(answer, to: identity, bytes: bytes) }
        if ready[0] {
            while try doneSocket.receive(dontWait: true) != nil {}
            while let outbox = outboxes.poll() {
                send(outbox)
                if outbox.isLast { return true }
            }
        }
        flushReplies()
        let now = ContinuousClock.now
        if now - lastTick >= tickInterval {
            inbox.tick()
            lastTick = now
            throttle.flush(logger: logger, now: now)
        }
        sendHeartbeats(now: now)
        return false
    }

    /// Parses worker messages here, beside the sockets, to keep the index thread to the index:
    /// malformed ones are answered with ERROR at once and go no further.
    mutating func parseWorkerMessages(_ messages: [Batch.Message]) -> [Batch.WorkerInput] {
        var parsed: [Batch.WorkerInput] = []
        parsed.reserveCapacity(messages.count)
        for message in messages {
            do throws(WireError) {
                // ZAP lets only worker keys in here; this is the second line.
                if let role = message.role, role != .worker { throw WireError("a \(role.rawValue) key may not use the worker protocol") }
                parsed.append((message.identity, try WorkerMessage(frames: message.frames)))
            } catch {
                if let first = message.frames.first, let spoken = WireProtocol(frame: first), spoken != .worker {
                    throttle.log(
                        "wrong-endpoint-worker", "a control client (\(spoken.clients)) is connected to the worker endpoint",
                        metadata: ["peer": "\(message.identity.hexString)", "hint": "it should use \(spoken.listenKey)"], logger: logger)
                } else {
                    throttle.log(
                        "malformed-worker", "malformed worker message", metadata: ["peer": "\(message.identity.hexString)", "error": "\(error)"],
                        logger: logger)
                }
                try? workerSocket.send(WorkerMessage.error("\(error)").frames, to: message.identity, dontWait: true)
            }
        }
        return parsed
    }

    /// Parses control requests and decides each: malformed, not the role's, or beyond the
    /// client's bounds: an ERROR at once; PING: answered here; a read: to the read service; a
    /// write: returned, for the dispatcher.
    mutating func admit(_ messages: [Batch.Message]) -> [ControlWork] {
        var writes: [ControlWork] = []
        for message in messages {
            let request: ControlRequest
            do {
                request = try ControlRequest(frames: message.frames)
            } catch {
                if let first = message.frames.first, let spoken = WireProtocol(frame: first), spoken != .control {
                    throttle.log(
                        "wrong-endpoint-control", "a worker is connected to the control endpoint",
                        metadata: ["hint": "it should use \(spoken.listenKey)"], logger: logger)
                } else {
                    throttle.log("malformed-control", "malformed control request", metadata: ["error": "\(error)"], logger: logger)
                }
                // The request id, when frame 1 holds one, so that the client can match the error.
                let id =
                    message.frames.count > 1 && [8, 16].contains(message.frames[1].count)
                    ? message.frames[1].prefix(8).reduce(0) { $0 << 8 | UInt64($1) } : 0
                send(.error(id: id, code: .badRequest, "malformed request: \(error)"), to: message.identity)
                continue
            }
            if let refusal = ControlPolicy.refusal(of: request, for: message.role) {
                throttle.log(
                    "control-role", "control request refused",
                    metadata: ["command": "\(request.command.rawValue)", "role": "\(message.role?.rawValue ?? "local")"],
                    logger: logger)
                send(.error(id: request.id, code: .forbidden, refusal), to: message.identity)
                continue
            }
            if request.command == .ping {
                send(ControlReply(id: request.id, ok: true, body: Array(#"{"pong":true}"#.utf8)), to: message.identity)
                continue
            }
            // Its client has stopped waiting (it sat in a queue while the coordinator was busy or
            // paused): not carried out, as the client was told.
            if request.isPastDeadline() {
                throttle.log("control-expired", "control request past its deadline; not carried out", level: .notice, logger: logger)
                send(ControlReply.expired(request), to: message.identity)
                continue
            }
            if let refusal = refusalOfANewClient(message.identity) {
                throttle.log("control-clients", "control request refused: too many clients", level: .notice, metadata: [:], logger: logger)
                metrics.clientRefused()
                send(.error(id: request.id, code: .busy, refusal), to: message.identity)
                continue
            }
            let bytes = message.frames.reduce(0) { $0 + $1.count }
            if let busy = clients.admit(message.identity, bytes: bytes) {
                throttle.log("control-busy", "control request refused: client busy", level: .notice, metadata: ["reason": "\(busy)"], logger: logger)
                send(.error(id: request.id, code: .busy, busy), to: message.identity)
                continue
            }
            let work = ControlWork(identity: message.identity, request: request, role: message.role, bytes: bytes)
            if request.command.isRead {
                reads.submit(work)
            } else if intake.isHolding(message.identity) || OriginalIntake.needsIntake(request) {
                intake.submit(work)
            } else {
                writes.append(work)
            }
        }
        return writes
    }
}
