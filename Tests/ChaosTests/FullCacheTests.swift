import Foundation
import Testing
import WorkFeedModel
import WorkFeedWire

/// The picture cache's file system fills up during a bulk render and is freed again: every job
/// must end generated without an operator's help (issue 13, finding 5). The cache is a small tmpfs
/// that only the workers see (``SmallFileSystem``).
@Suite("Full cache", .serialized) struct FullCacheTests {
    /// WORKFEED_FULL_CACHE_ROUTES (25) workouts x 4 jobs; `make attack` runs it with more.
    @Test func aCacheThatFillsUpAndIsFreedLosesNoPicture() throws {
        let routes = ProcessInfo.processInfo.environment["WORKFEED_FULL_CACHE_ROUTES"].flatMap { Int($0) } ?? 25
        let jobs = routes * 4
        var settings = ChaosSystem.Settings()
        settings.workers = 2
        settings.threadsPerWorker = 1
        settings.maximumAttempts = 3  // the default: a full cache must not spend attempts
        // The mount point, made first: the workers' cache is the tmpfs mounted over it.
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-full-cache-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let fileSystem = try SmallFileSystem(
            mountPoint: mountPoint.path, sizeBytes: max(32, jobs / 8) << 20, logURL: mountPoint.appendingPathComponent("tmpfs.log"))
        defer { fileSystem.tearDown() }
        settings.workerPrefix = fileSystem.enter
        settings.cacheDirectory = mountPoint.path
        let system = try ChaosSystem(settings, label: "full-cache")
        defer { system.tearDown() }

        let files = try system.startWithAHundredJobs(routes: routes)

        // A fifth done, the file system fills up.
        _ = try system.waitFor("\(jobs / 5) pictures generated", timeout: 300, poll: 0.02) { $0.total(.generated) >= jobs / 5 }
        let filled = try fileSystem.fill()
        print("full cache: filled the cache's file system with \(filled) bytes")
        // The workers notice, stop taking jobs and step back; nothing fails for good meanwhile.
        let away = try system.waitFor("both workers stepped back", timeout: 60) { $0.workers.isEmpty }
        print("full cache: while full: \(ChaosSystem.describe(away))")
        Thread.sleep(forTimeInterval: 2)
        let stillFull = try system.status()
        #expect(stillFull.total(.failedNoRetry) == 0, "\(ChaosSystem.describe(stillFull))")
        #expect(stillFull.workers.isEmpty, "a worker took jobs on a full cache: \(ChaosSystem.describe(stillFull))")
        let generatedWhileFull = stillFull.total(.generated)

        // Freed: they come back by themselves and finish everything.
        try fileSystem.free()
        let freed = Date()
        let done = try system.waitFor("every job done after the cache was freed", timeout: 600) { $0.total(.pending) == 0 && $0.leased == 0 }
        print(
            "full cache: after freeing: \(ChaosSystem.describe(done)) (\(generatedWhileFull) were generated before it filled up; "
                + "\(String(format: "%.1f", Date().timeIntervalSince(freed))) s from freeing to the last picture)")
        #expect(done.total(.generated) == jobs)
        #expect(done.total(.failedNoRetry) == 0)
        let feed = try system.feed()
        #expect(feed.flatMap(\.pictures).allSatisfy { $0.attempts == 0 }, "a full cache counted attempts")
        // Each worker said what happened, and no temporary file is left in the cache.
        for worker in system.workers {
            #expect(worker.log().contains("the cache cannot be written"), "\(worker.name) did not step back:\n\(worker.logTail())")
            #expect(worker.log().contains("the cache can be written again"), "\(worker.name) did not come back:\n\(worker.logTail())")
        }
        let leftovers = (FileManager.default.enumerator(atPath: fileSystem.outside)?.compactMap { $0 as? String } ?? []).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(system.stop().isEmpty)
        let references = try ReferencePictures(
            files: files, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1], system: system,
            into: system.directory.appendingPathComponent("references"))
        let verification = Verification(
            feed: feed, files: files, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1], cacheDirectory: fileSystem.outside,
            references: references)
        #expect(verification.problems.isEmpty, "\(verification.problems.count) problems:\n\(verification.summary())")
        #expect(verification.bytesCompared == jobs)
        print("full cache: \(jobs) jobs, every one generated, \(verification.bytesCompared) PNGs identical to a local render, no attempt counted")
    }

    /// A worker whose cache is read-only refuses to start, saying so (exit 73), instead of taking
    /// jobs it would fail. The read-only mount is made in a mount namespace of its own.
    @Test func aWorkerRefusesToStartOnAReadOnlyCache() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-ro-cache-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let worker = try Binaries.url("workfeed-worker").path
        let result = try runToCompletion(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            (getuid() != 0 ? ["-r"] : []) + [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$1\" --cache \"$0\" --connect tcp://127.0.0.1:1",
                directory.path, worker,
            ], timeout: 60)
        #expect(result.status == 73, "exit \(result.status): \(result.output)")
        #expect(result.output.contains("Read-only file system") && result.output.contains(directory.path), "\(result.output)")
    }
}
