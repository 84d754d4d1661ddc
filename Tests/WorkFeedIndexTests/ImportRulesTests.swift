import Foundation
import GRDB
import Logging
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// The rules of a re-import (docs/import.md, "Identity and re-import"), on a real index file:
/// identity, the richer-copy rule, duplicates, heatmaps only for heart rate, and schema v5.
@Suite struct ImportRulesTests {
    /// A run of `points` points and `samples` heart-rate samples, from a file named `file`.
    func run(
        sourceID: String? = nil, file: String = "run.gpx", points: Int = 10, samples: Int = 10, shift: Double = 0,
        start: TimeInterval = 1_700_000_000
    ) -> ImportedWorkout {
        let route = (0..<points).map { i in
            RoutePoint(
                latitude: 52.5 + Double(i) * 0.0005 + shift, longitude: 13.4, elevation: 30, time: Date(timeIntervalSince1970: start + Double(i) * 10)
            )
        }
        let heartRate = (0..<samples).map { HeartRateSample(time: Date(timeIntervalSince1970: start + Double($0) * 10), bpm: 120 + Double($0)) }
        return ImportedWorkout(
            source: sourceID == nil ? .gpx : .tcx, sourceID: sourceID, activity: .running, route: Route(segments: [route]), heartRate: heartRate,
            origin: file, file: WorkoutFile(name: file, bytes: Array("\(file) \(points) \(samples) \(shift)".utf8), format: "gpx"))
    }

    @Test func aPoorerCopyDoesNotReplaceARicherOne() throws {
        let temporary = try TemporaryIndex()
        let rich = try temporary.index.write { try $0.importWorkout(run(sourceID: "a", file: "hr.tcx")) }
        let poor = try temporary.index.write { try $0.importWorkout(run(sourceID: "a", file: "no-hr.tcx", samples: 0)) }
        #expect(poor.result == .keptRicher && poor.id == rich.id && poor.routeVersion == 1)
        #expect(poor.reason == "this copy has no heart rate (stored: 10 samples)")
        let fewer = try temporary.index.write { try $0.importWorkout(run(sourceID: "a", file: "short.tcx", points: 8)) }
        #expect(fewer.result == .keptRicher && fewer.reason?.contains("8 points (stored: 10)") == true)
        let stored = try #require(try temporary.index.read { try $0.workout(rich.id) })
        #expect(stored.heartRateSamples == 10 && stored.pointCount == 10 && stored.file?.name == "hr.tcx")

        // A genuinely new version (a smoothed route under the same id, nothing less) replaces it.
        let smoothed = try temporary.index.write { try $0.importWorkout(run(sourceID: "a", file: "smoothed.tcx", shift: 0.00001)) }
        #expect(smoothed.result == .updated && smoothed.routeVersion == 2)
        // The same file read again by a better reader is taken as it comes, even with less.
        var reread = run(sourceID: "a", file: "smoothed.tcx", shift: 0.00001)
        reread.route = Route(segments: [Array(reread.route.segments[0].prefix(9))])
        let again = try temporary.index.write { try $0.importWorkout(reread) }
        #expect(again.result == .updated && again.routeVersion == 3)
    }

    @Test func theSameActivityFromAnotherFileIsADuplicate() throws {
        let temporary = try TemporaryIndex()
        let fit = try temporary.index.write { try $0.importWorkout(run(sourceID: "fit-1", file: "ride.fit")) }
        // Another file (no source id), 30 s later, on the same way.
        let gpx = try temporary.index.write { try $0.importWorkout(run(file: "ride.gpx", shift: 0.00002, start: 1_700_000_030)) }
        #expect(gpx.result == .duplicate && gpx.duplicateOf == fit.id && gpx.duplicateFile == "ride.fit")
        #expect(try temporary.index.read { try $0.workoutCount() } == 1)
        // Elsewhere, or more than a minute apart: not the same activity.
        #expect(try temporary.index.write { try $0.importWorkout(run(file: "b.gpx", shift: 0.01, start: 1_700_000_030)) }.result == .imported)
        #expect(try temporary.index.write { try $0.importWorkout(run(file: "c.gpx", start: 1_700_000_060)) }.result == .imported)
        // Asked for: kept apart.
        let kept = try temporary.index.write {
            try $0.importWorkout(run(file: "ride.gpx", shift: 0.00002, start: 1_700_000_030), allowDuplicates: true)
        }
        #expect(kept.result == .imported)
        #expect(try temporary.index.read { try $0.workoutCount() } == 4)
    }

