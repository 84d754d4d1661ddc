import Foundation
import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedModel
import WorkFeedPrivacy
import WorkFeedWire

#if canImport(Glibc)
import Glibc
#endif

/// Answers the control requests that only read (STATUS, SHOW, FEED, CHANGES, FAILED) on threads
/// of its own, each with a read-only connection to the index: no read ever runs inside the index
/// thread's write transaction, so no client's reads hold up dispatch (WAL lets these connections
/// read beside the writer, and they see every committed batch).
///
/// Fair between clients: each client's requests wait in a queue of their own, and the queues are
/// served in turn, one request each, so a client with many requests in flight makes another wait
/// for one request at most. Identical requests waiting at the same time (the same command, body
/// and role) are answered with one computation: each was sent before it started, so each gets an
/// answer at least as fresh as itself. The threads run at a lower CPU priority (nice 10) than the
/// loop thread and the index thread: under load, reads wait, dispatch does not. The two threads
/// take turns at the queues, so that one long read (a large FAILED) does not hold up a gateway's
/// feed pages (2,840 pages/s with two, against 2,100 with one: docs/benchmarks.md).
final class ReadService: Sendable {
    typealias Work = ControlWork

    private struct State {
        var queues: [[UInt8]: [Work]] = [:]
        /// Clients with work waiting, in the order they are served.
        var order: [[UInt8]] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    /// Replies, each with the client it goes to; the loop sends them.
    let results = Handoff<[(identity: [UInt8], reply: ControlReply, bytes: Int)]>()
    private let finished = DispatchSemaphore(value: 0)

    private let threads: Int

    /// Opens the read-only connections (``IndexBackend/openReader(logger:)``) and starts the
    /// threads; returns once they read.
    /// - Parameter doneEndpoint: an inproc PULL the loop has bound: a byte there wakes its poll.
    /// - Parameter threads: read threads, each with its own connection.
    init<Backend: IndexBackend>(
        index backend: Backend, answers makeAnswers: @escaping @Sendable (Backend.ReadConnection) -> ReadAnswers<Backend.ReadConnection>,
        context: ZMQContext, doneEndpoint: String, threads: Int = 2, logger: Logger
    ) throws {
        self.threads = threads
        let opened = Handoff<(any Error)?>()
        for number in 0..<threads {
            startThread(
                number, backend: backend, makeAnswers: makeAnswers, context: context, doneEndpoint: doneEndpoint, opened: opened, logger: logger)
        }
        var failure: (any Error)?
        for _ in 0..<threads { failure = opened.take() ?? failure }
        if let failure {
            close()
            throw failure
        }
    }

