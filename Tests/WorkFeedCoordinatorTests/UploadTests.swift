import Foundation
import Testing
@testable import WorkFeedCoordinator
@testable import WorkFeedIndex
import WorkFeedConfig
import WorkFeedModel
import WorkFeedWire

/// UPLOAD, the gateway's upload as one unit (issue 37, item 2): it was an IMPORT for each of a
/// file's workouts, an ENQUEUE and a SHOW for each, so a coordinator that stalled after the first
/// kept the workout while the app was told 503. Through the dispatcher, on a real index.
@Suite struct UploadTests {
    static func attachments(_ workouts: [ImportedWorkout]) -> [[UInt8]] {
        workouts.flatMap { [SeriesCodec.encode($0.route), SeriesCodec.encode($0.heartRate)] }
    }

    static func upload(_ workouts: [ImportedWorkout]) -> UploadRequest {
        UploadRequest(
            workouts: workouts.map { ImportRequest($0, owner: "alice") }, hasOriginal: false, kinds: [.route], scales: [1, 2],
            priority: EnqueueRequest.interactivePriority, owner: "alice")
    }

    @Test func anUploadAnswersEachWorkoutAsTheFeedShowsItWithItsPicturesRequested() throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        let workouts = [ImportedWorkout.twoPoint(1), .twoPoint(2)]
        let reply = try bench.answer(.upload, Self.upload(workouts), attachments: Self.attachments(workouts))
        #expect(reply.ok, "\(String(decoding: reply.body, as: UTF8.self))")
        let answered = try ControlCodec.decode(UploadReply.self, from: reply.body).workouts
        #expect(answered.map(\.imported.result) == [.imported, .imported])
        #expect(answered.map(\.item.id) == answered.map(\.imported.id))
        let themes = CoordinatorConfiguration.defaults.themes
        for workout in answered {
            // Every theme the coordinator draws, at both scales, requested in the same transaction.
            #expect(workout.item.pictures.count == themes.count * 2, "\(workout.item.pictures)")
            #expect(workout.item.pictures.allSatisfy { $0.kind == .route && $0.status == .pending })
        }
        let feed = try bench.dispatcher.index.read { try $0.feed(limit: 10, cursor: nil, owner: "alice") }.workouts
        #expect(Set(feed.map(\.id)) == Set(answered.map(\.item.id)))

        // The same file again: unchanged, answered with the stored workouts, nothing requested again.
        let again = try bench.answer(.upload, Self.upload(workouts), attachments: Self.attachments(workouts))
        let twice = try ControlCodec.decode(UploadReply.self, from: again.body).workouts
        #expect(twice.map(\.imported.result) == [.unchanged, .unchanged])
        #expect(twice.map(\.item.id) == answered.map(\.item.id))
        #expect(twice.map(\.item.pictures) == answered.map(\.item.pictures))
    }

    /// A file whose second workout cannot be stored keeps neither: the first was stored before.
    @Test func anUploadIsKeptWholeOrNotAtAll() throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        let anchor = bench.dispatcher.index.anchor
        let workouts = [ImportedWorkout.twoPoint(3), .twoPoint(4)]
        var attachments = Self.attachments(workouts)
        attachments[2] = Array("not a route series".utf8)
        let reply = try bench.answer(.upload, Self.upload(workouts), attachments: attachments)
        #expect(!reply.ok)
        let body = try ControlCodec.decode(ControlErrorBody.self, from: reply.body)
        #expect(body.message.contains(workouts[1].origin), "\(body.message)")
        #expect(bench.dispatcher.index.anchor == anchor)
        #expect(try bench.dispatcher.index.read { try $0.feed(limit: 10, cursor: nil, owner: "alice") }.workouts.isEmpty)
        #expect(try bench.dispatcher.index.read { try $0.statusCounts(owner: "alice") }.reduce(0) { $0 + $1.count } == 0)

        // Attachments that do not match the workouts: refused, naming what was expected.
        let short = try bench.answer(.upload, Self.upload(workouts), attachments: Array(Self.attachments(workouts).prefix(3)))
        #expect(!short.ok && String(decoding: short.body, as: UTF8.self).contains("needs 4 attachment frames, got 3"))
    }
}
