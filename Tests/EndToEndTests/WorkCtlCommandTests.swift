import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Runs the real `workctl` executable, built beside this test bundle, and captures what it says.
struct WorkCtlProcess {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    static func executable() throws -> URL {
        let candidates = [
            Bundle.module.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("workctl") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSFilePathErrorKey: "workctl not built beside the tests (swift build --build-tests builds it)"])
        }
        return found
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }
}

func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
    return try decoder.decode(type, from: Data(text.utf8))
}

@Suite(.serialized) struct WorkCtlCommandTests {
    @Test func everyCommandAgainstARealCoordinator() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        let at = ["--coordinator", system.endpoints.control]
        // Pictures are found in workctl's own view of the store (no reply carries a path).
        func workctl(_ arguments: [String]) throws -> WorkCtlProcess.Result {
            try WorkCtlProcess.run(arguments + at, environment: ["WORKFEED_CACHE": system.configuration.cacheDirectory])
        }

        // import: a summary, exit 0; a broken file is named with its line, the rest goes on, exit 2.
        let broken = system.directory.appendingPathComponent("broken.gpx")
        try Data(
            "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n<trkpt lat=\"95\" lon=\"0\"/>\n"
                .utf8
        )
        .write(to: broken)
        let imported = try workctl([
            "import", try fixture("strava_run_2015_short_gpxtpx-hr.gpx"), try fixture("runkeeper_hr-on-waypoint.gpx"), broken.path,
        ])
        #expect(imported.status == 2)
        #expect(imported.output.contains("imported 2, unchanged 0, updated 0, skipped 1"))
        #expect(imported.output.contains("broken.gpx:4"))
        let json = try workctl(["import", "--json", try fixture("strava_run_2015_short_gpxtpx-hr.gpx")])
        #expect(json.status == 0)
        #expect(json.output.contains("\"unchanged\" : 1"))

        // enqueue --wait --json: only JSON on standard output, what was queued and what became of
        // it; one picture failed, so the exit code is 2.
        let enqueued = try workctl(["enqueue", "--all", "--kind", "route", "--theme", "light", "--wait", "--json"])
        #expect(enqueued.status == 2)
        struct Waited: Decodable {
            var enqueued: EnqueueReply
            var pictures: Outcome
            struct Outcome: Decodable { var total, generated, failed, pending: Int }
        }
        let waited = try decodeJSON(Waited.self, enqueued.output)
        #expect(waited.enqueued.created == 2)
        #expect(waited.pictures.total == 2 && waited.pictures.generated == 1 && waited.pictures.failed == 1 && waited.pictures.pending == 0)

        // status, workers, failed: text and JSON.
        #expect(try workctl(["status"]).output.contains("workouts 2;"))
        #expect(try decodeJSON(StatusReply.self, try workctl(["status", "--json"]).output).workouts == 2)
        #expect(try decodeJSON([StatusReply.Worker].self, try workctl(["workers", "--json"]).output).count == 2)
        let failed = try decodeJSON(FailedReply.self, try workctl(["failed", "--group", "--json"]).output)
        #expect(failed.groups == [FailedReply.Group(code: "no-route", reason: "no route", count: 1)])
        #expect(try workctl(["failed"]).output.contains("no route"))

        // feed, show, changes.
        let feed = try decodeJSON(FeedPage.self, try workctl(["feed", "--json"]).output).items
        #expect(feed.count == 2)
        let run = try #require(feed.first { $0.pointCount > 0 }).id
        let shown = try workctl(["show", run.description])
        #expect(shown.output.contains("route light: generated"))
        #expect(try decodeJSON(ShowReply.self, try workctl(["show", run.description, "--json"]).output).item.workout.id == run)
        // --json carries what the text shows: each generated picture's file, which exists.
        struct WithPaths: Decodable {
            struct Item: Decodable { var pictures: [Picture] }
            struct Picture: Decodable { var status: JobStatus; var path: String?; var cacheKey: String? }
            var item: Item
        }
        let shownJSON = try decodeJSON(WithPaths.self, try workctl(["show", run.description, "--json"]).output)
        let path = try #require(shownJSON.item.pictures.first { $0.status == .generated }?.path)
        #expect(FileManager.default.fileExists(atPath: path) && shown.output.contains(path))
        // feed --json is the gateway's shape (FeedItem): each generated picture's URL, by the key show names.
        let key = try #require(shownJSON.item.pictures.first { $0.path == path }?.cacheKey)
        #expect(feed.flatMap(\.pictures).contains { $0.url == "/v1/pictures/\(key).png" })
        #expect(feed.flatMap(\.pictures).allSatisfy { ($0.status == .generated) == ($0.url != nil) })
        // Strava's GPX names no activity, but its file's name says run (issue 36): a pace, no speed
        // (EndToEndTests.FeedShapeTests checks the figures).
        #expect(feed.first { $0.id == run }.map { $0.activity == .running && $0.pace != nil && $0.speed == nil } == true)
        let changes = try decodeJSON(ChangesReply.self, try workctl(["changes", "--since", "0", "--json"]).output)
        #expect(Set(changes.changes.map(\.id)).count == 2)

