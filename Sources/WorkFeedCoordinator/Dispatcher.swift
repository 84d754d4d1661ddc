import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedStore
import WorkFeedTiles
import WorkFeedWire

/// The coordinator's index side. Lives on the index thread, which alone touches the index.
///
/// The loop thread (``CoordinatorLoop``) owns the sockets: it receives and parses messages, puts
/// them in the ``Inbox``, and sends what each batch produced. The dispatcher takes everything in the
/// inbox as one batch, runs one transaction for it (statuses, imports, enqueues, expired workers
/// and leases, new leases) and only once it has committed hands back the jobs, replies and events.
/// A status a worker reported is in the index before its slot is given another job; a reply never
/// reports something that might roll back. While one batch is in its transaction, the loop
/// collects the next: the two threads work side by side.
///
/// Generic over its index (``WorkoutIndexStore``), and specialized for each backend the
/// coordinator opens (``ConfiguredIndex``): its transactions call the backend's own types.
struct Dispatcher<Index: WorkoutIndexStore> {
    let configuration: CoordinatorConfiguration
    /// The kept originals (``OriginalFileStore``): the coordinator's alone, outside the picture store.
    let originals: OriginalFileStore
    /// Where pictures live: the dispatcher removes replaced, hidden and deleted ones.
    let store: any PictureStore
    let logger: Logger
    let metrics: CoordinatorMetrics
    let index: Index
    /// When leases' deadlines (and the lead) were last looked at: the first batch looks at once.
    var lastDeadlineCheck = ContinuousClock.now - .seconds(1)
    /// This coordinator's term as the one that does the periodic work (the start sweeps, summary
    /// rebuild steps), as the last committed batch left it; `nil` while another coordinator's
    /// term lives (``IndexWriting/lead(now:)``).
    var term: LeadershipTerm?
    /// The owner whose summary rebuild the last turn that looked stepped, `nil` when it found none
    /// waiting (``rebuildSummaries(transaction:after:)``): the next step takes the next owner.
    var summaryRebuildTurn: String?
    /// Whether the coordinator is stopping (its inbox closed): a batch no longer waits for an index
    /// that cannot be reached.
    var isStopping: () -> Bool = { false }
    /// How long the next wait for an index that cannot be reached is; `nil` while it can be.
    var indexWait: Duration?
    /// The wall clock control requests' deadlines are read against (milliseconds since the Unix
    /// epoch); a test sets one of its own.
    var wallClock: @Sendable () -> UInt64 = { ControlRequest.now() }
    var specs: PictureSpecs
    var workers: [[UInt8]: WorkerState] = [:]
    let retry: RetryPolicy
    let workerExpiry: Duration
    /// Leases are `boot << 32 | counter`: a random boot number keeps a previous run's late reports
    /// from matching this run's leases.
    let bootPrefix = UInt64(UInt32.random(in: 1...UInt32.max)) << 32
    var leaseCounter: UInt64 = 0
    var progress = ProgressReporter()
    /// Jobs finished in the last minute, for `workctl status`.
    let finishedCounter = RateWindow()
    var finishedLastMinute: Int { finishedCounter.total() }

    var health = WorkerHealth()

    /// The basemap's identity hash; empty without tilesets. Workers must have the same one.
    let basemap: String
    /// Where each committed batch leaves what STATUS needs from memory (for the read service).
    let dispatchState: DispatchState

