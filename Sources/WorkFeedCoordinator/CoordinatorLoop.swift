import CZeroMQ
import Foundation
import Logging
import WorkFeedConfig
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire

/// The coordinator's event loop. Lives on the coordinator thread, which alone touches its sockets.
///
/// The loop receives, and puts what it received in the ``Inbox`` of the ``Dispatcher``, which runs
/// on the index thread: as soon as it has committed one batch it takes everything received
/// meanwhile as the next. When a batch's outbox comes back, the loop sends its jobs, replies and
/// events. It also answers CURVE authentication and sends heartbeats, which keep flowing while a
/// long transaction (a bulk ENQUEUE) runs.
struct CoordinatorLoop: ~Copyable {
    let endpoints: Coordinator.Endpoints
    let logger: Logger
    let workerSocket: ZMQSocket
    let controlSocket: ZMQSocket
    let wakeSocket: ZMQSocket
    let eventSocket: ZMQSocket
    /// Where the index thread says a batch is done.
    let doneSocket: ZMQSocket
    /// Where the read thread says replies are ready.
    let readsSocket: ZMQSocket
    let reads: ReadService
    /// Answers libzmq's authentication requests; bound only when keys are configured.
    let zapSocket: ZMQSocket
    let allowedKeys: Set<String>
    let heartbeatInterval: Duration
    let inbox: Inbox
    let outboxes: Handoff<Outbox>
    let indexThreadDone: DispatchSemaphore
    /// When the dispatcher was last asked for a batch even if nothing came in.
    var lastTick = ContinuousClock.now
    /// The connected workers, as of the last outbox, and when each was last sent something.
    var peers: [[UInt8]: ContinuousClock.Instant] = [:]
    var stopping = false

    /// At most this many messages go into one batch, so that a turn's transaction stays short.
    static let maximumMessagesPerBatch = 4_000
    /// Control requests a client may have in flight (docs/PROTOCOL.md).
    static let maximumRequestsInFlight = 100_000

    /// Binds the sockets and starts the index thread.
    /// - Throws: ``IndexError`` when the index cannot be opened, ``ZMQError`` when a socket cannot be bound.
    init(
        configuration: CoordinatorConfiguration, context: ZMQContext, wakeEndpoint: String, metrics: CoordinatorMetrics, logger: Logger
    ) throws {
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
        // Credits bound what waits for a worker (at most its capacity, 1,024, plus heartbeats):
        // libzmq's default of 1,000 messages would drop JOBs to a worker with more slots.
        try workerSocket.setOption(ZMQ_SNDHWM, int32: 4_096)
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
        let doneEndpoint = "inproc://workfeed-coordinator-done-\(UUID().uuidString)"
        let inbox = Inbox()
        let outboxes = Handoff<Outbox>()
        let indexThreadDone = DispatchSemaphore(value: 0)
        let doneSocket = try ZMQSocket(context, type: .pair)
        try doneSocket.bind(doneEndpoint)
        try Self.startIndexThread(
            configuration: configuration, context: context, doneEndpoint: doneEndpoint, inbox: inbox, outboxes: outboxes,
            done: indexThreadDone, metrics: metrics, logger: logger)
        // The index is open and migrated: reads get a connection and a thread of their own.
        let readsEndpoint = "inproc://workfeed-coordinator-reads-\(UUID().uuidString)"
        let readsSocket = try ZMQSocket(context, type: .pull)
        try readsSocket.bind(readsEndpoint)
        let reads: ReadService
        do {
            reads = try ReadService(
                indexPath: configuration.indexPath,
                reads: ControlReads(
                    cacheDirectory: URL(fileURLWithPath: configuration.cacheDirectory).standardizedFileURL.path,
                    pictureSize: PictureSize(width: configuration.pictureWidth, height: configuration.pictureHeight)),
                context: context, wakeEndpoint: readsEndpoint, logger: logger)
        } catch {
            inbox.close()
            indexThreadDone.wait()
            throw error
        }

        endpoints = Coordinator.Endpoints(workers: workers, control: control, events: events)
        self.workerSocket = workerSocket
        self.controlSocket = controlSocket
        self.wakeSocket = wakeSocket
        self.eventSocket = eventSocket
        self.doneSocket = doneSocket
        self.readsSocket = readsSocket
        self.reads = reads
        self.inbox = inbox
        self.outboxes = outboxes
        self.indexThreadDone = indexThreadDone
        self.zapSocket = zapSocket
        allowedKeys = Set(configuration.allowedKeys)
        self.logger = logger
        heartbeatInterval = .milliseconds(configuration.heartbeatIntervalMilliseconds)
        logger.info(
            "coordinator listening",
            metadata: [
                "workers": "\(endpoints.workers)", "control": "\(endpoints.control)", "events": "\(endpoints.events)",
                "curve": "\(keyPair != nil)", "index": "\(configuration.indexPath)",
                "cache": "\(configuration.cacheDirectory)", "renderer": "\(PictureSpec.rendererVersion)",
            ])
    }