        // retry revives the failed one (which fails again: still no route); request queues ahead.
        #expect(try workctl(["retry", "--all", "--kind", "route", "--theme", "light"]).output.contains("retrying 1 failed"))
        #expect(try workctl(["request", run.description, "--theme", "dark"]).status == 0)

        // delete: exit 0, then 2 for an id no longer there.
        #expect(try workctl(["delete", run.description]).status == 0)
        #expect(try workctl(["delete", run.description]).status == 2)

        // Exit codes for errors: usage 64, refused 1, no coordinator 69.
        #expect(try workctl(["show", "not-a-uuid"]).status == 64)
        #expect(try workctl(["enqueue", "--kind", "route"]).status == 64)
        let missing = try workctl(["show", UUID().uuidString])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no workout with id"))
        let nobody = try WorkCtlProcess.run(["status", "--coordinator", "tcp://127.0.0.1:9", "--timeout", "1"])
        #expect(nobody.status == 69)
        #expect(nobody.errors.contains("is workfeed-coordinator running"))
    }

    @Test func keygenWritesAPrivateKeyFileAndNeverOverwrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-keygen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.key").path
        let first = try WorkCtlProcess.run(["keygen", "--out", file])
        #expect(first.status == 0)
        let pair = try CurveKeyPair.load(file: file)
        #expect(first.output.contains(pair.publicKey))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try WorkCtlProcess.run(["keygen", "--out", file]).status == 1)
    }

    /// Names and reasons from the wire reach the terminal escaped (issue 13, finding 6).
    @Test func namesWithTerminalEscapesArePrintedEscaped() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        var workout = ImportedWorkout.twoPoint(7)
        workout.name = "evil\u{1B}]0;pwned\u{07}\nworkout 00000000-0000-0000-0000-000000000000\u{202E}"
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        for arguments in [["show", "\(reply.id)"], ["show", "\(reply.id)", "--json"], ["feed"], ["feed", "--json"]] {
            let result = try WorkCtlProcess.run(arguments + ["--coordinator", system.endpoints.control])
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            let bytes = Array(result.output.utf8)
            #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "\(arguments): a raw escape reached the terminal")
            #expect(!result.output.unicodeScalars.contains { $0.value == 0x202E }, "\(arguments)")
            #expect(!result.output.contains("\nworkout 00000000"), "\(arguments): a forged line")
        }
    }
}

/// What the `workctl` binary says about itself and about a mistyped command.
@Suite struct WorkCtlUsageTests {
    @Test func versionNamesTheReleaseTheBuildAndTheRenderer() throws {
        let result = try WorkCtlProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == BuildInfo.description)
        #expect(BuildInfo.description.contains("renderer \(BuildInfo.rendererVersion)"))
    }

    @Test(arguments: [("stauts", "status"), ("enqeue", "enqueue"), ("retyr", "retry"), ("shwo", "show")])
    func aMistypedCommandGetsASuggestion(typed: String, meant: String) throws {
        let result = try WorkCtlProcess.run([typed, "--all"])
        #expect(result.status == 64)
        #expect(result.errors.contains("'\(typed)' is not a workctl command; did you mean '\(meant)'?"), "\(result.errors)")
        #expect(!result.errors.contains("--all"), "the option is not blamed")
    }

    @Test func aWordFarFromEveryCommandGetsNoGuess() throws {
        let result = try WorkCtlProcess.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.errors.contains("'frobnicate' is not a workctl command (see workctl --help)"))
    }
}
