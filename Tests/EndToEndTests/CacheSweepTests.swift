import Foundation
import Testing
@testable import WorkFeedWorker

@Suite struct CacheSweepTests {
    @Test func leftoversOfDeadWritersGoAndLiveOnesStay() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-sweep-\(UUID().uuidString)")
        let directory = root.appendingPathComponent("route/3f")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let host = CacheWriter.hostTag
        // A pid that cannot exist (above pid_max), one that does (ours), another host's, and a picture.
        let dead = directory.appendingPathComponent(".3f2a_light.png.\(host).2147483646.7.tmp")
        let live = directory.appendingPathComponent(".3f2a_dark.png.\(host).\(getpid()).8.tmp")
        let elsewhere = directory.appendingPathComponent(".3f2b_dark.png.otherhost.123.9.tmp")
        let picture = directory.appendingPathComponent("3f2a_light.png")
        for file in [dead, live, elsewhere, picture] { try Data([1]).write(to: file) }
        #expect(CacheWriter.sweep(root: root.path) == 1)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(FileManager.default.fileExists(atPath: picture.path))
        // An hour later, another host's leftover is stale too; the picture never goes.
        #expect(CacheWriter.sweep(root: root.path, now: Date().addingTimeInterval(7_200)) == 2)
        #expect(FileManager.default.fileExists(atPath: picture.path))
    }
}