    /// A dispatcher over an open index (``IndexBackend/openWriter(logger:)``), which it prepares:
    /// the privacy secret and zones, the owners' heart-rate zones and summaries are read from it.
    /// - Throws: ``IndexError`` when the index cannot be read, ``TileError`` when a configured
    ///   tileset or the attribution font cannot be read.
    init(configuration: CoordinatorConfiguration, index: Index, metrics: CoordinatorMetrics, dispatchState: DispatchState, logger: Logger) throws {
        self.dispatchState = dispatchState
        if configuration.basemapTilesets.isEmpty {
            basemap = ""
        } else {
            let identity = try BasemapIdentity(
                tilesetLocations: configuration.basemapTilesets, access: TilesetAccess(s3: configuration.s3Store),
                fontPath: configuration.basemapFont,
                fallbackFontPaths: configuration.basemapFallbackFonts,
                attributionOverride: configuration.basemapAttribution)
            basemap = identity.hash
            for tileset in identity.tilesets { logger.info("tileset", metadata: tileset.logMetadata) }
        }
        self.index = index
        self.configuration = configuration
        let location = try configuration.storeLocation()
        store = try PictureStores.open(location, s3: configuration.s3Store)
        _ = try StoreOwnership.claim(
            store, identity: try index.write { try $0.indexIdentity() },
            indexHasWorkouts: try index.read { try $0.workoutCount(owner: nil) } > 0, logger: logger)
        originals = try Self.openOriginals(configuration, cache: location, logger: logger)
        self.logger = logger
        self.metrics = metrics
        specs = PictureSpecs(
            configuration: configuration, basemap: basemap.isEmpty ? nil : basemap,
            privacy: try Self.loadPrivacy(configuration: configuration, index: index),
            heartRateZones: try Self.loadHeartRateZones(configuration: configuration, index: index, logger: logger),
            pictureSettings: try index.read { try $0.pictureSettings() })
        try Self.prepareSummaries(configuration: configuration, index: index, logger: logger)
        retry = RetryPolicy(
            maximumAttempts: configuration.maximumAttempts, initialBackoff: configuration.initialBackoffSeconds,
            maximumBackoff: configuration.maximumBackoffSeconds, environmentInitialBackoff: configuration.environmentInitialBackoffSeconds,
            environmentMaximumBackoff: configuration.environmentMaximumBackoffSeconds)
        workerExpiry = .milliseconds(configuration.heartbeatIntervalMilliseconds * configuration.heartbeatLiveness)
    }

    /// Applies a batch in one transaction. Never throws: a batch whose transaction fails changes
    /// nothing (its reports are lost; their leases expire) and the error is logged. A transaction
    /// refused for a conflict with another coordinator's (PostgreSQL) is applied again, up to
    /// ``conflictRetries`` times; one that failed because the index cannot be reached is applied
    /// again once it can, however long that takes (the loop thread goes on heartbeating the
    /// workers and collecting the next batch), unless the coordinator is stopping.
    ///
    /// A write request whose deadline (``ControlRequest/deadline``) has passed is not carried out
    /// but answered ``ControlErrorCode/expired``: checked before the transaction and again just
    /// before it commits; one that passed meanwhile rolls the batch back, and the batch is applied
    /// again without it. So nothing is committed after its client stopped waiting.
    mutating func process(_ batch: Batch) -> Outbox {
        var batch = batch
        var conflicts = 0
        var expired: [(identity: [UInt8], reply: ControlReply, bytes: Int)] = []
        while true {
            let now = wallClock()
            for work in batch.controlMessages where work.request.isPastDeadline(at: now) {
                expired.append((work.identity, ControlReply.expired(work.request), work.bytes))
            }
            batch.controlMessages.removeAll { $0.request.isPastDeadline(at: now) }
            guard var outbox = apply(batch, conflictRetry: conflicts < Self.conflictRetries) else {
                conflicts += 1
                continue
            }
            if !expired.isEmpty {
                logger.notice("control requests past their deadline; not carried out", metadata: ["requests": "\(expired.count)"])
            }
            outbox.control = expired + outbox.control
            return outbox
        }
    }

    /// How many times a batch is applied again after conflicts with other writers' transactions,
    /// before it fails as any other failure does.
    static var conflictRetries: Int { 5 }

    /// A write request's deadline passed while its batch ran: the batch is rolled back.
    private struct DeadlinePassed: Error {}

