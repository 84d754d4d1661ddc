import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// A fresh index file in its own temporary directory, removed afterwards.
final class TemporaryIndex {
    let directory: URL
    private var opened: WorkoutIndex?
    var index: WorkoutIndex { opened! }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        opened = try WorkoutIndex(path: directory.appendingPathComponent("index.sqlite").path, logger: Logger(label: "test"))
    }

    /// Closes the index and opens it again, as a restarted coordinator does (one writer at a time).
    func restart() throws -> WorkoutIndex {
        opened = nil
        opened = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        return index
    }

    var path: String { directory.appendingPathComponent("index.sqlite").path }

    /// Jobs ready to lease now.
    func ready() throws -> Int { try index.write { try $0.readyCount() } }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// A ten-point run. Workouts with different source ids start hours apart by default, so that
/// they are different activities, not duplicates of one. Without a source id, the workout comes
/// from a file named by `file`, whose content identifies it.
func sampleWorkout(sourceID: String? = "w-1", shift: Double = 0, start: TimeInterval? = nil, file: String = "test.gpx") -> ImportedWorkout {
    let start = start ?? 1_700_000_000 + Double((sourceID ?? file).utf8.reduce(0) { $0 + Int($1) }) * 3600
    let points = (0..<10).map { i in
        RoutePoint(
            latitude: 52.5 + Double(i) * 0.001 + shift, longitude: 13.4, elevation: 30, time: Date(timeIntervalSince1970: start + Double(i) * 10))
    }
    return ImportedWorkout(
        source: .gpx, sourceID: sourceID, activity: .running, route: Route(segments: [points]),
        heartRate: [HeartRateSample(time: Date(timeIntervalSince1970: start), bpm: 120)], origin: "test",
        file: WorkoutFile(name: file, bytes: Array(file.utf8), format: "gpx"))
}

func anyKey(_ picture: PictureID, _ inputs: PictureInputs) -> String {
    "\(picture.kind)-\(picture.theme)-\(inputs.routeHash.prefix(8))"
}

