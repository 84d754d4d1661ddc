import Foundation
import Logging
import Testing
import WorkFeedConfig
@testable import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

/// A dispatcher over a fresh, real index of `Backend`, and the batches a test feeds it: no
/// sockets, no threads, no sleeps. Each ``turn(after:workers:control:)`` is one batch as the loop
/// would cut it, at an instant the test moves on; what comes back is what the coordinator would
/// send (jobs, replies, removals), after the batch's transaction committed.
struct DispatcherBench<Backend: IndexBackend>: ~Copyable {
    let directory: URL
    var dispatcher: Dispatcher<Backend.Store>
    var now = ContinuousClock.now
    var nextRequest: UInt64 = 1

    /// - Parameters:
    ///   - adjust: changes to the coordinator's defaults (back-offs, deadlines).
    ///   - backend: the index, given the test's temporary directory.
    init(
        adjust: (inout CoordinatorConfiguration) -> Void = { _ in },
        backend: (_ directory: URL, _ configuration: CoordinatorConfiguration) -> Backend
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-dispatcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("cache"), withIntermediateDirectories: true)
        var configuration = CoordinatorConfiguration.defaults
        configuration.indexPath = directory.appendingPathComponent("index.sqlite").path
        configuration.cacheDirectory = directory.appendingPathComponent("cache").path
        adjust(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let index = try backend(directory, configuration).openWriter(logger: logger)
        dispatcher = try Dispatcher(
            configuration: configuration, index: index, metrics: CoordinatorMetrics(), dispatchState: DispatchState(), logger: logger)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// One batch at `now` (advanced by `after` first).
    mutating func turn(after: Duration = .zero, workers: [Batch.WorkerInput] = [], control: [ControlRequest] = []) -> Outbox {
        now += after
        var batch = Batch()
        batch.received = now
        batch.workerMessages = workers
        // The originals are kept as the loop's intake keeps them, before the batch.
        let originals = dispatcher.originals
        batch.controlMessages = control.map { request in
            var work = ControlWork(identity: [9], request: request, role: nil, bytes: request.body.count)
            work.original = OriginalIntake.keep(request, in: originals, logger: Logger(label: "bench"))
            return work
        }
        return dispatcher.process(batch)
    }

    mutating func request(_ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = []) throws -> ControlRequest {
        defer { nextRequest += 1 }
        return ControlRequest(id: nextRequest, command: command, body: try ControlCodec.encode(body), attachments: attachments)
    }

    /// The reply to one control request, carried out in a batch of its own.
    mutating func answer(_ command: ControlCommand, _ body: some Encodable, attachments: [[UInt8]] = []) throws -> ControlReply {
        let request = try request(command, body, attachments: attachments)
        return try #require(turn(control: [request]).control.first { $0.reply.id == request.id }?.reply)
    }

    /// Imports a workout for `owner` (the default owner when `nil`); returns its id.
    mutating func importing(_ workout: ImportedWorkout, owner: String? = nil) throws -> WorkoutID {
        let reply = try answer(
            .importWorkout, ImportRequest(workout, owner: owner),
            attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        #expect(reply.ok, "IMPORT: \(String(decoding: reply.body, as: UTF8.self))")
        return try ControlCodec.decode(ImportReply.self, from: reply.body).id
    }

    /// Route pictures (light) of new two-point workouts of `owner`, queued; their ids.
    mutating func queued(_ numbers: Range<Int>, owner: String? = nil) throws -> [WorkoutID] {
        var ids: [WorkoutID] = []
        for number in numbers { ids.append(try importing(.twoPoint(number), owner: owner)) }
        var enqueue = EnqueueRequest(ids: ids, kinds: [.route], themes: [.light])
        enqueue.owner = owner
        #expect(try answer(.enqueue, enqueue).ok)
        return ids
    }

    /// The route picture (light) of a new workout of `owner` along a 2 km line north from 52° N
    /// 4° E, queued; its id. A zone at its start (``atTheLinesStart``) hides part of it, not all.
    mutating func queuedLine(owner: String) throws -> WorkoutID {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let points = (0...20).map { step in
            RoutePoint(latitude: 52 + Double(step) * 0.0009, longitude: 4, elevation: 1, time: start.addingTimeInterval(Double(step) * 30))
        }
        let line = ImportedWorkout(
            source: .gpx, sourceID: "line", activity: .running, name: nil, route: Route(segments: [points]), heartRate: [], start: start,
            end: start.addingTimeInterval(600), timeZoneOffset: 0, origin: "a 2 km line")
        let id = try importing(line, owner: owner)
        var enqueue = EnqueueRequest(ids: [id], kinds: [.route], themes: [.light])
        enqueue.owner = owner
        #expect(try answer(.enqueue, enqueue).ok)
        return id
    }

    /// A zone at the start of ``queuedLine(owner:)``'s line.
    static var atTheLinesStart: ZonesRequest.NewZone { ZonesRequest.NewZone(latitude: 52, longitude: 4, radius: 200) }

    /// The job counts by status, read from the index as committed.
    func statuses() throws -> [JobStatus: Int] {
        try dispatcher.index.read { reader in
            try reader.statusCounts(owner: nil).reduce(into: [:]) { $0[$1.status, default: 0] += $1.count }
        }
    }
}

extension DispatcherBench where Backend == SQLiteIndexBackend {
    /// Over the embedded SQLite index, in the test's temporary directory.
    init(adjust: (inout CoordinatorConfiguration) -> Void = { _ in }) throws {
        try self.init(adjust: adjust) { _, configuration in SQLiteIndexBackend(path: configuration.indexPath) }
    }
}

extension DispatcherBench where Backend == PostgresIndexBackend {
    /// Over a database of its own on the tests' PostgreSQL server.
    init(adjust: (inout CoordinatorConfiguration) -> Void = { _ in }) throws {
        try self.init(adjust: adjust, on: try Self.newDatabase(), as: "bench")
    }

    /// Coordinator `coordinator` over the database at `location`, which others may share.
    init(adjust: (inout CoordinatorConfiguration) -> Void = { _ in }, on location: PostgresIndexLocation, as coordinator: String) throws {
        try self.init(adjust: adjust) { _, _ in PostgresIndexBackend(location, coordinator: coordinator) }
    }

    /// A new database on the tests' PostgreSQL server.
    static func newDatabase() throws -> PostgresIndexLocation {
        let server = try PostgresTestServer.shared.get()
        return try PostgresIndexLocation(url: server.socketURL(database: try server.createDatabase()))
    }
}

/// The index a dispatcher test runs on: each test of the coordinator's decisions that does not
/// depend on one backend's storage runs on both, and finds the same.
enum TestedIndex: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The cases to test here: PostgreSQL's when its server is installed.
    static var available: [TestedIndex] { PostgresTestServer.isInstalled ? allCases : [.sqlite] }
}

/// Runs a test's body on a dispatcher over `index` (one protocol method, as a generic closure
/// cannot be passed).
protocol DispatcherCheck {
    func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws
}

extension TestedIndex {
    func check(adjust: (inout CoordinatorConfiguration) -> Void = { _ in }, _ check: some DispatcherCheck) throws {
        switch self {
        case .sqlite:
            var bench = try DispatcherBench<SQLiteIndexBackend>(adjust: adjust)
            try check.run(&bench)
        case .postgres:
            var bench = try DispatcherBench<PostgresIndexBackend>(adjust: adjust)
            try check.run(&bench)
        }
    }
}

/// The jobs an outbox sends, to any worker.
func jobs(_ outbox: Outbox) -> [JobAssignment] {
    outbox.worker.compactMap { if case .job(let job) = $0.message { job } else { nil } }
}

/// The jobs an outbox sends to one worker.
func jobs(_ outbox: Outbox, to identity: [UInt8]) -> [JobAssignment] {
    outbox.worker.compactMap { sent in
        guard sent.identity == identity, case .job(let job) = sent.message else { return nil }
        return job
    }
}

/// A worker's READY, named after its identity's first byte.
func ready(_ identity: [UInt8], capacity: Int) -> Batch.WorkerInput {
    (identity, .ready(capacity: capacity, rendererVersion: BuildInfo.rendererVersion, name: "w\(identity[0])", basemap: ""))
}

/// A worker's report that it drew `job` as asked.
func generated(_ job: JobAssignment) -> WorkerMessage {
    .status(JobReport(lease: job.lease, outcome: .generated, detail: job.cacheKey, renderMicroseconds: 900))
}
