import Foundation
import Testing
@testable import WorkFeedCoordinator
@testable import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// The coordinator's IMPORT refuses a workout with no track and no figures by the rule the
/// gateway and workctl apply (``ImportedWorkout/emptiness``, docs/import.md "Nothing to show"),
/// for any client: ERROR `empty-workout` with the reason's code, nothing stored, no anchor
/// taken. Through the dispatcher, on a real index, without sockets.
@Suite struct EmptyImportTests {
    static func onePoint() -> ImportedWorkout {
        var workout = ImportedWorkout.twoPoint(7)
        workout.route = Route(segments: [Array(workout.route.segments[0].prefix(1))])
        workout.origin = "one.gpx"
        return workout
    }

    static func noPoints() -> ImportedWorkout {
        var workout = ImportedWorkout.twoPoint(8)
        workout.route = Route()
        workout.origin = "waypoints.gpx"
        return workout
    }

    @Test(arguments: [(onePoint(), EmptyWorkout.Code.onePoint), (noPoints(), EmptyWorkout.Code.noPoints)])
    func anEmptyWorkoutIsRefusedWithACodeAndNothingIsStored(workout: ImportedWorkout, code: EmptyWorkout.Code) throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        let anchor = bench.dispatcher.index.anchor
        let reply = try bench.answer(
            .importWorkout, ImportRequest(workout, owner: "alice"),
            attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        #expect(!reply.ok)
        let body = try ControlCodec.decode(ControlErrorBody.self, from: reply.body)
        #expect(body.code == .emptyWorkout && body.reason == code.rawValue)
        // For people: the file, what is missing, that nothing was stored.
        #expect(body.message.contains(workout.origin) && body.message.hasSuffix("not stored"), "\(body.message)")
        #expect(bench.dispatcher.index.anchor == anchor)
        #expect(try bench.dispatcher.index.read { try $0.feed(limit: 10, cursor: nil, owner: "alice") }.workouts.isEmpty)
    }

    /// Not a rule of the coordinator's own: the model's, so a workout with a figure goes in
    /// (a pool swim's distance without a position) while the same workout without it does not.
    @Test func aFigureIsEnoughAndTheRefusalTravelsAsACode() throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        var swim = Self.noPoints()
        swim.device = DeviceSummary(source: "TCX laps", distance: 1500, duration: 1530)
        #expect(swim.emptiness == nil)
        _ = try bench.importing(swim, owner: "alice")
        #expect(try bench.dispatcher.index.read { try $0.feed(limit: 10, cursor: nil, owner: "alice") }.workouts.count == 1)
        // The ERROR body as it goes on the wire: its code and reason, beside the message.
        let empty = try #require(Self.onePoint().emptiness)
        let refusal = ControlReply.error(id: 1, code: .emptyWorkout, reason: empty.code.rawValue, empty.description)
        let text = String(decoding: refusal.body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"code":"empty-workout","error":"#) && text.contains(#""reason":"one-point""#), "\(text)")
    }
}
