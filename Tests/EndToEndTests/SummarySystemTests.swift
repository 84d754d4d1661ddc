import Foundation
import Testing
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

@testable import WorkFeedCtl

/// Summaries of the shared recordings (Tests/Data/tracks-in-map) through a real coordinator and
/// `workctl summary` (docs/summaries.md): the buckets hold the devices' own distances (the FIT
/// sessions' totals and the GPX files' `TrackStatsExtension` distances, read by hand from the
/// files), in the years and the month the recordings started, and a deletion takes a recording
/// out at once.
@Suite(.serialized) struct SummarySystemTests {
    @Test func theSharedRecordingsSumToTheirDevicesDistances() throws {
        let folder = RealFiles.data.appendingPathComponent("tracks-in-map")
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        _ = try WorkCtlProcess.run(["import", folder.path, "--coordinator", system.endpoints.control])
        // The devices' distances (as SharedDataTests reads them from the files).
        let distances = try SharedDataTests.tracksInMapDistances()
        var client = try system.client()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 100))
        #expect(feed.items.count == 8)

        let run = try WorkCtlProcess.run([
            "summary", "--owner", Owner.defaultName, "--period", "year", "--from", "2017-01-01", "--to", "2026-12-31", "--json",
            "--coordinator", system.endpoints.control,
        ])
        #expect(run.status == 0, "\(run.errors)")
        let years = try decodeJSON(SummaryReport.self, run.output)
        #expect(years.buckets.count == 10)
        #expect(years.buckets.map(\.total.count).reduce(0, +) == feed.items.count)
        let zone = try #require(TimeZone(identifier: years.timeZone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var expectedByYear: [Int: (count: Int, distance: Double)] = [:]
        for workout in feed.items.map(\.workout) {
            let name = URL(fileURLWithPath: workout.file?.name ?? "").lastPathComponent
            let year = calendar.component(.year, from: try #require(workout.start))
            let distance = try #require(distances[name], "\(name)")
            expectedByYear[year, default: (0, 0)].count += 1
            expectedByYear[year, default: (0, 0)].distance += distance
        }
        #expect(Set([2019, 2021, 2023]).isSubset(of: expectedByYear.keys))
        for bucket in years.buckets {
            let year = try #require(Int(bucket.start.prefix(4)))
            let expected = expectedByYear[year] ?? (0, 0)
            #expect(bucket.total.count == expected.count, "\(year)")
            #expect(bucket.total.distance.unit == .kilometres, "\(year)")
            #expect(abs((bucket.total.distance.metres ?? 0) - expected.distance) < 0.0005 * Double(max(1, expected.count)), "\(year)")
        }
        // The six Zeeland rides of September 2023 (two FIT, four GPX), all cycling.
        let september = try WorkCtlProcess.run([
            "summary", "--owner", Owner.defaultName, "--period", "month", "--from", "2023-09-01", "--to", "2023-09-30", "--json",
            "--coordinator", system.endpoints.control,
        ])
        let month = try decodeJSON(SummaryReport.self, september.output)
        #expect(month.buckets.count == 1)
        #expect(month.buckets[0].total.count == expectedByYear[2023]?.count)
        #expect(month.buckets[0].activities.keys.sorted() == ["cycling"])
        #expect(month.buckets[0].activities["cycling"]?.longest?.distance == Quantity(value: 20.29264, unit: .kilometres))

        // The table: a row per bucket.
        let table = try WorkCtlProcess.run([
            "summary", "--owner", Owner.defaultName, "--period", "year", "--from", "2019-01-01", "--to", "2021-12-31",
            "--coordinator", system.endpoints.control,
        ])
        #expect(table.status == 0)
        #expect(table.output.contains("start") && table.output.contains("2019-01-01") && table.output.contains("time zone: \(years.timeZone)"))

        // Bad options are refused before anything is sent, naming the option.
        let bad = try WorkCtlProcess.run(["summary", "--owner", "x", "--period", "fortnight", "--coordinator", system.endpoints.control])
        #expect(bad.status != 0 && bad.errors.contains("--period"))

        // A new time zone: the coordinator rebuilds the owner's summaries in the background,
        // its progress in the SETTINGS reply and the SUMMARY reply until it is done.
        let changed: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: Owner.defaultName, set: OwnerSettings(timeZone: "Asia/Tokyo")))
        #expect(changed.summaries != nil)
        var rebuilt: SummaryReport?
        for _ in 0..<100 {
            let report: SummaryReport = try client.request(
                .summary, SummaryRequest(owner: Owner.defaultName, period: .year, from: "2017-01-01", to: "2026-12-31"))
            if report.rebuilding == nil {
                rebuilt = report
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let tokyo = try #require(rebuilt)
        // Done: `workctl status` lists no rebuild (its JSON an empty map, not a missing one).
        let status = try WorkCtlProcess.run(["status", "--json", "--coordinator", system.endpoints.control])
        #expect(status.status == 0, "\(status.errors)")
        #expect(try decodeJSON(StatusReply.self, status.output).summaryRebuilds == [:])
        let statusTable = try WorkCtlProcess.run(["status", "--coordinator", system.endpoints.control])
        #expect(statusTable.status == 0 && !statusTable.output.contains("summaries rebuilding"))
        #expect(tokyo.timeZone == "Asia/Tokyo")
        #expect(tokyo.buckets.first?.start == "2017-01-01T00:00:00+09:00")
        #expect(tokyo.buckets.map(\.total.count).reduce(0, +) == feed.items.count)

        // A deletion takes the 2019 run out in the same transaction.
        let run2019 = try #require(feed.items.map(\.workout).first { $0.file?.name.contains("runpandas") == true })
        let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: [run2019.id]))
        let after: SummaryReport = try client.request(
            .summary, SummaryRequest(owner: Owner.defaultName, period: .year, from: "2019-01-01", to: "2019-12-31"))
        #expect(after.buckets[0].total.count == 0)
    }

    /// `workctl status` shows each owner whose summaries are rebuilt, with how far it is, in the
    /// owners' order (a rebuild is too quick to catch in the test above: 8 workouts).
    @Test func statusShowsSummaryRebuilds() throws {
        let reply = StatusReply(
            workouts: 21_000, counts: [], leased: 0, workers: [],
            summaryRebuilds: ["bob": SummaryRebuild(done: 0, total: 1_000), "alice": SummaryRebuild(done: 1_500, total: 20_000)])
        let encoded = try ControlCodec.encode(reply)
        let lines = WorkCtl.Status.view(try ControlCodec.decode(StatusReply.self, from: encoded), now: Date())
        #expect(lines.contains("summaries rebuilding: alice 1,500/20,000 workouts, bob 0/1,000 workouts"), "\(lines)")
        let idle = WorkCtl.Status.view(StatusReply(workouts: 0, counts: [], leased: 0, workers: [], summaryRebuilds: [:]), now: Date())
        #expect(!idle.contains { $0.hasPrefix("summaries") })
    }
}
