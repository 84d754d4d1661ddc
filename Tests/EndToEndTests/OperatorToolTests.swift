import Foundation
import Testing
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire
import WorkFeedWorker

/// What an operator sees (issue 15), with the real `workctl` against a real coordinator: `--wait`
/// follows exactly its own pictures, counts failures and says so in its exit code, `status
/// --watch` redraws a table, `watch` finds the event stream by itself and shows every change.
@Suite(.serialized) struct OperatorToolTests {
    /// Runs workctl on a thread of its own, so that the test can act while it runs.
    final class Background: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: WorkCtlProcess.Result?

        init(_ arguments: [String], environment: [String: String] = [:]) {
            Thread.detachNewThread { [self] in
                result = try? WorkCtlProcess.run(arguments, environment: environment)
                done.signal()
            }
        }

        func wait(seconds: Double = 60) throws -> WorkCtlProcess.Result {
            guard done.wait(timeout: .now() + seconds) == .success, let result else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "workctl did not finish in \(seconds) s"])
            }
            return result
        }
    }

    struct Waited: Decodable {
        var enqueued: EnqueueReply
        var pictures: Outcome
        struct Outcome: Decodable { var total, generated, failed, pending: Int }
    }

    @Test func waitFollowsOnlyItsOwnPicturesAndWarnsWithoutWorkers() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        func workctl(_ arguments: [String]) throws -> WorkCtlProcess.Result { try WorkCtlProcess.run(arguments + at) }
        #expect(
            try workctl(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), try fixture("garmin-connect_ride_2020_short_ns3-hr.gpx")])
                .status == 0)
        let feed = try decodeJSON(FeedPage.self, try workctl(["feed", "--json"]).output).items
        let first = try #require(feed.first?.id)
        // Two route pictures wait for a worker, both workouts' (a bulk run someone else started).
        #expect(try workctl(["enqueue", "--all", "--kind", "route", "--theme", "light"]).status == 0)

        // One workout's picture, waited for while no worker is connected: after a few seconds the
        // progress says so; then a worker comes and the command ends with that one picture.
        let waiting = Background(
            ["enqueue", "--ids", first.description, "--kind", "route", "--theme", "light", "--wait", "--json", "--progress-json"] + at)
        var client = try system.client()
        for _ in 0..<14 {
            Thread.sleep(forTimeInterval: 0.5)
            let status: StatusReply = try client.request(.status, StatusRequest())
            #expect(status.total(.pending) == 2)
        }
        let worker = try system.startWorker(name: "late")
        defer { worker.stop() }
        let result = try waiting.wait()
        #expect(result.status == 0)
        let waited = try decodeJSON(Waited.self, result.output)
        #expect(waited.enqueued.alreadyPending == 1 && waited.enqueued.created == 0)
        #expect(waited.pictures.total == 1 && waited.pictures.generated == 1 && waited.pictures.failed == 0)
        // Progress went to standard error as JSON lines, one of which warned that no worker was there.
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("{") })
        #expect(lines.contains { $0.contains(#""waiting_for_workers":true"#) }, "no line warned: \(lines.prefix(3))")
        #expect(lines.last?.contains(#""done":1"#) == true && lines.last?.contains(#""total":1"#) == true)
    }

    @Test func failuresAreCountedAndTheExitCodeSaysSo() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        func workctl(_ arguments: [String]) throws -> WorkCtlProcess.Result { try WorkCtlProcess.run(arguments + at) }
        // A recording whose heart rate sits on waypoints: no track, so its route picture fails.
        #expect(try workctl(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), try fixture("runkeeper_hr-on-waypoint.gpx")]).status == 0)
        let text = try workctl(["enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait"])
        #expect(text.status == 2)
        #expect(text.output.contains("done: 2 generated, 2 failed"))
        #expect(text.output.contains("workctl failed --group"))
        // Nothing new to do: exit 0, and the failures left alone are not counted again.
        let again = try workctl(["enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait", "--json"])
        #expect(again.status == 0)
        let waited = try decodeJSON(Waited.self, again.output)
        #expect(waited.enqueued.current == 2 && waited.enqueued.failed == 2)
        #expect(waited.pictures.total == 0 && waited.pictures.failed == 0)
        // retry --wait follows the revived ones, which fail again.
        let retried = try workctl(["retry", "--all", "--wait", "--json"])
        #expect(retried.status == 2)
        #expect(try decodeJSON(Waited.self, retried.output).pictures.failed == 2)
    }

    @Test func statusWatchRedrawsAnAlignedTable() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        #expect(try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")] + at).status == 0)
        #expect(
            try WorkCtlProcess.run(["enqueue", "--all", "--kind", "route,heatmap", "--theme", "light", "--scale", "1,2", "--wait"] + at).status == 0)
        let watched = try WorkCtlProcess.run(["status", "--watch", "--interval", "0.2", "--views", "2"] + at)
        #expect(watched.status == 0)
        let lines = watched.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.filter { $0.hasPrefix("every 0.2s: workctl status") }.count == 2)
        let header = try #require(lines.first { $0.hasPrefix("KIND") })
        #expect(header.split(separator: " ") == ["KIND", "THEME", "SCALE", "PENDING", "GENERATED", "FAILED"])
        // One row per kind, theme and scale, the numbers right-aligned under their headings.
        let rows = lines.filter { $0.hasPrefix("route ") || $0.hasPrefix("heatmap ") }
        #expect(rows.count == 8, "two views of four rows: \(rows)")
        let end = header.range(of: "GENERATED")!.upperBound
        for row in rows { #expect(row.count >= header.distance(from: header.startIndex, to: end)) }
        #expect(rows.contains { $0.split(separator: " ") == ["heatmap", "light", "2x", "0", "1", "0"] })
        #expect(lines.contains { $0.hasPrefix("WORKER") && $0.contains("BUSY") && $0.contains("SLOTS") })
        let json = try WorkCtlProcess.run(["status", "--watch", "--interval", "0.2", "--views", "2", "--json"] + at)
        let views = json.output.split(separator: "\n")
        #expect(views.count == 2)
        #expect(try views.allSatisfy { try decodeJSON(StatusReply.self, String($0)).counts.contains { $0.scale == 2 } })
    }

    @Test func watchFindsTheEventStreamAndShowsEveryChange() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        // Only the control endpoint is given: the events' address comes from the coordinator.
        let watching = Background(["watch", "--seconds", "6"] + at, environment: ["WORKFEED_EVENTS": ""])
        Thread.sleep(forTimeInterval: 1.5)
        #expect(
            try WorkCtlProcess.run(["import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), try fixture("runkeeper_hr-on-waypoint.gpx")] + at)
                .status == 0)
        _ = try WorkCtlProcess.run(["enqueue", "--all", "--kind", "route", "--theme", "light", "--wait"] + at)
        let feed = try decodeJSON(FeedPage.self, try WorkCtlProcess.run(["feed", "--json"] + at).output).items
        let gone = try #require(feed.first?.id)
        #expect(try WorkCtlProcess.run(["delete", gone.description] + at).status == 0)
        let result = try watching.wait()
        #expect(result.status == 0)
        #expect(result.errors.contains("watching tcp://127.0.0.1:"))
        let output = result.output
        #expect(output.components(separatedBy: " imported (owner ").count == 3, "\(output)")
        #expect(output.contains("queued 2 pictures pending (route light): 2 new, 0 stale, 0 retried"), "\(output)")
        #expect(output.contains("route light: generated"), "\(output)")
        #expect(output.contains("route light: failed-no-retry (no-route: no route)"), "\(output)")
        #expect(output.contains("workout \(gone) deleted"), "\(output)")
        // Every line starts with a time in whole seconds, never some with fractions and some without.
        let stamps = output.split(separator: "\n").map { String($0.prefix(while: { $0 != " " })) }
        #expect(!stamps.isEmpty)
        for stamp in stamps {
            #expect(stamp.count == 20 && stamp.hasSuffix("Z") && ISO8601Time.date(from: stamp) != nil, "\(stamp) in \(output)")
        }
    }
}
