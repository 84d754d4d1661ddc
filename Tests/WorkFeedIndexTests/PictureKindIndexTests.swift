import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 27, goal 1: the index asks the picture kind what it needs (`PictureKind.needs`) instead
/// of naming `heatmap`, and "v14: picture kinds" keeps every heatmap wanted before it.
@Suite struct PictureKindIndexTests {
    /// `sampleWorkout` without heart rate.
    static func withoutHeartRate(sourceID: String, file: String) -> ImportedWorkout {
        var workout = sampleWorkout(sourceID: sourceID, file: file)
        workout.heartRate = []
        return workout
    }

    static func withoutHeartRateOrAltitude(sourceID: String, file: String) -> ImportedWorkout {
        var workout = withoutHeartRate(sourceID: sourceID, file: file)
        workout.route.segments = workout.route.segments.map { $0.map { RoutePoint(latitude: $0.latitude, longitude: $0.longitude, time: $0.time) } }
        return workout
    }

    static func wanted(_ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT kind, theme, scale, priority FROM picture_wanted ORDER BY kind, theme, scale").map {
            "\($0[0] as String) \($0[1] as String) \($0[2] as Int) \($0[3] as Int)"
        }
    }

    /// An index whose heatmaps were wanted under the old table (`heatmap_wanted`, v5) keeps each
    /// of them, with its priority, and a re-import that brings heart rate queues them.
    @Test func version14KeepsTheWantedHeatmapsOfAnOlderIndex() throws {
        // The workout as today's import stores it, copied into an index of schema v12.
        let current = try TemporaryIndex()
        let bare = try current.index.write { try $0.importWorkout(Self.withoutHeartRate(sourceID: "bare", file: "bare.gpx")) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try WorkoutIndex.migrator.migrate(queue, upTo: "v12: withdrawn pictures")
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS current", arguments: [current.path])
            for table in ["workout", "series"] {
                let columns = try db.columns(in: table, in: "main").map(\.name).joined(separator: ", ")
                try db.execute(sql: "INSERT INTO main.\(table) (\(columns)) SELECT \(columns) FROM current.\(table)")
            }
            try db.execute(sql: "DETACH DATABASE current")
            // Heatmaps asked at two priorities before v14: wishes in v5's table.
            for (theme, scale, priority) in [("light", 1, 7), ("light", 2, 7), ("dark", 1, 3)] {
                try db.execute(
                    sql: "INSERT INTO heatmap_wanted (workout_id, theme, scale, priority) VALUES (?, ?, ?, ?)",
                    arguments: [bare.id.description, theme, scale, priority])
            }
        }
        try queue.close()

        let reopened = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        #expect(try reopened.appliedMigrations().contains("v14: picture kinds"))
        #expect(try reopened.read { try Self.wanted($0.db) } == ["heatmap dark 1 3", "heatmap light 1 7", "heatmap light 2 7"])
        let tables = try reopened.read { try String.fetchAll($0.db, sql: "SELECT name FROM sqlite_master WHERE name = 'heatmap_wanted'") }
        #expect(tables.isEmpty)
        // Asking again keeps the higher priority of each.
        var request = EnqueueRequest(ids: [bare.id], kinds: [.heatmap], themes: [.light, .dark], scales: [1])
        request.priority = 5
        let reply = try reopened.write { try $0.enqueue(request, scales: [1], cacheKey: anyKey) }
        #expect(reply.created == 0 && reply.skippedNoHeartRate == 1)
        #expect(try reopened.read { try Self.wanted($0.db) } == ["heatmap dark 1 5", "heatmap light 1 7", "heatmap light 2 7"])

        // Heart rate arrives: the wishes become pending heatmaps at their priority.
        var richer = sampleWorkout(sourceID: "bare", file: "bare-hr.gpx")
        richer.heartRate = (0..<5).map { HeartRateSample(time: richer.route.segments[0][0].time!.addingTimeInterval(Double($0)), bpm: 130) }
        let updated = try reopened.write { try $0.importWorkout(richer) }
        #expect(updated.id == bare.id && updated.result == .updated)
        let heatmaps = try reopened.read { try $0.pictures(of: bare.id) }.filter { $0.picture.kind == .heatmap }
        #expect(heatmaps.count == 3 && heatmaps.allSatisfy { $0.status == .pending })
        #expect(try reopened.read { try Self.wanted($0.db) }.isEmpty)
        let priorities = try reopened.read { try Int.fetchAll($0.db, sql: "SELECT priority FROM job WHERE kind = 'heatmap' ORDER BY priority") }
        #expect(priorities == [5, 7, 7])
    }

    /// What the model says a workout has (`PictureInput.isPresent`) and what the index's SQL
    /// finds on its row (`PictureInput.workoutCondition`) agree, for every input and kind, on
    /// workouts with and without heart rate: the enqueue rules and the feed's `pictureKinds`
    /// cannot drift apart.
    @Test func theIndexAndTheModelAgreeOnWhatAWorkoutHas() throws {
        let temporary = try TemporaryIndex()
        let ids = try temporary.index.write { transaction in
            [
                try transaction.importWorkout(sampleWorkout(sourceID: "hr", file: "hr.gpx")).id,
                try transaction.importWorkout(Self.withoutHeartRateOrAltitude(sourceID: "none", file: "none.gpx")).id,
            ]
        }
        for input in PictureInput.allCases {
            // Only an input a workout may lack narrows the workouts offered a picture.
            #expect(input.isOptional == (input.workoutCondition != nil), "\(input)")
        }
        for id in ids {
            let record = try #require(try temporary.index.read { try $0.workout(id) })
            for kind in PictureKind.allCases {
                let condition = kind.workoutCondition ?? "1"
                let offered = try temporary.index.read {
                    try Bool.fetchOne($0.db, sql: "SELECT \(condition) FROM workout w WHERE w.id = ?", arguments: [id.description])
                }
                let optionalNeeds = kind.needs.filter(\.isOptional)
                #expect(offered == optionalNeeds.allSatisfy { $0.isPresent(in: record) }, "\(kind) of \(id)")
                #expect(kind.isPossible(for: record) == (offered == true && record.pointCount > 0), "\(kind) of \(id)")
            }
        }
        // The workout with everything gets every kind; the one without heart rate and altitudes
        // its route, pace and cards, and only wishes for its heatmap and elevation.
        let reply = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: ids, kinds: PictureKind.allCases, themes: [.light]), scales: [1], cacheKey: anyKey)
        }
        #expect(reply.created == 6 + 4 && reply.skippedNoHeartRate == 1)
        #expect(
            try temporary.index.read { try $0.pictures(of: ids[1]) }.map(\.picture.kind).sorted { $0.rawValue < $1.rawValue } == [
                .pace, .route, .share, .story,
            ])
        #expect(try temporary.index.read { try Self.wanted($0.db) } == ["elevation light 1 0", "heatmap light 1 0"])
    }
}