    /// Opens the index on a thread of its own and runs the dispatcher there until its last batch;
    /// returns once the index is open (or throws why it could not be).
    private static func startIndexThread(
        configuration: CoordinatorConfiguration, context: ZMQContext, doneEndpoint: String, inbox: Inbox,
        outboxes: Handoff<Outbox>, done: DispatchSemaphore, metrics: CoordinatorMetrics, logger: Logger
    ) throws {
        let opened = Handoff<(any Error)?>()
        let thread = Thread {
            defer { done.signal() }
            do {
                var dispatcher = try Dispatcher(configuration: configuration, metrics: metrics, logger: logger)
                let doneSocket = try ZMQSocket(context, type: .pair)
                try doneSocket.connect(doneEndpoint)
                opened.put(nil)
                while true {
                    let batch = inbox.take()
                    outboxes.put(dispatcher.process(batch))
                    // A byte to wake the loop's poll; the outbox itself goes through memory.
                    try? doneSocket.send([[1]])
                    if batch.stopping { break }
                }
                logger.debug("index thread ends; every batch committed")
            } catch {
                opened.put(error)
            }
        }
        thread.name = "coordinator-index"
        thread.start()
        if let error = opened.take() {
            done.wait()
            throw error
        }
    }

    mutating func run() {
        defer {
            // Whatever ended the loop, the index thread records what it has and ends too.
            inbox.close()
            indexThreadDone.wait()
            reads.stop()
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
        // A full batch leaves the rest in the sockets (and in ZeroMQ's queues) until it is taken.
        let full = inbox.count >= Self.maximumMessagesPerBatch
        var items = [doneSocket.pollItem(), wakeSocket.pollItem(), zapSocket.pollItem(), readsSocket.pollItem()]
        if !full { items += [workerSocket.pollItem(), controlSocket.pollItem()] }
        let ready = try ZMQPoll.poll(items, timeoutMilliseconds: pollTimeout())
        if ready[1], try wakeSocket.receive(dontWait: true) != nil, !stopping {
            stopping = true
            inbox.close()
        }
        if ready[2] { try answerAuthentication() }
        if !full {
            var workerMessages: [Batch.Message] = []
            var controlMessages: [Batch.Message] = []
            try Self.drain(workerSocket, into: &workerMessages, upTo: Self.maximumMessagesPerBatch)
            try Self.drain(controlSocket, into: &controlMessages, upTo: Self.maximumMessagesPerBatch)
            // Reads go to the read thread; everything else (and anything malformed) to the index thread.
            var readRequests: [(identity: [UInt8], request: ControlRequest)] = []
            controlMessages.removeAll { message in
                guard message.frames.count > 2, let command = ControlCommand(rawValue: String(decoding: message.frames[2], as: UTF8.self)),
                    ControlReads.commands.contains(command), let request = try? ControlRequest(frames: message.frames)
                else { return false }
                readRequests.append((message.identity, request))
                return true
            }
            reads.submit(readRequests)
            // Parsed here, beside the sockets, to keep the index thread to the index.
            let parsed = workerMessages.map { message in
                (message.identity, Result { () throws(WireError) in try WorkerMessage(frames: message.frames) })
            }
            inbox.add(worker: parsed, control: controlMessages)
        }
        if ready[3] {
            while try readsSocket.receive(dontWait: true) != nil {}
            reply(reads.takeReplies())
        }
        if ready[0] {
            while try doneSocket.receive(dontWait: true) != nil {}
            while let outbox = outboxes.poll() {
                send(outbox)
                if outbox.isLast { return true }
            }
        }
        let now = ContinuousClock.now
        if now - lastTick >= heartbeatInterval {
            inbox.tick()
            lastTick = now
        }
        sendHeartbeats(now: now)
        return false
    }

    /// Takes up to `limit` messages waiting on a ROUTER socket, without blocking: each split into
    /// the sender's identity and the protocol frames.
    static func drain(_ socket: borrowing ZMQSocket, into messages: inout [Batch.Message], upTo limit: Int) throws {
        var taken = 0
        while taken < limit, var frames = try socket.receive(dontWait: true), !frames.isEmpty {
            let identity = frames.removeFirst()
            messages.append((identity, frames))
            taken += 1
        }
    }

    /// Until the next tick at the latest.
    func pollTimeout() -> Int {
        let untilTick = heartbeatInterval - (ContinuousClock.now - lastTick)
        return max(0, Int(untilTick.components.seconds * 1000 + untilTick.components.attoseconds / 1_000_000_000_000_000))
    }

    mutating func send(_ outbox: Outbox) {
        let now = ContinuousClock.now
        var peers: [[UInt8]: ContinuousClock.Instant] = [:]
        for identity in outbox.workers { peers[identity] = self.peers[identity] ?? now }
        self.peers = peers
        var unsent: [(identity: [UInt8], lease: UInt64)] = []
        for (identity, message) in outbox.worker {
            do {
                try workerSocket.send(message.frames, to: identity, dontWait: true)
                if self.peers[identity] != nil { self.peers[identity] = now }
            } catch {
                // The worker is gone (EHOSTUNREACH) or not reading (EAGAIN): a JOB's lease ends now.
                logger.warning("could not send to worker", metadata: ["worker": "\(identity.hexString)", "error": "\(error)"])
                if case .job(let job) = message { unsent.append((identity, job.lease)) }
            }
        }
        inbox.add(worker: [], control: [], unsent: unsent)
        let timestamp = Date()
        let stamp = CoordinatorEvent.iso8601(timestamp)
        for event in outbox.events {
            do {
                try eventSocket.send(event.frames(at: timestamp, stamped: stamp), dontWait: true)
            } catch {
                logger.debug("event not published", metadata: ["error": "\(error)"])
            }
        }
        reply(outbox.control)
        if outbox.isLast { sayGoodbye() }
    }

    /// Sends control replies, from the index thread's outbox or the read thread.
    func reply(_ replies: [(identity: [UInt8], reply: ControlReply)]) {
        for (identity, reply) in replies {
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
        for (identity, lastSent) in peers where now - lastSent >= heartbeatInterval {
            do {
                try workerSocket.send(WorkerMessage.heartbeat.frames, to: identity, dontWait: true)
                peers[identity] = now
            } catch {
                logger.debug("heartbeat not sent", metadata: ["worker": "\(identity.hexString)", "error": "\(error)"])
            }
        }
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
        for identity in peers.keys {
            try? workerSocket.send(WorkerMessage.disconnect(reason: "coordinator stopping").frames, to: identity, dontWait: true)
        }
    }
}
