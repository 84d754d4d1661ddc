import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
@testable import WorkFeedIndex
@testable import WorkFeedIndexPostgres
import WorkFeedModel

/// Each workout's start place (docs/places.md) is worked out at import and stored in the index,
/// the same on SQLite and PostgreSQL, read back with the feed's rows, and filled in by the
/// migrations for workouts stored before it.
@Suite struct StartPlaceIndexTests {
    /// A walk of a few points from `latitude`, `longitude`, from a file named `file`.
    static func walk(_ file: String, latitude: Double, longitude: Double, points: Int = 5) -> ImportedWorkout {
        let route = (0..<points).map { i in
            RoutePoint(
                latitude: latitude + Double(i) * 0.0003, longitude: longitude, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 10))
        }
        return ImportedWorkout(
            source: .gpx, sourceID: nil, activity: .walking, route: Route(segments: points == 0 ? [] : [route]), origin: file,
            file: WorkoutFile(name: file, bytes: Array(file.utf8), format: "gpx"))
    }

    /// Real starts, named as a person who knows them would (PlaceMapTests has the reasons).
    static let workouts: [(ImportedWorkout, String?)] = [
        (walk("cadzand-bad.gpx", latitude: 51.375554, longitude: 3.389536), "Sluis, Zeeland"),
        (walk("heidelberg.gpx", latitude: 49.4122, longitude: 8.7100), "Heidelberg, Baden-Württemberg"),
        // The North Sea, far from every place; and a workout without a route.
        (walk("north-sea.gpx", latitude: 54.5, longitude: 3.0), nil),
        (walk("treadmill.gpx", latitude: 0, longitude: 0, points: 0), nil),
    ]

    @Test func theFeedGivesEachWorkoutsPlaceOnBothIndexes() throws {
        let both = try BothIndexes("places")
        var ids: [WorkoutID: String?] = [:]
        for (workout, place) in Self.workouts {
            let expected = try both.sqlite.write {
                try $0.importWorkout(workout, owner: "anna", allowDuplicates: false, replacedFile: { _ in })
            }
            let reply = try both.postgres { try $0.importWorkout(workout, owner: "anna", allowDuplicates: false, replacedFile: { _ in }) }
            #expect(reply == expected)
            ids[reply.id] = place
        }
        let sqliteFeed = try both.sqlite.read { try $0.feed(limit: 10, cursor: nil, owner: "anna") }.workouts
        let postgresFeed = try PostgresReader(session: both.session).feed(limit: 10, cursor: nil, owner: "anna").workouts
        #expect(Dictionary(uniqueKeysWithValues: sqliteFeed.map { ($0.id, $0.place) }) == ids)
        #expect(Dictionary(uniqueKeysWithValues: postgresFeed.map { ($0.id, $0.place) }) == ids)
        #expect(try both.same("SELECT id, place FROM workout ORDER BY id"))
        // The feed's item carries it as `place`, and leaves it out where there is none.
        for record in sqliteFeed {
            let item = FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil)
            let json = String(decoding: item.json(), as: UTF8.self)
            // The Codable document (the gateway's upload reply, workctl --json) carries it too.
            #expect(try JSONDecoder().decode(FeedItem.self, from: Data(item.json())) == item)
            #expect(try JSONDecoder().decode(FeedItem.self, from: JSONEncoder().encode(item)).place == record.place)
            if let place = record.place {
                #expect(json.contains("\"place\":\"\(place)\""))
            } else {
                #expect(!json.contains("\"place\""))
            }
        }
    }

    @Test func theMigrationsNameTheStartsOfWorkoutsStoredBefore() throws {
        let both = try BothIndexes("places-migration")
        for (workout, _) in Self.workouts {
            _ = try both.sqlite.write { try $0.importWorkout(workout, owner: "anna", allowDuplicates: false, replacedFile: { _ in }) }
            _ = try both.postgres { try $0.importWorkout(workout, owner: "anna", allowDuplicates: false, replacedFile: { _ in }) }
        }
        let expected = try both.sqliteRows("SELECT id, place FROM workout ORDER BY id")
        #expect(expected.compactMap { $0[1] == "NULL" ? nil : $0[1] }.sorted() == ["Heidelberg, Baden-Württemberg", "Sluis, Zeeland"])

        // PostgreSQL: the backfill of pg8 over workouts without a place.
        _ = try both.session.query("UPDATE workout SET place = NULL", "forgetting places")
        try both.session.transaction("migrating") { try PostgresSchema.backfillPG8(both.session) }
        #expect(try both.postgresRows("SELECT id, place FROM workout ORDER BY id") == expected)

    }

    @Test func sqlitesMigrationNamesTheStartsOfWorkoutsStoredBefore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-places-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        do {
            let index = try WorkoutIndex(path: path, logger: Logger(label: "test"))
            for (workout, _) in Self.workouts {
                _ = try index.write { try $0.importWorkout(workout, owner: "anna", allowDuplicates: false, replacedFile: { _ in }) }
            }
        }
        // As an index of v18 holds them: no place column.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v19%'")
            try db.execute(sql: "ALTER TABLE workout DROP COLUMN place")
        }
        try queue.close()
        let reopened = try WorkoutIndex(path: path, logger: Logger(label: "test"))
        let places = try reopened.read { try $0.feed(limit: 10, cursor: nil, owner: "anna") }.workouts.map(\.place)
        #expect(places.compactMap { $0 }.sorted() == ["Heidelberg, Baden-Württemberg", "Sluis, Zeeland"])
        #expect(places.count == Self.workouts.count)
    }
}