@Suite struct IndexTests {
    /// v16 fills in the boxes of the routes stored before it (docs/privacy.md, "Which pictures a
    /// zone changes"): a file as v15 left it (no box columns) is migrated with its workouts.
    @Test func v16FillsTheBoxesOfTheRoutesStoredBeforeIt() throws {
        let temporary = try TemporaryIndex()
        let workouts = [sampleWorkout(sourceID: "a"), sampleWorkout(sourceID: "b", shift: 0.5)]
        for workout in workouts { _ = try temporary.index.write { try $0.importWorkout(workout) } }
        try DatabaseQueue(path: temporary.path).write { db in
            for column in ["route_south", "route_west", "route_north", "route_east"] {
                try db.execute(sql: "ALTER TABLE workout DROP COLUMN \(column)")
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v16: route boxes'")
        }
        _ = try temporary.restart()
        let stored = try DatabaseQueue(path: temporary.path).read { db in
            try Row.fetchAll(db, sql: "SELECT source_id, route_south, route_west, route_north, route_east FROM workout ORDER BY source_id").map {
                row in (row[0] as String, RouteBounds(stored: row[1], row[2], row[3], row[4]))
            }
        }
        #expect(stored.map(\.0) == ["a", "b"])
        for (workout, (_, bounds)) in zip(workouts, stored) {
            #expect(bounds != nil && bounds == RouteBounds(encodedRoute: SeriesCodec.encode(workout.route)))
        }
    }

    @Test func migrationsCreateTheSchemaOnAnEmptyFileAndReopen() throws {
        let temporary = try TemporaryIndex()
        #expect(
            try temporary.index.appliedMigrations() == [
                "v1: workouts, series, jobs, anchors", "v2: lease deadlines", "v3: leases in memory", "v4: map coverage",
                "v5: workout files and identity", "v6: failure codes and deferrals", "v7: owners", "v8: privacy zones",
                "v9: owner settings",
                "v10: fair share and the queue at scale", "v11: workout time zones", "v12: withdrawn pictures", "v13: summaries",
                "v14: picture kinds", "v15: zone ids never reused", "v16: route boxes", "v17: removals that wait",
                "v18: replies kept for idempotency keys", "v19: start places", "v20: card figures",
            ])
        let reopened = try temporary.restart()
        #expect(try reopened.appliedMigrations().count == 20)
        let jobColumns = try DatabaseQueue(path: temporary.path).read { db in try db.columns(in: "job").map(\.name) }
        #expect(!jobColumns.contains { $0.hasPrefix("lease") })
        let tables = try DatabaseQueue(path: temporary.path).read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
        }
        #expect(
            tables == [
                "deleted_workout", "job", "job_count", "job_count_by_owner", "kept_reply", "meta", "owner_settings", "picture_wanted", "privacy_zone",
                "removal", "series", "summary_bucket", "summary_owner", "withdrawn_picture", "workout", "workout_summary",
            ])
    }

    /// The privacy secret is made once and kept: a new one would move every cut.
    @Test func thePrivacySecretIsMadeOnceAndSurvivesARestart() throws {
        let temporary = try TemporaryIndex()
        let first = try temporary.index.write { try $0.privacySecret() }
        #expect(first.count == 32)
        #expect(try temporary.index.write { try $0.privacySecret() } == first)
        let restarted = try temporary.restart()
        #expect(try restarted.write { try $0.privacySecret() } == first)
    }

    @Test func aFileThatIsNotAnIndexIsAClearError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        try Data("this is not sqlite, it is a text file that is long enough to have a header".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: IndexError.self) { try WorkoutIndex(path: path, logger: Logger(label: "test")) }
        // And it was left as it was.
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("this is not sqlite"))
    }

    /// Schema v11: the zone and its source are stored and read back; the same workout read again
    /// with them (as `workctl reimport` sends it) fills them into a row stored without them.
    @Test func aWorkoutsTimeZoneIsStoredAndFilledInByAReimport() throws {
        let temporary = try TemporaryIndex()
        var workout = sampleWorkout()
        workout.timeZoneOffset = nil
        let first = try temporary.index.write { try $0.importWorkout(workout) }
        var stored = try #require(try temporary.index.read { try $0.workout(first.id) })
        #expect(stored.timeZone == nil && stored.timeZoneSource == nil && stored.timeZoneOffset == nil)
        workout.timeZone = "Europe/Berlin"
        workout.timeZoneOffset = 7200
        workout.timeZoneSource = .position
        let again = try temporary.index.write { try $0.importWorkout(workout) }
        #expect(again.result == .refreshed && again.routeVersion == first.routeVersion)
        stored = try #require(try temporary.index.read { try $0.workout(first.id) })
        #expect(stored.timeZone == "Europe/Berlin" && stored.timeZoneSource == .position && stored.timeZoneOffset == 7200)
        #expect(try temporary.index.write { try $0.importWorkout(workout) }.result == .unchanged)
    }

    @Test func reImportStoresNothingTwice() throws {
        let temporary = try TemporaryIndex()
        let first = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        let second = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        #expect(first.result == .imported)
        #expect(second.result == .unchanged)
        #expect(second.id == first.id)
        let counts = try temporary.index.read { reader in
            (try reader.workoutCount(), try Int.fetchOne(reader.db, sql: "SELECT count(*) FROM series")!)
        }
        #expect(counts == (1, 1))
        // Without a source id, the file's content identifies the workout.
        let a = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: nil)) }
        let b = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: nil)) }
        #expect(a.result == .imported && b.result == .unchanged && a.id == b.id)
    }

    @Test func anIndexWithLeasesInItsJobRowsMigratesWithEveryJobKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        // An index as the previous release left it: one job generated, one leased, one failed.
        let old = try DatabaseQueue(path: path)
        try WorkoutIndex.migrator.migrate(old, upTo: "v2: lease deadlines")
        let id = WorkoutID(UUID()).description
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO workout (id, source, source_id, activity, distance, point_count, route_version, route_hash, hr_hash, anchor)
                    VALUES (?, 'gpx', 'old', 'running', 1000, 2, 1, 'r', 'h', 1);
                    INSERT INTO series (workout_id, route, heart_rate) VALUES (?, x'00', ?);
                    INSERT INTO job (workout_id, kind, theme, scale, status, cache_key, updated_at, anchor) VALUES (?, 'route', 'light', 1, 'generated', 'key', 0, 2);
                    INSERT INTO job (workout_id, kind, theme, scale, status, lease_id, leased_to, lease_deadline, updated_at, anchor)
                        VALUES (?, 'route', 'dark', 1, 'pending', 42, 'worker', 100, 0, 3);
                    INSERT INTO job (workout_id, kind, theme, scale, status, reason, updated_at, anchor) VALUES (?, 'heatmap', 'light', 1, 'failed-no-retry', 'no route', 0, 4);
                    """, arguments: [id, id, Data(SeriesCodec.encode([HeartRateSample(time: Date(), bpm: 100)])), id, id, id])
        }
        try old.close()

        let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        let pictures = try index.read { try $0.pictures(of: WorkoutID(id)!) }
        #expect(pictures.map(\.status) == [.failedNoRetry, .pending, .generated])
        #expect(pictures.map(\.cacheKey) == [nil, nil, "key"])
        #expect(pictures.first?.reason == "no route")
        // The job leased by the previous run is simply ready.
        #expect(try index.write { try $0.readyCount() } == 1)
    }

    @Test func aChangedRouteBumpsTheVersionAndRevivesEveryPicture() throws {
        let temporary = try TemporaryIndex()
        let id = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }.id
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
        }
        var leases: [UInt64] = []
        let jobs = try temporary.index.write { transaction in
            try transaction.lease(limit: 10, to: "w") {
                leases.append(UInt64(leases.count + 1))
                return UInt64(leases.count)
            }
        }
        #expect(jobs.count == 2)
        _ = try temporary.index.write { transaction in
            _ = try transaction.complete(
                JobReportRecord(lease: jobs[0].lease, outcome: .generated, detail: "k"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
            _ = try transaction.complete(
                JobReportRecord(lease: jobs[1].lease, outcome: .failedNoRetry, detail: "no route"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
        }
        let reply = try temporary.index.write { try $0.importWorkout(sampleWorkout(shift: 0.01)) }
        #expect(reply.result == .updated)
        #expect(reply.routeVersion == 2)
        #expect(reply.id == id)
        let pictures = try temporary.index.read { try $0.pictures(of: id) }
        #expect(pictures.map(\.status) == [.pending, .pending])
        #expect(pictures.allSatisfy { $0.reason == nil })
        #expect(try temporary.index.read { try $0.workout(id) }?.routeVersion == 2)
    }

    @Test func feedPagesNewestFirstWithACursor() throws {
        let temporary = try TemporaryIndex()
        for i in 0..<5 {
            _ = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "w\(i)", start: 1_700_000_000 + Double(i) * 86_400)) }
        }
        let first = try temporary.index.read { try $0.feed(limit: 2, cursor: nil) }
        #expect(first.workouts.map(\.sourceID) == ["w4", "w3"])
        let second = try temporary.index.read { try $0.feed(limit: 2, cursor: first.next) }
        #expect(second.workouts.map(\.sourceID) == ["w2", "w1"])
        let third = try temporary.index.read { try $0.feed(limit: 2, cursor: second.next) }
        #expect(third.workouts.map(\.sourceID) == ["w0"])
        #expect(third.next == nil)
        #expect(throws: IndexError.self) { try temporary.index.read { try $0.feed(limit: 2, cursor: "garbage") } }
    }

    @Test func deleteLeavesATombstoneAndChangesSinceTellsEverything() throws {
        let temporary = try TemporaryIndex()
        let a = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "a")) }.id
        let b = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "b")) }.id
        let afterImports = try temporary.index.read { try $0.currentAnchor() }
        #expect(try temporary.index.read { try $0.changes(since: 0, limit: 10) }.changes.map(\.change) == [.workout, .workout])

        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: [a], kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        let deleted = try temporary.index.write { try $0.delete([b, WorkoutID(UUID())]) }
        #expect(deleted.keys.sorted() == [b])
        #expect(try temporary.index.read { try $0.workout(b) } == nil)
        #expect(try temporary.index.read { try $0.series(of: b) } == nil)

        let since = try temporary.index.read { try $0.changes(since: afterImports, limit: 10) }
        #expect(since.changes.map(\.id) == [a, b])
        #expect(since.changes.map(\.change) == [.pictures, .deleted])
        #expect(!since.more)
        // Paging: one at a time, resuming from the last anchor seen.
        let first = try temporary.index.read { try $0.changes(since: afterImports, limit: 1) }
        #expect(first.changes.count == 1 && first.more)
        let rest = try temporary.index.read { try $0.changes(since: first.changes[0].anchor, limit: 1) }
        #expect(rest.changes.map(\.change) == [.deleted])

        // Importing it again brings it back under the same id, and the tombstone goes.
        let back = try temporary.index.write { try $0.importWorkout(sampleWorkout(sourceID: "b")) }
        #expect(back.id == b && back.result == .imported)
        let latest = try temporary.index.read { try $0.changes(since: afterImports, limit: 10) }
        #expect(!latest.changes.contains { $0.change == .deleted })
    }

    @Test func retryRevivesFailedPicturesOnlyWhenAsked() throws {
        let temporary = try TemporaryIndex()
        _ = try temporary.index.write { try $0.importWorkout(sampleWorkout()) }
        _ = try temporary.index.write { try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey) }
        var counter: UInt64 = 0
        let jobs = try temporary.index.write { tx in
            try tx.lease(limit: 1, to: "w") {
                counter += 1; return counter
            }
        }
        _ = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: jobs[0].lease, outcome: .failedNoRetry, detail: "no route"), from: "w", retry: RetryPolicy(), cacheKey: anyKey)
        }
        let plain = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: anyKey)
        }
        #expect(plain.failed == 1 && plain.revived == 0)
        let retried = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], includeFailed: true), scales: [1], cacheKey: anyKey)
        }
        #expect(retried.revived == 1 && retried.failed == 0)
        #expect(try temporary.ready() == 1)
    }
}
