import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
@testable import WorkFeedIndex
@testable import WorkFeedIndexPostgres
import WorkFeedModel

/// ENQUEUE on the PostgreSQL index gives what it gives on SQLite, request by request: jobs
/// created, pictures of workouts without heart rate remembered, stale and current generated
/// pictures, failures left or revived by code, interactive requests raised and bounded per owner;
/// the same replies and the same job and wanted-picture rows.
@Suite struct PostgresEnqueueTests {
    static func light(_ kinds: [PictureKind] = [.route]) -> EnqueueRequest { EnqueueRequest(ids: nil, kinds: kinds, themes: [.light]) }

    @Test func theSameRequestsGiveWhatTheyGiveOnSQLite() throws {
        let both = try BothIndexes("enqueue")
        let (sqlite, session) = (both.sqlite, both.session)

        var ids: [WorkoutID] = []
        for number in 0..<8 {
            let owner = number < 6 ? "anna" : "ben"
            let workout = PostgresImportTests.run(
                file: "run-\(number).gpx", samples: number % 3 == 0 ? 0 : 10, start: 1_700_000_000 + Double(number) * 86_400)
            ids.append(try sqlite.write { try $0.importWorkout(workout, owner: owner) }.id)
            _ = try both.postgres { try $0.importWorkout(workout, owner: owner) }
        }
        func key(_ picture: PictureID, _ inputs: PictureInputs) -> String {
            picture.scale == 1 ? "key-\(inputs.routeHash.prefix(8))" : "new-\(inputs.routeHash.prefix(8))"
        }
        var codes = EnqueueRequest(ids: nil, kinds: [.route], themes: [.dark], includeFailed: true)
        codes.reasonCodes = ["render-failed"]
        var ranged = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1])
        ranged.since = Date(timeIntervalSince1970: 1_700_000_000 + 2 * 86_400)
        ranged.until = Date(timeIntervalSince1970: 1_700_000_000 + 5 * 86_400)
        var interactive = EnqueueRequest(ids: [ids[4], ids[5]], kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1, 2], priority: 10)
        interactive.owner = "anna"
        var existing = EnqueueRequest(ids: nil, kinds: [.heatmap], themes: [.light], scales: [3])
        existing.existingOnly = true
        var runs = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light], scales: [3], priority: 5)
        runs.activities = [.running]
        let requests: [(String, EnqueueRequest)] = [
            ("route, light and dark, @1x and @2x", EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark])),
            ("heatmaps, of workouts with and without heart rate", EnqueueRequest(ids: Array(ids.prefix(5)), kinds: [.heatmap], themes: [.light])),
            ("the same again", EnqueueRequest(ids: nil, kinds: [.route], themes: [.light, .dark])),
            ("generated ones, current and stale", EnqueueRequest(ids: nil, kinds: [.route], themes: [.light])),
            ("failures left", EnqueueRequest(ids: nil, kinds: [.route], themes: [.dark])),
            ("failures of one code revived", codes),
            ("a window of start times", ranged),
            ("interactive, bounded", interactive),
            ("existing only", existing),
            ("interactive runs of every owner", runs),
        ]
        for (number, (label, request)) in requests.enumerated() {
            if number == 3 {
                // Some pictures were drawn, under the key of @1x.
                let drawn =
                    "UPDATE job SET status = 'generated', cache_key = 'key-' || substr((SELECT route_hash FROM workout w WHERE w.id = job.workout_id), 1, 8) WHERE kind = 'route' AND theme = 'light'"
                try sqlite.write { try $0.db.execute(sql: drawn) }
                try session.query(PostgresQuery(unsafeSQL: drawn), "drawing")
            }
            if number == 4 {
                let failed =
                    "UPDATE job SET status = 'failed-no-retry', reason = 'x', reason_code = CASE WHEN scale = 1 THEN 'render-failed' ELSE 'no-map' END WHERE kind = 'route' AND theme = 'dark'"
                try sqlite.write { try $0.db.execute(sql: failed) }
                try session.query(PostgresQuery(unsafeSQL: failed), "failing")
            }
            let expected = try sqlite.write { try $0.enqueue(request, scales: [1, 2], interactivePerOwner: 3, cacheKey: key) }
            let reply = try both.postgres { try $0.enqueue(request, scales: [1, 2], interactivePerOwner: 3, cacheKey: key) }
            #expect(reply == expected, "\(label)")
            let jobs =
                "SELECT workout_id, kind, theme, scale, status, priority, attempts, reason_code FROM job ORDER BY workout_id, kind, theme, scale"
            #expect(try both.same(jobs), "\(label)")
            let wanted = "SELECT workout_id, kind, theme, scale, priority FROM picture_wanted ORDER BY workout_id, kind, theme, scale"
            #expect(try both.same(wanted), "\(label)")
            if number == 7 { #expect(expected.queuedAsBulk != nil) }
            if number == 5 { #expect(expected.revived > 0 && expected.failed > 0) }
            if number == 3 { #expect(expected.current > 0 && expected.stale > 0) }
            if number == 1 { #expect(expected.skippedNoHeartRate == 2) }
            #expect(try both.everyChangeHasItsOwnAnchor(), "\(label)")
        }

        // A new version of a workout without heart rate, now with it: its pictures pending again,
        // its wanted heatmap a job.
        let richer = PostgresImportTests.run(file: "run-3.gpx", samples: 10, start: 1_700_000_000 + 3 * 86_400)
        let expected = try sqlite.write { try $0.importWorkout(richer, owner: "anna") }
        #expect(try both.postgres { try $0.importWorkout(richer, owner: "anna") } == expected)
        #expect(expected.result == .replacedDuplicate)
        let jobs = "SELECT workout_id, kind, theme, scale, status, priority, attempts, reason_code FROM job ORDER BY workout_id, kind, theme, scale"
        let (inPostgres, inSQLite) = (try both.postgresRows(jobs), try both.sqliteRows(jobs))
        #expect(inPostgres == inSQLite, "\(inPostgres.filter { !inSQLite.contains($0) }) against \(inSQLite.filter { !inPostgres.contains($0) })")
        #expect(try both.same("SELECT workout_id, kind, theme, scale, priority FROM picture_wanted ORDER BY workout_id, kind, theme, scale"))
        #expect(try both.everyChangeHasItsOwnAnchor())
    }
}
