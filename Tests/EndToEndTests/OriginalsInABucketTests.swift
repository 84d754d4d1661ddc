import ArgumentParser
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedS3
import WorkFeedTesting
import WorkFeedStore
import WorkFeedWire

/// Issue 26: the kept originals go through the store seam. With pictures in `s3://BUCKET/PREFIX`
/// the coordinator keeps them in the same bucket under `originals/` (beside the pictures, not
/// inside them), on a real S3-compatible server (moto) on loopback; originals an earlier run kept
/// beside the index move there at start; ORIGINAL and `workctl reimport` read them from there.
@Suite(.serialized, .enabled(if: MotoServer.isInstalled, Comment(rawValue: MotoServer.skipReason)))
struct OriginalsInABucketTests {
    /// A bucket on the shared server and a credentials file for it.
    final class Bucket {
        let client: S3Client
        let name = "wf-orig-\(UUID().uuidString.prefix(8).lowercased())"
        let credentialsFile = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-s3-\(UUID().uuidString)")
        let endpoint: String

        init() throws {
            let server = try MotoServer.shared.get()
            endpoint = server.endpoint
            client = try server.newBucket(name)
            let credentials = MotoServer.credentials
            try "[default]\naws_access_key_id=\(credentials.accessKeyID)\naws_secret_access_key=\(credentials.secretAccessKey)\n"
                .write(to: credentialsFile, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: credentialsFile) }

        /// The coordinator's configuration for pictures in `s3://BUCKET/feed`.
        func use(_ configuration: inout CoordinatorConfiguration) {
            configuration.cacheDirectory = "s3://\(name)/feed"
            configuration.s3Store = S3StoreSettings(endpoint: endpoint, credentialsFile: credentialsFile.path)
        }

        func object(_ sha: String) -> String { "originals/\(sha.prefix(2))/\(sha).gz" }
    }

    static func reimportAll(_ system: RunningSystem) throws {
        var command = try WorkCtl.parseAsRoot(["reimport", "--all", "--coordinator", system.endpoints.control])
        try command.run()
    }

    @Test func theDefaultPlaceBesideBucketPicturesIsTheBucket() async throws {
        let configuration = try await CoordinatorConfiguration.load(
            file: nil, environment: [:], overrides: ["index.path": "/srv/wf/index.sqlite", "cache.directory": "s3://pics/feed/v1"])
        #expect(configuration.originalsPath == "s3://pics/originals")
        // A bucket's root holds the pictures: the originals stay beside the index.
        let root = try await CoordinatorConfiguration.load(
            file: nil, environment: [:], overrides: ["index.path": "/srv/wf/index.sqlite", "cache.directory": "s3://pics"])
        #expect(root.originalsPath == "/srv/wf/originals")
        // Inside the pictures' prefix (or a root that holds them): refused, naming the key.
        for (cache, originals) in [("s3://pics/feed", "s3://pics/feed/originals"), ("s3://pics", "s3://pics/originals")] {
            await #expect(throws: ConfigurationError.self) {
                try await CoordinatorConfiguration.load(
                    file: nil, environment: [:], overrides: ["cache.directory": cache, "originals.directory": originals])
            }
        }
        let elsewhere = try await CoordinatorConfiguration.load(
            file: nil, environment: [:], overrides: ["cache.directory": "s3://pics/feed", "originals.directory": "s3://private-bucket/o"])
        #expect(elsewhere.originalsProblem() == nil)
    }

    @Test func originalsAreKeptInTheBucketMovedThereAndReimportedFromThere() throws {
        let bucket = try Bucket()
        // A coordinator before issue 26: pictures in the bucket, originals beside the index.
        let before = try RunningSystem(workers: 0) {
            bucket.use(&$0)
            $0.originalsDirectory = $0.originalsBesideIndex
        }
        let first = try OriginalsTests.importFixture(before)
        let firstSHA = try #require(first.file?.sha256)
        before.stop(keepingFiles: true)
        let local = before.directory.appendingPathComponent("originals/\(firstSHA.prefix(2))/\(firstSHA).gz").path
        #expect(FileManager.default.fileExists(atPath: local))
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: local)))

        // Now the default: moved into the bucket at start, the local folder gone.
        let system = try RunningSystem(workers: 0, directory: before.directory) { bucket.use(&$0) }
        defer { system.stop() }
        #expect(system.configuration.originalsPath == "s3://\(bucket.name)/originals")
        #expect(try bucket.client.get(bucket.object(firstSHA))?.bytes == plain)
        #expect(!FileManager.default.fileExists(atPath: before.directory.appendingPathComponent("originals").path))
        #expect(try OriginalsTests.original(first.id, system) == plain)

        // A new import keeps its original in the bucket only, as application/gzip.
        var command = try WorkCtl.parseAsRoot([
            "import", "--owner", "olga", "--coordinator", system.endpoints.control, try fixture("garmin-connect_ride_2020_short_ns3-hr.gpx"),
        ])
        try command.run()
        let feed: FeedReply = try Self.request(system, .feed, OriginalsTests.feedRequest(owner: "olga"))
        let second = try #require(feed.items.map(\.workout).first { $0.id != first.id })
        let secondSHA = try #require(second.file?.sha256)
        #expect(second.originalKept == true)
        #expect(try bucket.client.head(bucket.object(secondSHA))?.contentType == "application/gzip")
        #expect(!FileManager.default.fileExists(atPath: system.directory.appendingPathComponent("originals").path))

        // workctl reimport reads every original from the bucket; one missing there is skipped (exit 2).
        try Self.reimportAll(system)
        try bucket.client.delete(bucket.object(firstSHA))
        #expect(throws: ExitCode.self) { try Self.reimportAll(system) }

        // Deleted with its last workout: the object goes.
        let deleted: DeleteReply = try Self.request(system, .delete, DeleteRequest(ids: [second.id]))
        #expect(deleted.originals == 1)
        for _ in 0..<50 {
            guard try bucket.client.head(bucket.object(secondSHA)) != nil else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try bucket.client.head(bucket.object(secondSHA)) == nil)
    }

    /// One request through a client closed before it returns (a context ends only once its
    /// sockets are closed).
    static func request<Body: Encodable, Reply: Decodable>(_ system: RunningSystem, _ command: ControlCommand, _ body: Body) throws -> Reply {
        var client = try system.client()
        return try client.request(command, body)
    }

    /// With `originals.key_file`, originals in the bucket are sealed at start (no plain byte of the
    /// original in the object) and still served as they came.
    @Test func inTheBucketOriginalsAreSealedWithAKey() throws {
        let bucket = try Bucket()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-originals-\(UUID().uuidString).key")
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: keyFile)
        let plainSystem = try RunningSystem(workers: 0) { bucket.use(&$0) }
        let workout = try OriginalsTests.importFixture(plainSystem)
        let original = try #require(try OriginalsTests.original(workout.id, plainSystem))
        plainSystem.stop(keepingFiles: true)
        let sha = try #require(workout.file?.sha256)
        #expect(try bucket.client.get(bucket.object(sha))?.bytes == original)

        let sealed = try RunningSystem(workers: 0, directory: plainSystem.directory) {
            bucket.use(&$0)
            $0.originalsKeyFile = keyFile.path
        }
        defer { sealed.stop() }
        let stored = try #require(try bucket.client.get(bucket.object(sha))).bytes
        #expect(stored.starts(with: Array("WFO1".utf8)) && !stored.contains(subsequence: original))
        #expect(try OriginalsTests.original(workout.id, sealed) == original)
    }
}