    private func startThread<Backend: IndexBackend>(
        _ number: Int, backend: Backend, makeAnswers: @escaping @Sendable (Backend.ReadConnection) -> ReadAnswers<Backend.ReadConnection>,
        context: ZMQContext,
        doneEndpoint: String, opened: Handoff<(any Error)?>, logger: Logger
    ) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                let index = try backend.openReader(logger: logger)
                let done = try ZMQSocket(context, type: .push)
                try done.connect(doneEndpoint)
                // Reads yield the CPU to the loop, the index thread and the workers. (On Linux,
                // PRIO_PROCESS with 0 is the calling thread.)
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                opened.put(nil)
                let answers = makeAnswers(index)
                while let group = next() {
                    let reply = answers.answer(group[0].request)
                    results.put(group.map { ($0.identity, ControlReply(id: $0.request.id, ok: reply.ok, body: reply.body), $0.bytes) })
                    try? done.send([[1]])
                }
            } catch {
                opened.put(error)
            }
        }
        thread.name = "coordinator-reads-\(number)"
        thread.start()
    }

    /// Queues a read request.
    func submit(_ work: Work) {
        state.withLock { state in
            if state.queues[work.identity, default: []].isEmpty { state.order.append(work.identity) }
            state.queues[work.identity, default: []].append(work)
        }
        available.signal()
    }

    /// Ends the threads (requests still waiting are dropped: the coordinator is stopping).
    func close() {
        state.withLock { $0.closed = true }
        for _ in 0..<threads { available.signal() }
        for _ in 0..<threads { finished.wait() }
    }

    private enum Taken {
        case group([Work])
        case nothing
        case closed
    }

    /// The next client's first request, with every identical request waiting; `nil` once closed.
    private func next() -> [Work]? {
        while true {
            available.wait()
            let taken: Taken = state.withLock { state in
                if state.closed { return .closed }
                guard !state.order.isEmpty else { return .nothing }
                let identity = state.order.removeFirst()
                var queue = state.queues[identity] ?? []
                guard !queue.isEmpty else { return .nothing }
                let first = queue.removeFirst()
                state.queues[identity] = queue
                if !queue.isEmpty { state.order.append(identity) }
                func same(_ work: Work) -> Bool {
                    work.request.command == first.request.command && work.request.body == first.request.body && work.role == first.role
                }
                var group = [first]
                for other in state.order {
                    guard let waiting = state.queues[other], waiting.contains(where: same) else { continue }
                    group += waiting.filter(same)
                    state.queues[other] = waiting.filter { !same($0) }
                }
                state.order.removeAll { state.queues[$0]?.isEmpty ?? true }
                for identity in state.queues.keys where state.queues[identity]?.isEmpty == true { state.queues[identity] = nil }
                return .group(group)
            }
            switch taken {
            case .group(let group):
                // The signals of the others taken with it are left alone: each wakes a thread
                // that finds nothing, or finds what was queued since. Taking them here could take
                // a signal of a request queued meanwhile whose own signal another thread spent
                // on finding nothing, and leave that request waiting for the next one to arrive.
                return group
            case .closed:
                // Passed on, so that every thread wakes to see it, whichever signals it took.
                available.signal()
                return nil
            case .nothing: continue
            }
        }
    }
}

/// The answers to read requests, from one read transaction each.
struct ReadAnswers<Connection: IndexReadConnection> {
    let index: Connection
    let dispatch: DispatchState
    let pictureSize: PictureSize
    /// The scales pictures are drawn at (an ENQUEUE that names none).
    let scales: [Int]
    /// The themes pictures are drawn in ahead (a STATUS that names none) and on request.
    let themes: [Theme]
    let onRequestThemes: [Theme]
    /// `listen.events`, told in STATUS.
    let eventsEndpoint: String
    /// A FEED page stops before its items pass this many bytes (its `next` goes on from there).
    let feedBudgetBytes: Int
    /// The heart-rate zones of owners who set none, for SUMMARY's time in zones.
    let summaryZoneDefaults: SummaryZoneDefaults
    /// The privacy secret and end trim, for TRACK's cut (the owners' zones are read from the index).
    /// The coordinator always gives them; tests of other reads may leave them out.
    var privacy: (secret: [UInt8], endTrimMetres: Double) = ([], 0)
    let logger: Logger

    func answer(_ request: ControlRequest) -> (ok: Bool, body: [UInt8]) {
        do {
            return (true, try index.read { reader in try body(request, reader: reader) })
        } catch {
            // A refusal (a bad request, an id not found), carried out of the read transaction as its cause.
            if let refusal = error.cause as? ControlRequestError {
                return (false, ControlReply.error(id: 0, code: refusal.code, refusal.description).body)
            }
            logger.error("control request failed", metadata: ["command": "\(request.command.rawValue)", "error": "\(error)"])
            return (false, ControlReply.error(id: 0, code: .internal, "\(request.command.rawValue) failed: \(error)").body)
        }
    }

