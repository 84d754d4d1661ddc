import Foundation
import Testing
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Issue 25: `workctl delete --owner` of 5,002 workouts answered "no reply within 15 s" though
/// the delete went on. A long delete is done in steps of ``deleteStep`` workouts, each step
/// reported to a client that asked (PROGRESS replies), and the client's timeout is one of silence
/// between reports, not of the whole delete.
@Suite(.serialized) struct LongDeleteTests {
    /// Workouts a step deletes (Dispatcher.deleteStep).
    static let deleteStep = 250

    /// Imports `count` made-up workouts for `owner`, each with its route pictures queued.
    static func importWorkouts(_ range: Range<Int>, owner: String, client: inout ControlClient) throws {
        for number in range {
            let workout = ImportedWorkout.twoPoint(number)
            let _: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout, owner: owner),
                attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        }
        let enqueue = EnqueueRequest(ids: nil, kinds: [.route], themes: Theme.shipped, scales: [1, 2])
        let _: EnqueueReply = try client.request(.enqueue, enqueue)
    }

    @Test func workctlDeletesThousandsOfWorkoutsWithProgressAndNoTimeout() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let leaving = 2_600
        try Self.importWorkouts(0..<leaving, owner: "leaving", client: &client)
        try Self.importWorkouts(leaving..<leaving + 3, owner: "staying", client: &client)
        let zone = ZonesRequest(owner: "leaving", add: .init(latitude: 52.05, longitude: 4.05, radius: 300))
        let _: ZonesReply = try client.request(.zones, zone)

        // The real workctl. Its timeout is one of silence between reports (SocketTests pins that
        // on a socket, where the time between reports is the test's own): here, where a step of a
        // debug build on a loaded machine once took longer than 2 s (stop 42), it is long enough
        // for any step and the delete is done in steps all the same (the test below).
        let started = ContinuousClock.now
        let result = try WorkCtlProcess.run(["delete", "--owner", "leaving", "--timeout", "15", "--coordinator", system.endpoints.control])
        let took = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("deleted 2,600 workouts of owner leaving: 2600 series, 10,400 picture jobs"), "\(result.output)")
        #expect(!result.errors.contains("no reply"), "\(result.errors)")
        // Progress on standard error, as the other long commands print it (plain lines off a terminal).
        #expect(result.errors.contains("progress: 2,600/2,600 workouts done (100%)"), "\(result.errors)")
        print("workctl delete --owner of \(leaving) workouts (steps of \(Self.deleteStep)) took \(took)")

        // Everything of the owner is gone, zones too; the other owner is untouched.
        let status: StatusReply = try client.request(.status, StatusRequest(owner: "leaving"))
        #expect(status.workouts == 0)
        let zones: ZonesReply = try client.request(.zones, ZonesRequest(owner: "leaving"))
        #expect(zones.zones.isEmpty)
        let staying: StatusReply = try client.request(.status, StatusRequest(owner: "staying"))
        #expect(staying.workouts == 3)
    }

    @Test func eachStepIsReportedAndTheTimeoutIsOneOfSilence() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let count = 4 * Self.deleteStep + 10
        try Self.importWorkouts(0..<count, owner: "leaving", client: &client)

        var reports: [ControlProgress] = []
        let reply: DeleteReply = try client.request(.delete, DeleteRequest(ids: nil, owner: "leaving", progress: true), as: DeleteReply.self) {
            reports.append($0)
        }
        #expect(reply.deleted.count == count && reply.missing.isEmpty)
        // A report after every step but the last, counting up to the total.
        #expect(reports.map(\.done) == [1, 2, 3, 4].map { $0 * Self.deleteStep })
        #expect(reports.allSatisfy { $0.total == count && $0.unit == "workouts" })

        // Given ids are deleted in steps too; the unknown ones are missing, in order.
        try Self.importWorkouts(count..<count + Self.deleteStep + 5, owner: "again", client: &client)
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 1000, owner: "again"))
        let unknown = WorkoutID(UUID())
        let ids = feed.items.map(\.workout.id) + [unknown]
        reports = []
        let byID: DeleteReply = try client.request(.delete, DeleteRequest(ids: ids, progress: true), as: DeleteReply.self) {
            reports.append($0)
        }
        #expect(Set(byID.deleted) == Set(ids.dropLast()) && byID.missing == [unknown])
        #expect(reports.map(\.done) == [Self.deleteStep])

        // Without progress asked for, none is sent (an older client could not read it), and the
        // answer is the same.
        try Self.importWorkouts(0..<Self.deleteStep + 1, owner: "quiet", client: &client)
        let quiet: DeleteReply = try client.request(.delete, DeleteRequest(ids: nil, owner: "quiet"))
        #expect(quiet.deleted.count == Self.deleteStep + 1)
    }
}
