import ArgumentParser
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedWire

/// Issue 23, finding 3: kept originals hold what privacy zones hide, so they are kept where only
/// the coordinator reads them (`originals.directory`, by default beside the index), private, and
/// never in the shared cache that every worker host mounts.
@Suite(.serialized) struct OriginalsTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    static func importFixture(_ system: RunningSystem) throws -> WorkoutRecord {
        var command = try WorkCtl.parseAsRoot([
            "import", "--owner", "olga", "--coordinator", system.endpoints.control, try fixture("strava_run_2015_short_gpxtpx-hr.gpx"),
        ])
        try command.run()
        var client = try system.client()
        let feed: FeedReply = try client.request(.feed, feedRequest(owner: "olga"))
        return try #require(feed.items.first?.workout)
    }

    static func feedRequest(owner: String) -> FeedRequest {
        var request = FeedRequest(limit: 10)
        request.owner = owner
        return request
    }

    @Test func anOriginalIsKeptPrivateOutsideTheCache() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let workout = try Self.importFixture(system)
        let sha = try #require(workout.file?.sha256)
        #expect(workout.originalKept == true)
        let originals = system.directory.appendingPathComponent("originals").path
        let kept = "\(originals)/\(sha.prefix(2))/\(sha).gz"
        #expect(FileManager.default.fileExists(atPath: kept), "the original is not beside the index")
        #expect(!FileManager.default.fileExists(atPath: system.configuration.cacheDirectory + "/files"), "originals in the workers' cache")
        #expect(try Self.mode(kept) == 0o600)
        #expect(try Self.mode(originals) == 0o700)
        #expect(try Self.mode("\(originals)/\(sha.prefix(2))") == 0o700)
        // Still served to operators.
        var client = try system.client()
        let reply = try client.requestWithAttachments(.original, OriginalRequest(id: workout.id))
        #expect(reply.attachments.first == [UInt8](try Data(contentsOf: URL(fileURLWithPath: kept))))
    }

    /// An original an earlier release left in `<cache>/files/` (mode 644) is moved at start and
    /// served from its new place; the folder in the cache is gone.
    @Test func originalsInTheCacheAreMovedOutAtStart() throws {
        let first = try RunningSystem(workers: 0)
        let workout = try Self.importFixture(first)
        first.stop(keepingFiles: true)
        let sha = try #require(workout.file?.sha256)
        let kept = first.directory.appendingPathComponent("originals/\(sha.prefix(2))/\(sha).gz").path
        let legacyFolder = first.configuration.cacheDirectory + "/files/\(sha.prefix(2))"
        try FileManager.default.createDirectory(atPath: legacyFolder, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: kept, toPath: "\(legacyFolder)/\(sha).gz")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(legacyFolder)/\(sha).gz")

        let second = try RunningSystem(workers: 0, directory: first.directory)
        defer { second.stop() }
        #expect(!FileManager.default.fileExists(atPath: second.configuration.cacheDirectory + "/files"))
        #expect(FileManager.default.fileExists(atPath: kept))
        #expect(try Self.mode(kept) == 0o600)
        var client = try second.client()
        let reply = try client.requestWithAttachments(.original, OriginalRequest(id: workout.id))
        #expect(reply.attachments.first?.isEmpty == false)
    }

    /// With `originals.key_file`, originals are sealed on disk and opened for ORIGINAL; plain ones
    /// kept before the key was set are sealed at start; without the key they are refused, saying why.
    @Test func withAKeyOriginalsAreSealedAndStillServed() throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-originals-\(UUID().uuidString).key")
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: keyFile)
        // Each client is closed before its system stops: a context ends only once its sockets are closed.
        let plain = try RunningSystem(workers: 0)
        let workout = try Self.importFixture(plain)
        let original = try Self.original(workout.id, plain)
        plain.stop(keepingFiles: true)
        let sha = try #require(workout.file?.sha256)
        let kept = plain.directory.appendingPathComponent("originals/\(sha.prefix(2))/\(sha).gz").path
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)).starts(with: [0x1F, 0x8B]))

        // Restarted with a key: sealed at start, still served as it came.
        let sealed = try RunningSystem(workers: 0, directory: plain.directory, adjust: { $0.originalsKeyFile = keyFile.path })
        let onDisk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: kept)))
        #expect(onDisk.starts(with: Array("WFO1".utf8)) && !onDisk.contains(subsequence: original ?? [1]))
        #expect(try Self.mode(kept) == 0o600)
        #expect(try Self.original(workout.id, sealed) == original)
        sealed.stop(keepingFiles: true)

        // Without the key it cannot be read, and ORIGINAL says why.
        let keyless = try RunningSystem(workers: 0, directory: plain.directory)
        defer { keyless.stop() }
        #expect {
            _ = try Self.original(workout.id, keyless)
        } throws: { error in
            "\(error)".contains("originals.key_file")
        }
    }

    /// ORIGINAL's file, through a client closed before it returns.
    static func original(_ id: WorkoutID, _ system: RunningSystem) throws -> [UInt8]? {
        var client = try system.client()
        return try client.requestWithAttachments(.original, OriginalRequest(id: id)).attachments.first
    }

    @Test func anOriginalsDirectoryInsideTheCacheIsRefused() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await CoordinatorConfiguration.load(
                file: nil, environment: [:], overrides: ["cache.directory": "/srv/cache", "originals.directory": "/srv/cache/files"])
        }
        let fine = try await CoordinatorConfiguration.load(file: nil, environment: [:], overrides: ["index.path": "/srv/wf/index.sqlite"])
        #expect(fine.originalsPath == "/srv/wf/originals")
    }
}

extension Array where Element == UInt8 {
    /// Whether `other` occurs in these bytes.
    func contains(subsequence other: [UInt8]) -> Bool {
        guard !other.isEmpty, other.count <= count else { return false }
        return (0...(count - other.count)).contains { self[$0..<($0 + other.count)].elementsEqual(other) }
    }
}