    /// ``process(_:)``'s one try: `nil` when a request's deadline passed before the commit (the
    /// transaction rolled back and nothing was kept), or when the index could not be reached
    /// (after a wait that doubles, up to 5 s, unless the coordinator is stopping).
    /// - Parameter conflictRetry: whether a conflict with another writer makes it `nil` (tried again).
    private mutating func apply(_ batch: Batch, conflictRetry: Bool) -> Outbox? {
        let now = batch.received
        var outbox = Outbox()
        // Worker bookkeeping is applied to a copy and kept only if the transaction commits.
        var workersAfter = workers
        var healthAfter = health
        var specsAfter = specs
        var leaseCounterAfter = leaseCounter
        var progressAfter = progress
        var termAfter = term
        var rebuildTurnAfter = summaryRebuildTurn
        progressAfter.countTurn()
        let checkDeadlines = now - lastDeadlineCheck >= .seconds(1)
        do {
            let released = try index.writeReleasingKeys { transaction in
                // Orphans the start sweep found: checked against the jobs and leases at the end.
                for leftover in batch.leftovers { transaction.discard(leftover) }
                // Removals the store refused wait in the index until they are done.
                try transaction.keepRemovals(batch.removalsToKeep.map(\.keptName), now: Date())
                try transaction.forgetRemovals(batch.removalsDone.map(\.keptName))
                try returnUnsent(batch.unsent, workers: &workersAfter, transaction: &transaction, outbox: &outbox)
                // A run of STATUS messages is checked and stored together (one statement for its
                // pictures on PostgreSQL), before the next message that may depend on it.
                var reports: [GatheredReport] = []
                for message in batch.workerMessages {
                    switch message.message {
                    case .status(let report):
                        reports.append(gather(message.identity, report, now: now, workers: &workersAfter))
                        continue
                    case .heartbeat: break
                    default:
                        try completeReports(
                            reports, now: now, workers: &workersAfter, health: &healthAfter, specs: &specsAfter, transaction: &transaction,
                            outbox: &outbox, progress: &progressAfter)
                        reports.removeAll()
                    }
                    try handleWorker(
                        message.identity, message.message, now: now, workers: &workersAfter, health: &healthAfter, specs: &specsAfter,
                        transaction: &transaction, outbox: &outbox, progress: &progressAfter)
                }
                try completeReports(
                    reports, now: now, workers: &workersAfter, health: &healthAfter, specs: &specsAfter, transaction: &transaction,
                    outbox: &outbox, progress: &progressAfter)
                for work in batch.controlMessages {
                    guard let reply = try handleControl(work, specs: &specsAfter, transaction: &transaction, outbox: &outbox) else { continue }
                    outbox.control.append((work.identity, reply, reply.isProgress ? 0 : work.bytes))
                }
                try expireWorkers(now: now, workers: &workersAfter, transaction: &transaction, outbox: &outbox)
                if checkDeadlines {
                    let expired = try transaction.expireLeases(now: Date(), retry: retry)
                    outbox.tally.leaseLosses[.deadline, default: 0] += expired.count
                    for effect in expired {
                        outbox.tally.record(effect, renderMicroseconds: nil)
                        if let event = CoordinatorEvent(effect) { outbox.events.append(event) }
                        if case .updated(let picture, _, let reason, _, _) = effect {
                            logger.warning("job past its deadline; leased again", metadata: ["picture": "\(picture)", "reason": "\(reason ?? "")"])
                        }
                    }
                    termAfter = try transaction.lead(now: Date())
                    _ = try transaction.forgetReplies(before: Date().addingTimeInterval(-IdempotencyFields.keptFor))
                }
                if !batch.stopping {
                    try dispatch(
                        workers: &workersAfter, specs: &specsAfter, leaseCounter: &leaseCounterAfter, transaction: &transaction, outbox: &outbox)
                }
                // A rebuild goes on a step every turn. Whether one waits is looked at after control
                // requests (an import's first workout of an owner is counted by one, in its own
                // batch, so that SUMMARY counts it once IMPORT has answered) and with the deadlines.
                if !batch.stopping, termAfter != nil, rebuildTurnAfter != nil || checkDeadlines || !batch.controlMessages.isEmpty {
                    rebuildTurnAfter = try rebuildSummaries(transaction: &transaction, after: rebuildTurnAfter)
                }
                if progressAfter.isDue(now: now) {
                    progressAfter.report(transaction, workers: workersAfter, logger: logger, now: now)
                }
                let committing = wallClock()
                if batch.controlMessages.contains(where: { $0.request.isPastDeadline(at: committing) }) { throw DeadlinePassed() }
            }
            // The by-content names of pictures nothing refers to any more go with the other files,
            // and so do the by-picture names that still hold a refused or late picture.
            outbox.removals += released.released.keys.map(Removal.key)
            outbox.removals += released.released.pictures.compactMap { leftover in
                leftover.picture.map { Removal.pictureIfKey($0, leftover.key, restoring: released.released.current[$0]) }
            }
            if !released.released.keys.isEmpty { outbox.events.append(.released(keys: released.released.keys)) }
        } catch let error where error.cause is DeadlinePassed {
            // The index hands what the transaction threw back as its cause, after the rollback.
            return nil
        } catch let error where error.code == .unavailable && !batch.stopping && !isStopping() {
            // The index cannot be reached (PostgreSQL restarted, the network cut): nothing is
            // known to be kept, and the batch is applied again once it answers. Lease numbers
            // move on, so that none the lost transaction may have taken is handed out twice.
            let wait = indexWait ?? .milliseconds(250)
            let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            logger.warning(
                "the index cannot be reached; waiting for it, then applying the batch again",
                metadata: ["index_error": "\(error)", "next_try_ms": "\(milliseconds)"])
            Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
            indexWait = min(wait * 2, .seconds(5))
            leaseCounter += 1 << 20
            return nil
        } catch let error where error.code == .conflict && conflictRetry {
            // Another coordinator's transaction got in the way (PostgreSQL): nothing was kept, and
            // the batch is applied again.
            logger.notice("coordinator turn met another coordinator's; applied again", metadata: ["error": "\(error)"])
            return nil
        } catch {
            logger.error("coordinator turn failed; its messages are dropped", metadata: ["error": "\(error)"])
            return Outbox(workers: Array(workers.keys), isLast: batch.stopping)
        }
        if checkDeadlines { lastDeadlineCheck = now }
        summaryRebuildTurn = rebuildTurnAfter
        if indexWait != nil {
            logger.notice("the index answers again; the batch was applied")
            indexWait = nil
        }
        if termAfter != term {
            if let termAfter {
                logger.info("this coordinator does the periodic work now: the start sweeps, summary rebuilds", metadata: ["term": "\(termAfter)"])
                outbox.beganTerm = termAfter
            } else {
                logger.notice("another coordinator does the periodic work now", metadata: ["ended": "\(term.map(String.init(describing:)) ?? "")"])
            }
            term = termAfter
        }
        // The job gauges, which need a scan of the index, are computed when Prometheus scrapes
        // (Coordinator.start), not here.
        // STATUS's leases are the jobs this coordinator's workers are drawing now, known here
        // without asking the index. The gauge is the index's count (with the leases of workers
        // not yet taken back), read about once a second with the deadlines: on PostgreSQL it is a
        // query, and a turn is a few milliseconds.
        let busy = workersAfter.values.reduce(0) { $0 + $1.inFlight.count }
        metrics.workers(connected: workersAfter.count, slots: workersAfter.values.reduce(0) { $0 + $1.capacity }, busy: busy)
        if checkDeadlines { metrics.leased(index.leasedCount) }
        dispatchState.publish(
            DispatchState.Snapshot(
                workers: workersAfter.values.map {
                    .init(name: $0.name, capacity: $0.capacity, busy: $0.inFlight.count, done: $0.done, lastHeard: $0.lastHeard)
                },
                leased: busy, finishedLastMinute: finishedLastMinute))
        workers = workersAfter
        health = healthAfter
        specs = specsAfter
        leaseCounter = leaseCounterAfter
        progress = progressAfter
        record(outbox.tally)
        // outbox.removals are done by the index thread's RemovalQueue, off this thread.
        outbox.workers = Array(workers.keys)
        outbox.isLast = batch.stopping
        return outbox
    }

