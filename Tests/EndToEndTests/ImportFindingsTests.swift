import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire

#if canImport(Glibc)
import Glibc
#endif

/// The real workout files the import tests bundle (`Tests/WorkFeedImportTests/Fixtures`, copies
/// of ../shared/data with their origins in its SOURCES.md) and `Tests/Data`, read from the repository.
enum RealFiles {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = tests.appendingPathComponent("WorkFeedImportTests/Fixtures")
    static let data = tests.appendingPathComponent("Data")

    static func path(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }
    static func bytes(_ relative: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(relative))) }
}

/// `workctl import --json`'s summary.
struct ImportSummaryJSON: Decodable {
    struct Kept: Decodable { var file: String; var id: WorkoutID; var reason: String }
    struct Duplicate: Decodable { var file: String; var duplicateOf: WorkoutID; var duplicateFile: String? }
    struct Replaced: Decodable { var file: String; var id: WorkoutID; var previousFile: String?; var reason: String }
    struct Skipped: Decodable { var file: String; var reason: String; var code: String? }
    var imported: Int
    var unchanged: Int
    var updated: Int
    var refreshed: Int
    var keptRicher: [Kept]
    var duplicates: [Duplicate]
    var replacedDuplicates: [Replaced]
    var skipped: [Skipped]
    var warnings: [String]
}

/// A scratch folder, removed afterwards.
final class ScratchFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-import-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Copies real files in under their own names; returns the copies' paths.
    @discardableResult
    func copy(_ relatives: [String], into folder: String = "") throws -> [String] {
        let target = folder.isEmpty ? url : url.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        return try relatives.map { relative in
            let destination = target.appendingPathComponent((relative as NSString).lastPathComponent)
            try FileManager.default.copyItem(atPath: RealFiles.path(relative), toPath: destination.path)
            return destination.path
        }
    }
}

/// Issue 12, one test per finding, through a running coordinator (and workers where pictures are
/// drawn) and the real `workctl` executable, on the real files that showed each finding.
@Suite(.serialized) struct ImportFindingsTests {
    func workctl(_ system: RunningSystem, _ arguments: [String]) throws -> WorkCtlProcess.Result {
        try WorkCtlProcess.run(arguments + ["--coordinator", system.endpoints.control])
    }

    func importJSON(_ system: RunningSystem, _ paths: [String], _ extra: [String] = []) throws -> ImportSummaryJSON {
        let result = try workctl(system, ["import", "--json"] + extra + paths)
        return try decodeJSON(ImportSummaryJSON.self, result.output)
    }

    func feed(_ system: RunningSystem) throws -> [WorkoutRecord] {
        var client = try system.client()
        let reply: FeedReply = try client.request(.feed, FeedRequest(limit: 1000))
        return reply.items.map(\.workout)
    }

