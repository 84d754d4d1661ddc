import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
@testable import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel

/// Imports and deletes on the PostgreSQL index give what they give on SQLite: the same replies,
/// the same stored workouts, the same counted workouts and summary buckets, the same tombstones,
/// step by step, over the rules of docs/import.md (new, kept richer, updated, read again by a
/// better reader, duplicate, replaced by a richer copy, refreshed, another owner, deleted and
/// imported again) in two time zones.
@Suite struct PostgresImportTests {
    enum Step {
        case importing(ImportedWorkout, owner: String, allowDuplicates: Bool = false)
        /// Deletes the workouts of these earlier steps' replies.
        case deleting([Int], owner: String?)
        /// Sets an owner's settings, then rebuilds every summary that waits.
        case setting(OwnerSettings, owner: String)
    }

    /// A run of `points` points and `samples` heart-rate samples, from a file named `file`.
    static func run(
        sourceID: String? = nil, file: String, points: Int = 10, samples: Int = 10, shift: Double = 0, start: TimeInterval = 1_700_000_000,
        zone: String? = "Europe/Berlin", name: String? = nil, content: String? = nil
    ) -> ImportedWorkout {
        let route = (0..<points).map { i in
            RoutePoint(
                latitude: 52.5 + Double(i) * 0.0005 + shift, longitude: 13.4, elevation: 30 + Double(i % 3),
                time: Date(timeIntervalSince1970: start + Double(i) * 10))
        }
        let heartRate = (0..<samples).map { HeartRateSample(time: Date(timeIntervalSince1970: start + Double($0) * 10), bpm: 120 + Double($0 * 5)) }
        var workout = ImportedWorkout(
            source: sourceID == nil ? .gpx : .tcx, sourceID: sourceID, activity: .running, name: name, route: Route(segments: [route]),
            heartRate: heartRate, origin: file,
            file: WorkoutFile(name: file, bytes: Array((content ?? "\(file) \(points) \(samples) \(shift)").utf8), format: "gpx"))
        workout.timeZone = zone
        return workout
    }

    static let steps: [Step] = [
        .importing(run(sourceID: "a", file: "hr.tcx"), owner: "anna"),
        .importing(run(sourceID: "a", file: "no-hr.tcx", samples: 0), owner: "anna"),
        .importing(run(sourceID: "a", file: "short.tcx", points: 8), owner: "anna"),
        .importing(run(sourceID: "a", file: "smoothed.tcx", shift: 0.00001, content: "smoothed"), owner: "anna"),
        .importing(run(sourceID: "a", file: "smoothed.tcx", points: 9, shift: 0.00001, content: "smoothed"), owner: "anna"),
        .importing(run(sourceID: "fit-1", file: "ride.fit", samples: 0, start: 1_700_100_000), owner: "anna"),
        .importing(run(file: "ride.gpx", shift: 0.00002, start: 1_700_100_030), owner: "anna"),
        .importing(run(file: "ride-2.gpx", samples: 0, shift: 0.00003, start: 1_700_100_020), owner: "anna"),
        .importing(run(file: "ride-2.gpx", samples: 0, shift: 0.00003, start: 1_700_100_020), owner: "anna", allowDuplicates: true),
        .importing(run(sourceID: "a", file: "smoothed.tcx", points: 9, shift: 0.00001, name: "Evening run", content: "smoothed"), owner: "anna"),
        .importing(run(file: "b.gpx", shift: 0.01, start: 1_702_000_000), owner: "anna"),
        .importing(run(file: "c.gpx", start: 1_700_000_000, zone: "America/New_York"), owner: "ben"),
        .importing(run(file: "d.gpx", samples: 0, start: 1_705_000_000, zone: "America/New_York"), owner: "ben"),
        .deleting([10, 11], owner: "anna"),
        .importing(run(file: "b.gpx", shift: 0.01, start: 1_702_000_000), owner: "anna"),
        .deleting([12], owner: nil),
        .setting(OwnerSettings(heartRateZones: .maximumHeartRate(190), timeZone: "Asia/Tokyo", firstWeekday: .sunday), owner: "anna"),
        .importing(run(file: "e.gpx", start: 1_703_000_000), owner: "anna"),
        .setting(OwnerSettings(), owner: "anna"),
    ]

    @Test func theSameImportsAndDeletesGiveWhatTheyGiveOnSQLite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-pg-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try WorkoutIndex(path: directory.appendingPathComponent("index.sqlite").path, logger: Logger(label: "test"))
        let fixture = try PostgresFixture()
        let session = try fixture.session("imports")
        defer { session.close() }