    func leaseKey(_ identity: [UInt8]) -> String {
        identity.hexString
    }

    mutating func handleWorker(
        _ identity: [UInt8], _ message: WorkerMessage, now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState],
        health: inout WorkerHealth, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox,
        progress: inout ProgressReporter
    ) throws {
        // One lookup for the common messages (STATUS, HEARTBEAT); valid until a worker is added or removed.
        let known = workers.index(forKey: identity)
        if let known { workers.values[known].lastHeard = now }
        switch message {
        case .ready(let capacity, let rendererVersion, let name, let workerBasemap, let instance):
            guard rendererVersion == BuildInfo.rendererVersion else {
                logger.error(
                    "worker refused: its renderer version differs from the coordinator's",
                    metadata: ["worker": "\(name)", "worker_renderer": "\(rendererVersion)", "renderer": "\(BuildInfo.rendererVersion)"])
                outbox.worker.append(
                    (
                        identity,
                        .disconnect(
                            reason:
                                "renderer version \(rendererVersion) differs from the coordinator's \(BuildInfo.rendererVersion): upgrade the worker",
                            code: .rendererDiffers
                        )
                    ))
                return
            }
            if !basemap.isEmpty, workerBasemap != basemap {
                // Its pictures would carry keys that promise a map it does not draw.
                logger.error(
                    "worker refused: its basemap differs from the coordinator's",
                    metadata: ["worker": "\(name)", "worker_basemap": "\(workerBasemap.prefix(12))", "basemap": "\(basemap.prefix(12))"])
                let has = workerBasemap.isEmpty ? "no tilesets" : "basemap \(workerBasemap.prefix(12))"
                outbox.worker.append(
                    (
                        identity,
                        .disconnect(
                            reason:
                                "this worker has \(has), the coordinator draws on basemap \(basemap.prefix(12)): configure the same basemap.tilesets, basemap.font and basemap.attribution",
                            code: .basemapDiffers
                        )
                    ))
                return
            }
            if let until = health.setAside[name], until > now {
                let seconds = Int((until - now).components.seconds)
                logger.warning("worker refused: it is set aside", metadata: ["worker": "\(name.escapedForDisplay)", "for_s": "\(seconds)"])
                outbox.worker.append(
                    (
                        identity,
                        .disconnect(
                            reason:
                                "set aside for \(seconds) s more: its jobs kept failing where other workers' succeeded; fix it, or start it under another name",
                            code: .setAside
                        )
                    ))
                return
            }
            health.setAside[name] = nil
            if let previous = workers[identity] {
                // A worker that says READY again has reset: whatever it held is not coming back.
                try release(previous, reason: "worker \(previous.name) restarted", cause: .restarted, transaction: &transaction, outbox: &outbox)
            }
            // The same worker reconnected under a new socket identity (every reconnection has one):
            // its old entry goes now, not when it falls silent, so that it is never listed twice
            // nor reported gone while it works. The jobs it had not started were dropped when it
            // reconnected; they go back without an attempt counted.
            for (oldIdentity, old) in workers where oldIdentity != identity && old.name == name && old.instance == instance {
                workers.removeValue(forKey: oldIdentity)
                logger.info(
                    "worker reconnected; its previous connection is replaced", metadata: ["worker": "\(name)", "jobs": "\(old.inFlight.count)"])
                try release(
                    old, reason: "worker \(name) reconnected", cause: .restarted, countAttempt: false, transaction: &transaction, outbox: &outbox)
            }
            if workers.values.contains(where: { $0.name == name && $0.instance != instance }) {
                logger.warning("two worker processes share a name: give each its own (name, --name)", metadata: ["worker": "\(name)"])
            }
            workers[identity] = WorkerState(name: name, instance: instance, key: leaseKey(identity), capacity: capacity, lastHeard: now)
            logger.info("worker connected", metadata: ["worker": "\(name)", "slots": "\(capacity)"])
            outbox.events.append(.worker(name: name, change: "connected"))
        case .status(let report):
            let gathered = gather(identity, report, now: now, workers: &workers)
            try completeReports(
                [gathered], now: now, workers: &workers, health: &health, specs: &specs, transaction: &transaction, outbox: &outbox,
                progress: &progress)
        case .heartbeat:
            if known == nil {
                outbox.worker.append((identity, .disconnect(reason: "unknown worker: send READY")))
            }
        case .disconnect(let reason, _):
            if let worker = workers.removeValue(forKey: identity) {
                logger.info("worker disconnected", metadata: ["worker": "\(worker.name)", "reason": "\(reason)"])
                outbox.events.append(.worker(name: worker.name, change: "disconnected"))
                // A worker that says goodbye has reported what it finished; the rest were never started.
                try release(
                    worker, reason: "worker \(worker.name) disconnected", cause: .disconnected, countAttempt: false, transaction: &transaction,
                    outbox: &outbox)
            }
        case .job, .error:
            outbox.worker.append((identity, .error("\(message.command) is sent by the coordinator, not to it")))
        }
    }
}

extension ControlReply {
    /// The answer to a request whose deadline passed before it was carried out.
    static func expired(_ request: ControlRequest) -> ControlReply {
        .error(
            id: request.id, code: .expired,
            "\(request.command.rawValue): its deadline passed before the coordinator could carry it out; nothing was done")
    }
}