    /// Finding 1: six GPX files with no route and no heart rate were one workout (their series
    /// hashes were equal). Since issue 36 such a file has nothing to show (docs/import.md,
    /// "Nothing to show"): each is skipped with the reason the gateway's upload gives and its code,
    /// nothing is stored, and the import exits 2. A one-point track is skipped the same way; a
    /// file with the device's totals and no position is a workout.
    @Test func filesWithoutARouteOrFiguresAreEachSkippedNamingWhy() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let files = [
            "gpx-edge/empty-trk-no-points.gpx", "gpx-edge/route-only_empty-rte_gpx10.gpx", "gpx-edge/waypoints-only_no-namespace.gpx",
            "gpx-edge/waypoints-only_with-ele_austria.gpx", "gpx-edge/utf8-bom.gpx", "gpx-edge/iso-8859-1_encoded_gpx10_wpt.gpx",
        ].map(RealFiles.path)
        let onePoint = RealFiles.data.appendingPathComponent("empty-workouts/single-trkpt.gpx").path
        let swim = RealFiles.data.appendingPathComponent("empty-workouts/garmin-vivoactive-hr_pool-swim_no-positions.tcx").path
        let result = try workctl(system, ["import", "--json"] + files + [onePoint, swim])
        #expect(result.status == 2)
        let summary = try decodeJSON(ImportSummaryJSON.self, result.output)
        #expect(summary.imported == 1 && summary.unchanged == 0)
        #expect(Set(summary.skipped.map(\.file)) == Set(files + [onePoint]))
        for skipped in summary.skipped {
            #expect(skipped.reason == "\(skipped.file): " + (skipped.code == "one-point" ? onePointMessage : noPointsMessage), "\(skipped)")
            #expect(skipped.code == (skipped.file == onePoint ? "one-point" : "no-points"))
        }
        #expect(try feed(system).compactMap { $0.file?.name } == [swim])
        // Said in words without --json, and again on a second run: still nothing stored.
        let again = try workctl(system, ["import"] + files)
        #expect(again.status == 2)
        #expect(again.output.contains("imported 0, unchanged 0, updated 0"))
        #expect(again.output.contains("skipped \(files[2]): no track and no figures"), "\(again.output)")
        #expect(try feed(system).count == 1)
    }

    var noPointsMessage: String { EmptyWorkout(.noPoints, origin: "").message }
    var onePointMessage: String { EmptyWorkout(.onePoint, origin: "").message }

    /// Finding 2: the Forerunner 410 pair (same activity Id, one with heart rate): in a folder the
    /// copy without heart rate sorts last and used to wipe 383 samples. Now the stored copy is
    /// kept and the summary says so; in the other order, the copy with heart rate updates it.
    @Test func aCopyWithLessKeepsTheRicherStoredOne() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let scratch = try ScratchFolder()
        let pair = ["tcx/garmin-forerunner410_run_2012_hr_3laps.tcx", "tcx/garmin-forerunner410_run_2012_no-hr.tcx"]
        try scratch.copy(pair, into: "pair")
        let result = try workctl(system, ["import", scratch.url.appendingPathComponent("pair").path])
        #expect(result.status == 0)
        #expect(result.output.contains("imported 1, unchanged 0, updated 0, kept the richer stored copy 1"))
        #expect(result.output.contains("no-hr.tcx: this copy has no heart rate (stored: 383 samples)"))
        let stored = try #require(try feed(system).first)
        #expect(stored.heartRateSamples == 383 && stored.routeVersion == 1)
        #expect(stored.file?.name.hasSuffix("hr_3laps.tcx") == true)

        let other = try RunningSystem(workers: 0)
        defer { other.stop() }
        let reversed = try importJSON(other, pair.reversed().map(RealFiles.path))
        #expect(reversed.imported == 1 && reversed.updated == 1)
        let updated = try #require(try feed(other).first)
        #expect(updated.heartRateSamples == 383)
        // The copy it replaced came from another file, whose original is not kept any more.
        let originals = try FileManager.default.subpathsOfDirectory(atPath: other.configuration.originalsPath).filter {
            $0.hasSuffix(".gz")
        }
        #expect(originals.map { ($0 as NSString).lastPathComponent } == [(updated.file?.sha256 ?? "") + ".gz"])
    }

    /// Finding 3: the 2020 ride as GPX, TCX and FIT was three feed entries; it is one (the FIT,
    /// imported first in a folder), and the summary names the two duplicates and what they
    /// duplicate. `--allow-duplicates` keeps them.
    @Test func theSameRideFromThreeFilesIsOneWorkout() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let files = [
            "fit/garmin-edge_ride_2020_short.fit", "gpx-hr/garmin-connect_ride_2020_short_ns3-hr.gpx", "tcx/garmin-connect_ride_2020_short.tcx",
        ]
        .map(RealFiles.path)
        let summary = try importJSON(system, files)
        #expect(summary.imported == 1)
        let ride = try #require(try feed(system).first)
        #expect(summary.duplicates.map(\.file) == Array(files.dropFirst()))
        #expect(summary.duplicates.allSatisfy { $0.duplicateOf == ride.id && $0.duplicateFile == files[0] })
        // Only the kept workout's original is in the cache: a duplicate's is not kept.
        let originals = try FileManager.default.subpathsOfDirectory(atPath: system.configuration.originalsPath).filter {
            $0.hasSuffix(".gz")
        }
        #expect(originals.map { ($0 as NSString).lastPathComponent } == [(ride.file?.sha256 ?? "") + ".gz"])
        #expect(try workctl(system, ["import"] + files).output.contains("is the same activity as \(ride.id)"))
        #expect(try feed(system).count == 1)
        let kept = try importJSON(system, [files[1]], ["--allow-duplicates"])
        #expect(kept.imported == 1 && kept.duplicates.isEmpty)
        #expect(try feed(system).count == 2)
    }

    /// Finding 4: the FIT copy's distance is the device's session total, 668 m, not the 653 m of
    /// its track, and so is its climb (issue 24); `workctl show` says where each figure came from.
    @Test func theDistanceIsTheDevicesAndShowSaysSo() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        _ = try importJSON(system, [RealFiles.path("fit/garmin-edge_ride_2020_short.fit")])
        let ride = try #require(try feed(system).first)
        #expect(ride.distance == 668.19)
        #expect(ride.deviceSource == "FIT session" && ride.deviceFigures == ["distance", "climb", "duration", "calories", "heart rate"])
        let shown = try workctl(system, ["show", String(ride.id.description.prefix(8))])
        #expect(shown.output.contains("distance:  668 m (from the device: FIT session)"))
        // Issue 24: the session's total_ascent (1 m), not the track's 2 m.
        #expect(shown.output.contains("climb:     1 m (from the device: FIT session)"))
    }

    /// Issue 36: the coordinator counts a track's climb by how its file says the altitudes were
    /// measured, which IMPORT carries beside the route series: the iPhone's walk in Tokyo by the
    /// GPS rule (556 m; the altimeter rule gave 1,737 m), Garmin Connect's run by the altimeter
    /// rule (210 m; the GPS rule gives 124 m). Neither file has a device climb.
    @Test func theClimbIsCountedByTheRuleTheFileAsksFor() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        _ = try importJSON(
            system,
            [RealFiles.path("gpx-edge/open-gpx-tracker_ios_4142pts_no-hr.gpx"), RealFiles.path("gpx-hr/garmin-connect_run_2017_ns3-hr-cad.gpx")])
        let workouts = try feed(system)
        let walk = try #require(workouts.first { $0.file?.name.hasSuffix("open-gpx-tracker_ios_4142pts_no-hr.gpx") == true })
        let run = try #require(workouts.first { $0.file?.name.hasSuffix("garmin-connect_run_2017_ns3-hr-cad.gpx") == true })
        #expect((550...560).contains(walk.elevationGain ?? 0), "walk \(walk.elevationGain ?? -1)")
        #expect((205...215).contains(run.elevationGain ?? 0), "run \(run.elevationGain ?? -1)")
    }

    /// Finding 8: MapMyRide's 15:58:25.8498 reached the index as 15:58:25.000 (the control
    /// message's dates were whole seconds). It stays 15:58:25.8498 through import, index, wire and
    /// `show --json`.
    @Test func timesKeepTheirFractionsEndToEnd() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        _ = try importJSON(system, [RealFiles.path("tcx/mapmyride_ride_2022_microsecond-times_no-hr.tcx")])
        let ride = try #require(try feed(system).first)
        #expect(abs((ride.start?.timeIntervalSince1970 ?? 0) - 1_668_268_705.8498) < 1e-6)
        let shown = try workctl(system, ["show", ride.id.description, "--json"])
        #expect(shown.output.contains("\"start\" : \"2022-11-12T15:58:25.8498Z\""))
        #expect(shown.output.contains("\"end\" : \"2022-11-12T16:50:16.5264Z\""))
    }

    /// Finding 9: heatmaps of workouts without heart rate were `failed-no-retry` ("no heart-rate
    /// samples"). Enqueueing skips them and says how many; none fails; a re-import that brings
    /// heart rate makes the heatmap appear.
    @Test func heatmapsOnlyForWorkoutsWithHeartRate() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        _ = try importJSON(
            system, [RealFiles.path("tcx/garmin-forerunner410_run_2012_no-hr.tcx"), RealFiles.path("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")])
        let enqueued = try workctl(system, ["enqueue", "--all", "--kind", "heatmap", "--theme", "light", "--wait"])
        #expect(enqueued.output.contains("enqueued: 1 new"))
        #expect(enqueued.output.contains("skipped heatmaps of 1 workout without heart rate"))
        var client = try system.client()
        var status: StatusReply = try client.request(.status, [String: String]())
        #expect(status.total(.failedNoRetry) == 0 && status.total(.generated) == 1)

        let updated = try importJSON(system, [RealFiles.path("tcx/garmin-forerunner410_run_2012_hr_3laps.tcx")])
        #expect(updated.updated == 1)
        // --wait follows the pictures it names: the heatmap the re-import queued is one of them.
        _ = try workctl(system, ["enqueue", "--all", "--kind", "route,heatmap", "--theme", "light", "--wait"])
        status = try client.request(.status, [String: String]())
        #expect(status.total(.failedNoRetry) == 0)
        #expect(status.counts.first { $0.kind == .heatmap && $0.status == .generated }?.count == 2)
    }

    /// Finding 10: `workctl show` names the file (name, size, SHA-256 of its bytes, format, reader
    /// version); the original is kept compressed beside the pictures; a unique id prefix works in
    /// every command and an ambiguous one lists the candidates; `workctl reimport` reads the kept
    /// original again and bumps the route version only where the result changed.
    @Test func aWorkoutCanBeTracedToItsFileAndReadAgain() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let relative = "gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"
        let bytes = try RealFiles.bytes(relative)
        let hash = SHA256.hex(bytes)
        _ = try importJSON(system, [RealFiles.path(relative), RealFiles.path("fit/garmin-fenix5_run_hr.fit")])
        let run = try #require(try feed(system).first { $0.file?.format == "gpx" })
        let prefix = String(run.id.description.prefix(6))
        let shown = try workctl(system, ["show", prefix])
        #expect(shown.status == 0)
        #expect(shown.output.contains("file:      \(RealFiles.path(relative))"))
        #expect(shown.output.contains("11449 bytes, gpx, sha256 \(hash), read by reader version \(WorkoutFile.currentReaderVersion); original kept"))
        let kept = system.configuration.originalsPath + "/\(hash.prefix(2))/\(hash).gz"
        let compressed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kept)))
        #expect(try Gzip.decompress(compressed, limit: bytes.count, name: kept) == bytes)

        // Re-reading with the same readers changes nothing.
        let again = try workctl(system, ["reimport", "--all", "--json"])
        #expect(try decodeJSON(ImportSummaryJSON.self, again.output).unchanged == 2)

        // A stored copy as an older reader might have read it (half the points): re-read, it is
        // updated, and only it.
        let workout = try #require(try WorkoutFileReader.read(bytes: bytes, file: RealFiles.path(relative)).first)
        var older = workout
        older.route = Route(segments: [Array(workout.route.points.prefix(21))])
        older.file?.readerVersion = 1
        var client = try system.client()
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(older), attachments: [SeriesCodec.encode(older.route), SeriesCodec.encode(older.heartRate)])
        #expect(reply.result == .updated && reply.routeVersion == 2)
        let reread = try decodeJSON(ImportSummaryJSON.self, try workctl(system, ["reimport", "--ids", prefix, "--json"]).output)
        #expect(reread.updated == 1 && reread.unchanged == 0)
        let after = try #require(try feed(system).first { $0.id == run.id })
        #expect(after.pointCount == 42 && after.routeVersion == 3 && after.file?.readerVersion == WorkoutFile.currentReaderVersion)

        // Prefixes: delete by one, and the original goes with its last workout.
        #expect(try workctl(system, ["delete", prefix]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try workctl(system, ["show", prefix]).status == 1)
    }

    @Test func anAmbiguousPrefixListsTheCandidates() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var seen: [String: Int] = [:]
        var pair: (Int, Int)?
        for number in 0..<5000 where pair == nil {
            let key = String(WorkoutIdentity(owner: Owner.defaultName, source: .fit, sourceID: "x\(number)").workoutID.description.prefix(4))
            if let other = seen[key] { pair = (other, number) } else { seen[key] = number }
        }
        let (a, b) = try #require(pair)
        var client = try system.client()
        var ids: [WorkoutID] = []
        for number in [a, b] {
            var workout = ImportedWorkout.twoPoint(number)
            workout.source = .fit
            workout.sourceID = "x\(number)"
            let reply: ImportReply = try client.request(
                .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
            ids.append(reply.id)
        }
        let shared = String(ids[0].description.prefix(4))
        for command in [["show", shared], ["delete", shared], ["request", shared], ["enqueue", "--ids", shared], ["retry", "--ids", shared]] {
            let result = try workctl(system, command)
            #expect(result.status == 64, "\(command)")
            #expect(result.errors.contains("'\(shared)' is ambiguous"), "\(command)")
            #expect(ids.allSatisfy { result.errors.contains($0.description) }, "\(command)")
        }
        #expect(try feed(system).count == 2)
    }

    /// Finding 11: `workctl render` drew the file's own coordinates (17 digits in Garmin Connect's
    /// GPX) while a worker draws the series as stored (1e-7 degree): the bytes differed. Both now
    /// draw the stored series.
    @Test func workctlRenderDrawsTheSameBytesAsAWorker() async throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let file = RealFiles.path("gpx-hr/garmin-connect_ride_2020_short_ns3-hr.gpx")
        _ = try importJSON(system, [file])
        _ = try workctl(system, ["enqueue", "--all", "--kind", "route", "--theme", "light", "--wait"])
        var client = try system.client()
        let reply: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        let picture = try #require(reply.items.first?.pictures.first)
        #expect(picture.status == .generated)
        let fromWorker = try Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + picture.relativePath))

        let scratch = try ScratchFolder()
        let rendered = try WorkCtlProcess.run(["render", file, "--kind", "route", "--theme", "light", "--out", scratch.url.path])
        #expect(rendered.status == 0, "\(rendered.errors)")
        let local = try Data(contentsOf: scratch.url.appendingPathComponent("garmin-connect_ride_2020_short_ns3-hr_route_light.png"))
        #expect(local == fromWorker)
        // The file does hold coordinates past 1e-7 degree, the precision the index keeps.
        let workout = try #require(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: file)).first)
        #expect(workout.route.points.contains { ($0.latitude * 1e7).rounded() / 1e7 != $0.latitude })
    }

    /// Issue 13, import side: a named pipe called `x.gpx` does not hang import or render; it is
    /// named with its reason and the rest of the folder goes in.
    @Test(.timeLimit(.minutes(2))) func aNamedPipeIsSkippedNotWaitedOn() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let scratch = try ScratchFolder()
        try scratch.copy(["gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"], into: "in")
        let pipe = scratch.url.appendingPathComponent("in/x.gpx").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let imported = try workctl(system, ["import", scratch.url.appendingPathComponent("in").path])
        #expect(imported.status == 2)
        #expect(imported.output.contains("imported 1"))
        #expect(imported.output.contains("\(pipe): not a regular file (a named pipe)"))
        let rendered = try WorkCtlProcess.run(["render", pipe, "--out", scratch.url.appendingPathComponent("out").path])
        #expect(rendered.status == 2)
        #expect(rendered.errors.contains("not a regular file"))
    }

    /// Issue 13, import side: a workout whose IMPORT message is over the wire's size limit is
    /// skipped with its reason, and the rest of the folder goes in (it used to end the import
    /// with "is the coordinator running?"). The limit is lowered here so that real files reach it.
    @Test func aMessageOverTheSizeLimitSkipsThatFileOnly() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let scratch = try ScratchFolder()
        try scratch.copy(["gpx-edge/open-gpx-tracker_ios_4142pts_no-hr.gpx", "gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"], into: "in")
        let result = try workctl(system, ["import", "--max-message-bytes", "60000", scratch.url.appendingPathComponent("in").path])
        #expect(result.status == 2)
        #expect(result.output.contains("imported 1"))
        #expect(result.output.contains("open-gpx-tracker_ios_4142pts_no-hr.gpx: the IMPORT message would be"))
        #expect(result.output.contains("over the control protocol's limit of 58 KiB: not sent"))
        #expect(!result.errors.contains("is workfeed-coordinator running"))
        #expect(try feed(system).count == 1)
    }
}
