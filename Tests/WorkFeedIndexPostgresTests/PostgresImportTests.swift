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
        .setting(
            OwnerSettings(heartRateZones: .maximumHeartRate(190), timeZone: "Asia/Tokyo", firstWeekday: .sunday, cardFigures: [.climb, .distance]),
            owner: "anna"),
        .importing(run(file: "e.gpx", start: 1_703_000_000), owner: "anna"),
        .setting(OwnerSettings(), owner: "anna"),
    ]

    @Test func theSameImportsAndDeletesGiveWhatTheyGiveOnSQLite() throws {
        let both = try BothIndexes("imports")
        let (sqlite, session) = (both.sqlite, both.session)

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
                let reply = try both.postgres {
                    try $0.importWorkout(workout, owner: owner, allowDuplicates: allowDuplicates, replacedFile: { replacedInPostgres.append($0) })
                }
                #expect(reply == expected, "step \(number): \(workout.origin)")
                #expect(replacedInPostgres == replacedInSQLite, "step \(number)")
                ids.append(reply.id)
                results.append(reply.result)
            case .deleting(let steps, let owner):
                let chosen = steps.map { ids[$0] }
                let expected = try sqlite.write { try $0.delete(chosen, owner: owner) }
                let deleted = try both.postgres { try $0.delete(chosen, owner: owner) }
                #expect(deleted.mapValues(Set.init) == expected.mapValues(Set.init), "step \(number)")
                #expect(!deleted.isEmpty)
                ids.append(chosen[0])
            case .setting(let settings, let owner):
                var sqliteScheduled: [String] = []
                try sqlite.write { transaction in
                    try transaction.setOwnerSettings(settings, owner: owner)
                    sqliteScheduled = try transaction.reader.summaryRebuilds().keys.sorted()
                }
                let scheduled = try both.postgres { transaction in
                    try transaction.setOwnerSettings(settings, owner: owner)
                    return try transaction.firstRebuildingOwner(after: nil)
                }
                #expect([scheduled].compactMap { $0 } == sqliteScheduled, "step \(number)")
                #expect(try PostgresWorkouts.settings(owner: owner, in: session) == sqlite.read { try $0.ownerSettings(owner: owner) })
                while try sqlite.write({ try $0.rebuildSummariesStep(limit: 2) }) != nil {}
                while try both.postgres({ try $0.rebuildSummariesStep(limit: 2) }) != nil {}
                ids.append(ids[0])
            }
        }
        // Every rule was taken at least once.
        #expect(
            results == [
                .imported, .keptRicher, .keptRicher, .updated, .updated, .imported, .replacedDuplicate, .duplicate, .imported, .refreshed, .imported,
                .imported, .imported, .imported, .imported,
            ])

        #expect(try both.everyChangeHasItsOwnAnchor())

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
            try both.postgresRows("SELECT \(contribution) FROM workout_summary ORDER BY workout_id")
                == both.sqliteRows("SELECT \(contribution) FROM workout_summary ORDER BY workout_id"))
        let buckets = "owner, period, start_day, activity, \(SummaryRows.bucketColumns)"
        let expectedBuckets = try both.sqliteRows("SELECT \(buckets) FROM summary_bucket ORDER BY owner, period, start_day, activity")
        #expect(expectedBuckets.count > 20)
        #expect(try both.postgresRows("SELECT \(buckets) FROM summary_bucket ORDER BY owner, period, start_day, activity") == expectedBuckets)
        let owners = "owner, \(SummaryRows.ownerColumns)"
        #expect(
            try both.postgresRows("SELECT \(owners) FROM summary_owner ORDER BY owner")
                == both.sqliteRows("SELECT \(owners) FROM summary_owner ORDER BY owner"))
        #expect(
            try both.postgresRows("SELECT id, owner FROM deleted_workout ORDER BY id")
                == both.sqliteRows("SELECT id, owner FROM deleted_workout ORDER BY id"))
    }
}