    private func body(_ request: ControlRequest, reader: Connection.Reader) throws -> [UInt8] {
        switch request.command {
        case .status:
            let body = try decode(StatusRequest.self, request)
            let owner = try checkOwner(body.owner, "STATUS")
            let snapshot = dispatch.read()
            let found: [Connection.Reader.StatusCount]
            if let selection = body.pictures {
                var pictures = try selection.checked(themes: themes, onRequest: onRequestThemes)
                // The owner asked about is the owner whose pictures are counted.
                let named = try checkOwner(pictures.owner, "STATUS")
                pictures.owner = owner ?? named
                found = try reader.statusCounts(of: pictures, scales: scales)
            } else {
                found = try reader.statusCounts(owner: owner)
            }
            let counts = found.map { StatusReply.Count(kind: $0.kind, theme: $0.theme, scale: $0.scale, status: $0.status, count: $0.count) }
            let coordinators = try reader.coordinators()
            let removals = try reader.keptRemovalCount()
            return try ControlCodec.encode(
                StatusReply(
                    workouts: try reader.workoutCount(owner: owner), counts: counts, leased: snapshot.leased, workers: snapshot.statusWorkers(),
                    ready: max(0, try reader.pendingReadyCount(now: Date()) - snapshot.leased),
                    finishedLastMinute: snapshot.finishedLastMinute, oldestPending: try reader.oldestPending(), anchor: try reader.currentAnchor(),
                    events: eventsEndpoint, summaryRebuilds: try reader.summaryRebuilds().filter { owner == nil || $0.key == owner },
                    coordinators: coordinators.isEmpty ? nil : coordinators, removalsWaiting: removals.count,
                    oldestRemovalWaiting: removals.oldest))

        case .failed:
            let body = try decode(FailedRequest.self, request)
            guard ControlLimits.failedLimits.contains(body.limit) else {
                throw ControlRequestError("FAILED: limit must be \(ControlLimits.failedLimits.lowerBound)...\(ControlLimits.failedLimits.upperBound)")
            }
            return try ControlCodec.encode(
                FailedReply(
                    groups: body.group
                        ? try reader.failureGroups(limit: body.limit).map { FailedReply.Group(code: $0.code, reason: $0.example, count: $0.count) }
                        : [],
                    pictures: body.group ? [] : try reader.failedPictures(limit: body.limit), total: try reader.failedCount()))

        case .show:
            let body = try decode(ShowRequest.self, request)
            // Another owner's workout is answered as absent: an owner cannot learn that it exists.
            guard let workout = try reader.workout(body.id, owner: try checkOwner(body.owner, "SHOW")) else {
                throw ControlRequestError(.notFound, "no workout with id \(body.id)")
            }
            if body.summary == true { return try feedItems([workout], reader: reader)[0].json() }
            let item = WorkoutWithPictures(workout: workout, pictures: try reader.pictures(of: body.id))
            return try ControlCodec.encode(ShowReply(item: item, pictureSize: pictureSize))

        case .feed:
            let body = try decode(FeedRequest.self, request)
            guard ControlLimits.feedLimits.contains(body.limit) else {
                throw ControlRequestError(
                    "FEED: limit must be \(ControlLimits.feedLimits.lowerBound)...\(ControlLimits.feedLimits.upperBound), is \(body.limit)")
            }
            let page: (workouts: [WorkoutRecord], next: String?)
            do {
                page = try reader.feed(limit: body.limit, cursor: body.cursor, owner: try checkOwner(body.owner, "FEED"))
            } catch let error as IndexError where error.code == .badCursor {
                throw ControlRequestError("FEED: \(error)")
            }
            if body.summary == true {
                // The gateway's page as it sends it on: each workout as the feed shows it, about a
                // kilobyte each, so a page of at most 1,000 stays within the budget.
                return FeedPage(items: try feedItems(page.workouts, reader: reader), next: page.next).json()
            }
            return try feedReply(page, reader: reader)

        case .changes:
            let body = try decode(ChangesRequest.self, request)
            let limits = body.workouts == true ? ControlLimits.changesWithWorkoutsLimits : ControlLimits.changesLimits
            guard limits.contains(body.limit) else {
                throw ControlRequestError(
                    "CHANGES: limit must be \(limits.lowerBound)...\(limits.upperBound)\(body.workouts == true ? " with workouts" : "")")
            }
            guard body.since >= 0 else { throw ControlRequestError("CHANGES: since must be an anchor, 0 or more") }
            var page = try reader.changes(since: body.since, limit: body.limit, owner: try checkOwner(body.owner, "CHANGES"))
            if body.workouts == true {
                // Each workout as it is now, once per page even when it changed in two ways.
                let ids = Set(page.changes.filter { $0.change != .deleted }.map(\.id))
                let items = try feedItems(try ids.compactMap { try reader.workout($0, owner: nil) }, reader: reader)
                let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for position in page.changes.indices where page.changes[position].change != .deleted {
                    page.changes[position].workout = byID[page.changes[position].id]
                }
            }
            return try ControlCodec.encode(ChangesReply(changes: page.changes, more: page.more, anchor: try reader.currentAnchor()))

        case .summary:
            return try summary(request, reader: reader)

        case .track:
            let body = try decode(TrackRequest.self, request)
            guard let workout = try reader.workout(body.id, owner: try checkOwner(body.owner, "TRACK")) else {
                throw ControlRequestError(.notFound, "no workout with id \(body.id)")
            }
            return try ControlCodec.encode(try track(of: workout, reader: reader))

        case .picture:
            let body = try decode(PictureRequest.self, request)
            guard CacheLayout.isCacheKey(body.key) else { throw ControlRequestError("PICTURE: key must be 64 lower-case hex digits") }
            return try ControlCodec.encode(
                PictureReply(withdrawn: try reader.isWithdrawn(key: body.key), generated: try reader.isGenerated(key: body.key)))

        case .ping, .importWorkout, .upload, .enqueue, .delete, .resolve, .original, .zones, .settings:
            throw ControlRequestError("\(request.command.rawValue) is not a read request")
        }
    }