        var ids: [WorkoutID] = []
        var results: [ImportResult] = []
        for (number, step) in Self.steps.enumerated() {
            switch step {
            case .importing(let workout, let owner, let allowDuplicates):
                var replacedInSQLite: [String] = []
                var replacedInPostgres: [String] = []
                let expected = try sqlite.write {
                    try $0.importWorkout(workout, owner: owner, allowDuplicates: allowDuplicates, replacedFile: { replacedInSQLite.append($0) })
                }
                let reply = try session.transaction("importing") {
                    var transaction = PostgresTransaction(session: session)
                    let reply = try transaction.importWorkout(
                        workout, owner: owner, allowDuplicates: allowDuplicates, replacedFile: { replacedInPostgres.append($0) })
                    try transaction.finish()
                    return reply
                }
                #expect(reply == expected, "step \(number): \(workout.origin)")
                #expect(replacedInPostgres == replacedInSQLite, "step \(number)")
                ids.append(reply.id)
                results.append(reply.result)
            case .deleting(let steps, let owner):
                let chosen = steps.map { ids[$0] }
                let expected = try sqlite.write { try $0.delete(chosen, owner: owner) }
                let deleted = try session.transaction("deleting") {
                    var transaction = PostgresTransaction(session: session)
                    let deleted = try transaction.delete(chosen, owner: owner)
                    try transaction.finish()
                    return deleted
                }
                #expect(deleted.mapValues(Set.init) == expected.mapValues(Set.init), "step \(number)")
                #expect(!deleted.isEmpty)
                ids.append(chosen[0])
            case .setting(let settings, let owner):
                var sqliteScheduled: [String] = []
                try sqlite.write { transaction in
                    try transaction.setOwnerSettings(settings, owner: owner)
                    sqliteScheduled = try transaction.reader.summaryRebuilds().keys.sorted()
                }
                let scheduled = try session.transaction("setting") {
                    var transaction = PostgresTransaction(session: session)
                    try transaction.setOwnerSettings(settings, owner: owner)
                    let waiting = try transaction.firstRebuildingOwner()
                    try transaction.finish()
                    return waiting
                }
                #expect([scheduled].compactMap { $0 } == sqliteScheduled, "step \(number)")
                #expect(try PostgresWorkouts.settings(owner: owner, in: session) == sqlite.read { try $0.ownerSettings(owner: owner) })
                while try sqlite.write({ try $0.rebuildSummariesStep(limit: 2) }) != nil {}
                while try session.transaction(
                    "rebuilding",
                    {
                        var transaction = PostgresTransaction(session: session)
                        let step = try transaction.rebuildSummariesStep(limit: 2)
                        try transaction.finish()
                        return step
                    }) != nil
                {}
                ids.append(ids[0])
            }
        }
        // Every rule was taken at least once.
        #expect(
            results == [
                .imported, .keptRicher, .keptRicher, .updated, .updated, .imported, .replacedDuplicate, .duplicate, .imported, .refreshed, .imported,
                .imported, .imported, .imported, .imported,
            ])

        // The stored workouts, but for their anchors (each backend counts its own).
        let sqliteRecords = try sqlite.read { reader in try reader.workoutIDs(owner: "anna") + reader.workoutIDs(owner: "ben") }
        #expect(sqliteRecords.count == 6)
        for id in sqliteRecords {
            var expected = try #require(try sqlite.read { try $0.workout(id) })
            var stored = try #require(try PostgresWorkouts.record(id, in: session))
            expected.anchor = 0
            stored.anchor = 0
            #expect(stored == expected)
        }
        #expect(try PostgresWorkouts.count(owner: nil, in: session) == 6)

        // What the summaries counted, row by row.
        let contribution = "workout_id, owner, activity, local_day, \(SummaryRows.contributionColumns)"
        #expect(
            try postgresRows("SELECT \(contribution) FROM workout_summary ORDER BY workout_id", in: session)
                == sqliteRows("SELECT \(contribution) FROM workout_summary ORDER BY workout_id", in: sqlite))
        let buckets = "owner, period, start_day, activity, \(SummaryRows.bucketColumns)"
        let expectedBuckets = try sqliteRows("SELECT \(buckets) FROM summary_bucket ORDER BY owner, period, start_day, activity", in: sqlite)
        #expect(expectedBuckets.count > 20)
        #expect(try postgresRows("SELECT \(buckets) FROM summary_bucket ORDER BY owner, period, start_day, activity", in: session) == expectedBuckets)
        let owners = "owner, \(SummaryRows.ownerColumns)"
        #expect(
            try postgresRows("SELECT \(owners) FROM summary_owner ORDER BY owner", in: session)
                == sqliteRows("SELECT \(owners) FROM summary_owner ORDER BY owner", in: sqlite))
        #expect(
            try postgresRows("SELECT id, owner FROM deleted_workout ORDER BY id", in: session)
                == sqliteRows("SELECT id, owner FROM deleted_workout ORDER BY id", in: sqlite))
    }

    /// Rows as text, each value as SQLite shows it (a boolean as 0 or 1, a uuid in lower case).
    private func sqliteRows(_ sql: String, in index: WorkoutIndex) throws -> [[String]] {
        try index.read { reader in
            try Row.fetchAll(reader.db, sql: sql).map { row in row.databaseValues.map { Self.text($0) } }
        }
    }

    private func postgresRows(_ sql: String, in session: PostgresSession) throws -> [[String]] {
        try session.query(PostgresQuery(unsafeSQL: sql), "reading").map { row in
            try row.makeRandomAccess().map { cell in
                guard cell.bytes != nil else { return "NULL" }
                switch cell.dataType {
                case .bool: return try cell.decode(Bool.self) ? "1" : "0"
                case .int2, .int4, .int8: return String(try cell.decode(Int64.self))
                case .float8: return String(try cell.decode(Double.self))
                case .uuid: return try cell.decode(UUID.self).uuidString.lowercased()
                default: return try cell.decode(String.self)
                }
            }
        }
    }

    private static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): text
        case .blob(let bytes): "\(bytes.count) bytes"
        }
    }
}
