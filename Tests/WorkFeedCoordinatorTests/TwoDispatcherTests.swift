import Foundation
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
        _ = try first.queued(0..<1, owner: "alice")
        let job = try #require(jobs(second.turn(workers: [ready([2], capacity: 1)])).first)
        let far = ZonesRequest(owner: "alice", add: .init(latitude: 10, longitude: 10, radius: 300))
        #expect(try first.answer(.zones, far).ok)

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
}