    /// The workouts as the feed shows them (``FeedItem``): their pictures read in one query, and
    /// each owner's unit setting read once.
    private func feedItems(_ workouts: [WorkoutRecord], reader: Connection.Reader) throws -> [FeedItem] {
        try WorkFeedCoordinator.feedItems(workouts, reader: reader, pictureSize: pictureSize)
    }

    /// The workout's track: its route cut by its owner's privacy policy exactly as its pictures
    /// are (``PrivacyPolicy/cut(_:workoutID:)`` placed by the route hash), read from the index's
    /// zones, so that a zone just added applies here at once.
    private func track(of workout: WorkoutRecord, reader: Connection.Reader) throws -> WorkoutTrack {
        let stored = try reader.series(of: workout.id)
        let route = try stored.map { try SeriesCodec.decodeRoute($0.route) } ?? Route()
        let heartRate = try stored.map { try SeriesCodec.decodeHeartRate(Data($0.heartRate)) } ?? []
        let policy = PrivacyPolicy(zones: try reader.privacyZones(owner: workout.owner), endTrimMetres: privacy.endTrimMetres, secret: privacy.secret)
        guard !policy.hidesNothing else { return WorkoutTrack(id: workout.id, visible: route, heartRate: heartRate, hidden: false) }
        let cut = policy.cut(route, workoutID: workout.routeHash)
        return WorkoutTrack(
            id: workout.id, visible: cut.isWhollyHidden ? Route() : cut.route, heartRate: heartRate, hidden: cut.isCut || cut.isWhollyHidden)
    }

    /// A FEED reply of at most about ``feedBudgetBytes``: the items are encoded one by one, and a
    /// page that would pass the budget stops early with `next` at its last item, so that however
    /// large each workout's pictures list, no reply grows without bound. The JSON is the same as
    /// ``FeedReply``'s (sorted keys: items, next, pictureSize).
    private func feedReply(_ page: (workouts: [WorkoutRecord], next: String?), reader: Connection.Reader) throws -> [UInt8] {
        var items: [[UInt8]] = []
        var total = 0
        var next = page.next
        for (position, workout) in page.workouts.enumerated() {
            let item = try ControlCodec.encode(WorkoutWithPictures(workout: workout, pictures: try reader.pictures(of: workout.id)))
            if total + item.count > feedBudgetBytes && !items.isEmpty {
                next = Connection.Reader.feedCursor(after: page.workouts[position - 1])
                break
            }
            items.append(item)
            total += item.count + 1
        }
        var json = Array(#"{"items":["#.utf8)
        json.reserveCapacity(total + 256)
        for (position, item) in items.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            json += item
        }
        json.append(UInt8(ascii: "]"))
        if let next { json += Array(#","next":"#.utf8) + (try ControlCodec.encode(next)) }
        json += Array(#","pictureSize":"#.utf8) + (try ControlCodec.encode(pictureSize))
        json.append(UInt8(ascii: "}"))
        return json
    }
}