    @Test func aClearlyRicherDuplicateTakesThePlaceOfThePoorerCopy() throws {
        let temporary = try TemporaryIndex()
        let poor = try temporary.index.write { try $0.importWorkout(run(file: "two.gpx", points: 2, samples: 0)) }
        let rich = try temporary.index.write { try $0.importWorkout(run(file: "full.gpx", points: 20, samples: 0, start: 1_700_000_020)) }
        #expect(rich.result == .replacedDuplicate && rich.id == poor.id && rich.routeVersion == 2)
        #expect(rich.duplicateFile == "two.gpx")
        #expect(try temporary.index.read { try $0.workout(poor.id) }?.file?.name == "full.gpx")
        // Both files imported again change nothing.
        let anchor = try temporary.index.read { try $0.currentAnchor() }
        #expect(try temporary.index.write { try $0.importWorkout(run(file: "two.gpx", points: 2, samples: 0)) }.result == .duplicate)
        #expect(
            try temporary.index.write { try $0.importWorkout(run(file: "full.gpx", points: 20, samples: 0, start: 1_700_000_020)) }.result
                == .unchanged)
        #expect(try temporary.index.read { try $0.currentAnchor() } == anchor)
        // Kept apart on request, the poorer copy gets an id of its own.
        let apart = try temporary.index.write { try $0.importWorkout(run(file: "two.gpx", points: 2, samples: 0), allowDuplicates: true) }
        #expect(apart.result == .imported && apart.id != poor.id)
    }

    /// Issue 24, part 3: a heart-rate reading of 0 is no reading. A workout sent with only 0s
    /// (as OpenTracks writes without a sensor) has no heart rate and gets no heatmap; 0s among
    /// readings are neither stored nor averaged.
    @Test func zeroHeartRateReadingsAreNoReadings() throws {
        let temporary = try TemporaryIndex()
        var zeros = sampleWorkout(sourceID: "zeros")
        zeros.heartRate = (0..<5).map { HeartRateSample(time: Date(timeIntervalSince1970: 1_700_000_000 + Double($0)), bpm: 0) }
        var mixed = sampleWorkout(sourceID: "mixed")
        mixed.heartRate = [0, 120, 0, 140].enumerated().map {
            HeartRateSample(time: Date(timeIntervalSince1970: 1_700_000_000 + Double($0.offset)), bpm: Double($0.element))
        }
        let none = try temporary.index.write { try $0.importWorkout(zeros) }
        let some = try temporary.index.write { try $0.importWorkout(mixed) }
        let reply = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.heatmap], themes: [.light]), scales: [1], cacheKey: anyKey)
        }
        #expect(reply.created == 1 && reply.skippedNoHeartRate == 1)
        let stored = try #require(try temporary.index.read { try $0.workout(none.id) })
        #expect(stored.heartRateSamples == 0 && stored.heartRateAverage == nil && stored.heartRateMax == nil)
        let other = try #require(try temporary.index.read { try $0.workout(some.id) })
        #expect(other.heartRateSamples == 2 && other.heartRateAverage == 130 && other.heartRateMax == 140)
    }

    /// Finding 9 (index side): heatmaps are queued only for workouts with heart rate; the others
    /// are counted and remembered, and a re-import that brings heart rate queues them.
    @Test func heatmapsOnlyForWorkoutsWithHeartRate() throws {
        let temporary = try TemporaryIndex()
        let without = try temporary.index.write { try $0.importWorkout(run(sourceID: "x", file: "no-hr.tcx", samples: 0)) }
        _ = try temporary.index.write { try $0.importWorkout(run(sourceID: "y", file: "hr.tcx", start: 1_700_100_000)) }
        let reply = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]), scales: [1], cacheKey: anyKey)
        }
        #expect(reply.created == 6 && reply.skippedNoHeartRate == 1)
        #expect(try temporary.index.read { try $0.pictures(of: without.id) }.map(\.picture.kind) == [.route, .route])
        let updated = try temporary.index.write { try $0.importWorkout(run(sourceID: "x", file: "hr.tcx")) }
        #expect(updated.result == .updated)
        let pictures = try temporary.index.read { try $0.pictures(of: without.id) }
        #expect(pictures.filter { $0.picture.kind == .heatmap }.map(\.status) == [.pending, .pending])
    }

    @Test func prefixesFindWorkouts() throws {
        let temporary = try TemporaryIndex()
        // Two source ids whose workout ids share their first four hex digits.
        var seen: [String: String] = [:]
        var pair: (String, String)?
        for number in 0..<5000 where pair == nil {
            let id = WorkoutIdentity(owner: Owner.defaultName, source: .tcx, sourceID: "p\(number)").workoutID.description
            if let other = seen[String(id.prefix(4))] { pair = (other, "p\(number)") } else { seen[String(id.prefix(4))] = "p\(number)" }
        }
        let (a, b) = try #require(pair)
        let first = try temporary.index.write { try $0.importWorkout(run(sourceID: a, start: 1_700_000_000)) }.id
        let second = try temporary.index.write { try $0.importWorkout(run(sourceID: b, start: 1_800_000_000)) }.id
        let shared = String(first.description.prefix(4))
        #expect(try temporary.index.read { try $0.workouts(withPrefix: shared, limit: 10) }.sorted() == [first, second].sorted())
        #expect(try temporary.index.read { try $0.workouts(withPrefix: String(first.description.prefix(13)), limit: 10) } == [first])
        // Without hyphens, and in upper case, the same.
        let compact = first.description.replacingOccurrences(of: "-", with: "").prefix(14).uppercased()
        #expect(try temporary.index.read { try $0.workouts(withPrefix: String(compact), limit: 10) } == [first])
        #expect(try temporary.index.read { try $0.workouts(withPrefix: "ffffffffff", limit: 10) }.allSatisfy { $0 != first })
    }

    /// A workout imported before files were remembered (identified by the hash of its series) is
    /// found again by the same content, takes the file's identity, and keeps its id.
    @Test func aWorkoutFromBeforeFilesWereRememberedIsFoundAgain() throws {
        let temporary = try TemporaryIndex()
        var workout = run(file: "old.gpx")
        let legacy = "sha256:" + SHA256.hex(SeriesCodec.encode(workout.route) + SeriesCodec.encode(workout.heartRate))
        workout.sourceID = legacy
        workout.file = nil
        let old = try temporary.index.write { try $0.importWorkout(workout) }
        let again = try temporary.index.write { try $0.importWorkout(run(file: "old.gpx")) }
        #expect(again.result == .refreshed && again.id == old.id && again.routeVersion == 1)
        let stored = try #require(try temporary.index.read { try $0.workout(old.id) })
        #expect(stored.file?.name == "old.gpx" && stored.sourceID.hasPrefix("sha256:") && stored.sourceID != legacy)
        #expect(try temporary.index.write { try $0.importWorkout(run(file: "old.gpx")) }.result == .unchanged)
    }

    /// Schema v5 on an index the v4 schema created: every row, series and job is kept, the
    /// heart-rate sample counts are filled in, and a heatmap of a workout without heart rate (it
    /// could only fail) becomes a wish that a re-import with heart rate turns into a job.
    @Test func version5MigratesAVersion4IndexWithoutLosingData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let old = try DatabaseQueue(path: path)
        try WorkoutIndex.migrator.migrate(old, upTo: "v4: map coverage")
        let withHR = WorkoutIdentity(owner: Owner.defaultName, source: .gpx, sourceID: "sha256:with").workoutID.description
        let noHR = WorkoutIdentity(owner: Owner.defaultName, source: .gpx, sourceID: "sha256:without").workoutID.description
        let route = Data(SeriesCodec.encode(Route(segments: [[RoutePoint(latitude: 1, longitude: 2), RoutePoint(latitude: 1.001, longitude: 2)]])))
        let samples = Data(SeriesCodec.encode((0..<3).map { HeartRateSample(time: Date(timeIntervalSince1970: Double($0)), bpm: 100) }))
        try old.write { db in
            for (id, source, heartRate, start) in [
                (withHR, "sha256:with", samples, 1000.5), (noHR, "sha256:without", Data(SeriesCodec.encode([])), 2000.25),
            ] {
                try db.execute(
                    sql: """
                        INSERT INTO workout (id, source, source_id, activity, start_at, distance, point_count, route_version, route_hash, hr_hash, anchor)
                        VALUES (?, 'gpx', ?, 'running', ?, 111, 2, 3, 'r', 'h', 1)
                        """, arguments: [id, source, start])
                try db.execute(sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)", arguments: [id, route, heartRate])
                for kind in ["route", "heatmap"] {
                    try db.execute(
                        sql:
                            "INSERT INTO job (workout_id, kind, theme, scale, status, reason, updated_at, anchor, map) VALUES (?, ?, 'light', 1, ?, ?, 0, 2, ?)",
                        arguments: [
                            id, kind, kind == "heatmap" && id == noHR ? "failed-no-retry" : "generated",
                            kind == "heatmap" && id == noHR ? "no heart-rate samples" : nil, "full",
                        ])
                }
            }
        }
        try old.close()

        let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        #expect(try index.appliedMigrations().contains("v7: owners"))
        let a = try #require(try index.read { try $0.workout(WorkoutID(withHR)!) })
        let b = try #require(try index.read { try $0.workout(WorkoutID(noHR)!) })
        #expect(a.heartRateSamples == 3 && b.heartRateSamples == 0)
        #expect(a.routeVersion == 3 && a.distance == 111 && a.start == Date(timeIntervalSince1970: 1000.5) && a.file == nil)
        #expect(try index.read { try $0.series(of: WorkoutID(withHR)!) }?.route == Array(route))
        #expect(try index.read { try $0.pictures(of: WorkoutID(withHR)!) }.map(\.status) == [.generated, .generated])
        // The no-heart-rate heatmap is no longer a failure; the route picture is kept as it was.
        #expect(try index.read { try $0.pictures(of: WorkoutID(noHR)!) }.map(\.picture.kind) == [.route])
        #expect(try index.read { try $0.failedCount() } == 0)
        #expect(try index.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM picture_wanted WHERE kind = 'heatmap'") } == 1)
    }
}
