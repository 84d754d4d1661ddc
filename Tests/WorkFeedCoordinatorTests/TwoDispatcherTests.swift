import Foundation
import Logging
import PostgresNIO
import Testing
import WorkFeedConfig
@testable import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

/// Two coordinators' dispatchers on one PostgreSQL index: an owner's zones or settings changed
/// through one reach the other's keys, cuts and replies (issue 34: "a privacy zone added through
/// one coordinator while another's worker draws never lets the old picture be stored"). Each
/// coordinator keeps a copy of the owners' policies in memory; these tests fail when a copy is
/// not brought up to the index's policy version.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct TwoDispatcherTests {
    /// A zone over the whole of ``ImportedWorkout/twoPoint(_:)`` 0's route.
    static let overWorkoutZero = ZonesRequest.NewZone(latitude: 52.0005, longitude: 4.0005, radius: 400)

    /// A zone added through the first while the second's worker draws: the second refuses the
    /// picture drawn before it, and sends the job again under the key the zone makes.
    @Test func aZoneAddedThroughOneRefusesThePictureTheOthersWorkerDrewBeforeIt() throws {
        let location = try DispatcherBench<PostgresIndexBackend>.newDatabase()
        var first = try DispatcherBench<PostgresIndexBackend>(adjust: DispatcherReportTests.noBackoff, on: location, as: "first")
        var second = try DispatcherBench<PostgresIndexBackend>(adjust: DispatcherReportTests.noBackoff, on: location, as: "second")
        _ = try first.queuedLine(owner: "alice")
        let job = try #require(jobs(second.turn(workers: [ready([2], capacity: 1)])).first)
        let zone = ZonesRequest(owner: "alice", add: DispatcherBench<PostgresIndexBackend>.atTheLinesStart)
        #expect(try first.answer(.zones, zone).ok)

        let outbox = second.turn(workers: [([2], generated(job))])
        #expect(DispatcherReportTests.removesPicture(outbox, drawnUnder: job.cacheKey), "the refused picture's file goes")
        let again = try #require(jobs(outbox, to: [2]).first, "drawn again at once")
        #expect(again.workoutID == job.workoutID && again.cacheKey != job.cacheKey)
        #expect(try second.statuses() == [.pending: 1])

        // Both coordinators agree on the new key: stored, it is current for the first too.
        _ = second.turn(workers: [([2], generated(again))])
        #expect(try first.statuses() == [.generated: 1])
        var enqueue = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light])
        enqueue.owner = "alice"
        enqueue.existingOnly = true
        let reply = try ControlCodec.decode(EnqueueReply.self, from: try first.answer(.enqueue, enqueue).body)
        #expect(reply.stale == 0 && reply.current == 1, "the first coordinator takes the second's key for current: \(reply)")
    }

    /// A zone added through the first before the second leases the job: the second cuts the
    /// route by it, here wholly hidden, so that no worker receives what it hides.
    @Test func aZoneAddedThroughOneHidesTheRouteTheOtherSends() throws {
        let location = try DispatcherBench<PostgresIndexBackend>.newDatabase()
        var first = try DispatcherBench<PostgresIndexBackend>(adjust: DispatcherReportTests.noBackoff, on: location, as: "first")
        var second = try DispatcherBench<PostgresIndexBackend>(adjust: DispatcherReportTests.noBackoff, on: location, as: "second")
        _ = try first.queued(0..<1, owner: "alice")
        #expect(try first.answer(.zones, ZonesRequest(owner: "alice", add: Self.overWorkoutZero)).ok)

        let outbox = second.turn(workers: [ready([2], capacity: 1)])
        #expect(jobs(outbox).isEmpty, "a route wholly inside the zone is never sent")
        #expect(try second.statuses() == [.failedNoRetry: 1])
    }

    /// Heart-rate zones set through the first are the second's answer to SETTINGS, and a reset
    /// through the second finds them to reset.
    @Test func heartRateZonesSetThroughOneAreTheOthers() throws {
        let location = try DispatcherBench<PostgresIndexBackend>.newDatabase()
        var first = try DispatcherBench<PostgresIndexBackend>(on: location, as: "first")
        var second = try DispatcherBench<PostgresIndexBackend>(on: location, as: "second")
        _ = try first.queued(0..<1, owner: "alice")
        // The second reads alice's zones before the first changes them.
        let before = try ControlCodec.decode(SettingsReply.self, from: try second.answer(.settings, SettingsRequest(owner: "alice")).body)
        #expect(before.heartRateZones.source == .configured)

        let set = SettingsRequest(owner: "alice", set: OwnerSettings(heartRateZones: .maximumHeartRate(120)))
        #expect(try first.answer(.settings, set).ok)
        let shown = try ControlCodec.decode(SettingsReply.self, from: try second.answer(.settings, SettingsRequest(owner: "alice")).body)
        #expect(shown.heartRateZones.source == .maximumHeartRate, "\(shown.heartRateZones)")
        let reset = SettingsRequest(owner: "alice", unset: [.heartRateZones])
        let after = try ControlCodec.decode(SettingsReply.self, from: try second.answer(.settings, reset).body)
        #expect(after.heartRateZones.source == .configured && after.settings.heartRateZones == nil)
    }

    /// A control request that meets a deadlock with another transaction (here a raw session's,
    /// as another coordinator's turn would) is not refused: the turn it is in was rolled back to
    /// its savepoint while it kept the rows locked before it, so the whole turn is applied again
    /// and the request answered OK (seen in CI on 2026-12-03: ZONES answered "deadlock detected").
    /// The raw session waits for the turn's row second, with a `deadlock_timeout` longer than the
    /// coordinator's, so that PostgreSQL's check finds the cycle in the coordinator's wait.
    @Test func aControlRequestThatMeetsADeadlockIsAnsweredAfterTheTurnIsAppliedAgain() throws {
        let location = try DispatcherBench<PostgresIndexBackend>.newDatabase()
        var bench = try DispatcherBench<PostgresIndexBackend>(adjust: DispatcherReportTests.noBackoff, on: location, as: "first")
        let alice = try #require(try bench.queued(0..<1, owner: "alice").first)
        _ = try bench.queued(1..<2, owner: "bob")
        let job = try #require(jobs(bench.turn(workers: [ready([1], capacity: 2)])).first { $0.workoutID == alice })
        let zones = try bench.request(.zones, ZonesRequest(owner: "bob", add: .init(latitude: 10, longitude: 10, radius: 300)))

        // The raw session holds bob's owner_state row, then (once the turn waits for it) asks for
        // the row of alice's job, which the turn's report has locked.
        let locked = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let failure = FirstFailure()
        let lease = Int64(job.lease)
        Thread.detachNewThread {
            defer { finished.signal() }
            do {
                let raw = try PostgresSession.connect(to: location, name: "deadlocking", logger: Logger(label: "raw"))
                try raw.query("SET deadlock_timeout = '30s'", "")
                try raw.query("BEGIN", "")
                try raw.query("SELECT 1 FROM owner_state WHERE owner = 'bob' FOR UPDATE", "locking bob's row")
                locked.signal()
                let deadline = Date().addingTimeInterval(20)
                while try raw.query("SELECT count(*)::bigint FROM pg_locks WHERE NOT granted", "").first(where: { _ in true })?.decode(Int.self) == 0
                {
                    guard Date() < deadline else { throw IndexError(.failed, "the turn never waited for bob's row") }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                try raw.query("SELECT 1 FROM job WHERE lease_id = \(lease) FOR UPDATE", "locking alice's job")
                try raw.query("COMMIT", "")
            } catch {
                failure.set("\(error)")
                locked.signal()
            }
        }
        locked.wait()
        let outbox = bench.turn(workers: [([1], generated(job))], control: [zones])
        finished.wait()
        #expect(failure.value == nil, "\(failure.value ?? "")")
        let reply = try #require(outbox.control.first { $0.reply.id == zones.id }?.reply)
        #expect(reply.ok, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(try bench.statuses() == [.generated: 1, .pending: 1])
        let shown = try ControlCodec.decode(ZonesReply.self, from: try bench.answer(.zones, ZonesRequest(owner: "bob")).body)
        #expect(shown.zones.count == 1, "the zone is added once: \(shown.zones)")
    }
}

/// The first error a test's other thread met, if any.
private final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: String?
    var value: String? { lock.withLock { failure } }
    func set(_ message: String) { lock.withLock { failure = failure ?? message } }
}
