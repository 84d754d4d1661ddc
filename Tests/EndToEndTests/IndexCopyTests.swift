import ArgumentParser
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

/// `workctl index copy`: a SQLite index that has lived (imports, pictures drawn, a zone, settings,
/// a delete) moved into PostgreSQL, and a coordinator on the copy answering as the SQLite one did.
@Suite(.serialized, .enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct IndexCopyTests {
    /// What a client reads of an index, as bytes: the same bytes from both means the same answers.
    struct Answers: Equatable {
        var feed: Data
        var statuses: [String]
        var changes: Data
        var summary: Data
        var zones: Data
        var settings: Data
        var lastAnchor: Int64

        init(_ system: RunningSystem) throws {
            var client = try system.client()
            let encoder = Encoder()
            let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 50))
            self.feed = try encoder.encode(feed)
            let status: StatusReply = try client.request(.status, [String: String]())
            statuses = ["workouts \(status.workouts)"] + JobStatus.allCases.map { "\($0.rawValue) \(status.total($0))" }
            let changes: ChangesReply = try client.request(.changes, ChangesRequest(since: 0, limit: 500))
            self.changes = try encoder.encode(changes.changes)
            #expect(changes.changes.count >= 3, "imports, pictures and a delete are changes")
            lastAnchor = changes.changes.map(\.anchor).max() ?? 0
            let summary: SummaryReport = try client.request(.summary, SummaryRequest(owner: IndexCopyTests.owner, period: .year))
            self.summary = try encoder.encode(summary)
            let zones: ZonesReply = try client.request(.zones, ZonesRequest(owner: IndexCopyTests.owner))
            self.zones = try encoder.encode(zones.zones)
            let settings: SettingsReply = try client.request(.settings, SettingsRequest(owner: IndexCopyTests.owner))
            self.settings = try encoder.encode(settings.settings)
        }
    }

    static let owner = "anna"

    /// JSON with sorted keys, where what may differ by design does not: PostgreSQL keeps the
    /// times the coordinators compare (`updatedAt`) to the microsecond where SQLite keeps a
    /// double, and a report's `anchor` is each index's current one (PostgreSQL's: its horizon).
    struct Encoder {
        func encode(_ value: some Encodable) throws -> Data {
            let encoder = JSONEncoder()
            let object = try JSONSerialization.jsonObject(with: try encoder.encode(value), options: [.fragmentsAllowed])
            return try JSONSerialization.data(withJSONObject: Self.normalized(object), options: [.sortedKeys, .fragmentsAllowed])
        }

        static func normalized(_ value: Any, top: Bool = true) -> Any {
            if let array = value as? [Any] { return array.map { normalized($0, top: false) } }
            guard let object = value as? [String: Any] else { return value }
            var result: [String: Any] = [:]
            for (key, value) in object where !(top && key == "anchor") {
                if key == "updatedAt", let seconds = value as? Double {
                    result[key] = (seconds * 1000).rounded() / 1000
                } else {
                    result[key] = normalized(value, top: false)
                }
            }
            return result
        }
    }

    @Test func aSQLiteIndexCopiedIntoPostgreSQLAnswersTheSame() throws {
        let server = try PostgresTestServer.shared.get()
        let url = server.socketURL(database: try server.createDatabase())

        let sqlite = try RunningSystem(workers: 1)
        var sqliteRunning = true
        defer { if sqliteRunning { sqlite.stop() } }
        let control = sqlite.endpoints.control
        var importing = try WorkCtl.parseAsRoot(
            ["import", "--owner", Self.owner, "--coordinator", control] + PostgresSystemTests.routed.map(fixture))
        try importing.run()
        var client = try sqlite.client()
        let _: ZonesReply = try client.request(.zones, ZonesRequest(owner: Self.owner, add: .init(latitude: 49.4, longitude: 8.7, radius: 300)))
        let _: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: Self.owner, set: OwnerSettings(units: .imperial, timeZone: "Europe/Berlin")))
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait", "--coordinator", control,
        ])
        try enqueue.run()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        var delete = try WorkCtl.parseAsRoot(["delete", try #require(feed.items.last).workout.id.description, "--coordinator", control])
        try delete.run()
        let before = try Answers(sqlite)
        #expect(before.statuses.contains("workouts 2") && before.statuses.contains("generated \(2 * 2 * sqlite.configuration.scales.count)"))
        sqlite.stop(keepingFiles: true)
        sqliteRunning = false
        defer { try? FileManager.default.removeItem(at: sqlite.directory) }

        var copy = try WorkCtl.parseAsRoot(["index", "copy", "--from", sqlite.configuration.indexPath, "--to", url])
        try copy.run()

        let postgres = try RunningSystem(workers: 0) { $0.indexURL = url }
        defer { postgres.stop() }
        let after = try Answers(postgres)
        #expect(after.feed == before.feed)
        #expect(after.statuses == before.statuses)
        #expect(after.changes == before.changes)
        #expect(after.summary == before.summary)
        #expect(after.zones == before.zones)
        #expect(after.settings == before.settings)

        // A change on the copy takes an anchor after every copied one: a client goes on from its last.
        var more = try WorkCtl.parseAsRoot(
            ["import", "--owner", Self.owner, "--coordinator", postgres.endpoints.control, try fixture("runkeeper_hr-on-waypoint.gpx")])
        try more.run()
        var pgClient = try postgres.client()
        let next: ChangesReply = try pgClient.request(.changes, ChangesRequest(since: before.lastAnchor, limit: 100))
        #expect(next.changes.count == 1 && next.changes.allSatisfy { $0.anchor > before.lastAnchor }, "\(next.changes)")

        // A second copy into the same database is refused, and changes nothing.
        var again = try WorkCtl.parseAsRoot(["index", "copy", "--from", sqlite.configuration.indexPath, "--to", url])
        #expect(throws: (any Error).self) { try again.run() }
        let status: StatusReply = try pgClient.request(.status, [String: String]())
        #expect(status.workouts == 3)
    }
}
