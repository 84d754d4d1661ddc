import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedStore

#if canImport(Glibc)
import Glibc
#endif

/// The shared directory as a ``PictureStore``, on a real temporary directory.
@Suite struct DirectoryPictureStoreTests {
    final class Root {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-store-\(UUID().uuidString)")
        var path: String { url.path }
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .dark, scale: 2)
    let key = String(repeating: "9c", count: 32)

    /// The start of a PNG as workers write it (signature, `IHDR`, the key's `tEXt` chunk) and
    /// `extra` bytes to tell pictures apart; CRCs are not checked by the reader, so they are zero.
    static func png(key: String?, extra: [UInt8] = []) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + Array(type.utf8) + data
                + [0, 0, 0, 0]
        }
        var bytes = PNGText.signature + chunk("IHDR", [UInt8](repeating: 0, count: 13))
        if let key { bytes += chunk("tEXt", Array(CacheLayout.keyTextKeyword.utf8) + [0] + Array(key.utf8)) }
        return bytes + chunk("IDAT", extra) + chunk("IEND", [])
    }

    @Test func aPictureIsStoredUnderBothNamesReadRemovedAndListed() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        #expect(try store.picture(key: key) == nil)
        #expect(try store.picture(picture) == nil)
        #expect(!store.contains(key: key) && !store.contains(picture))
        let first = Self.png(key: key, extra: [1, 2, 3])
        try store.put(first, for: picture, key: key)
        #expect(try store.picture(key: key) == first)
        #expect(try store.picture(picture) == first)
        #expect(store.contains(key: key) && store.contains(picture))
        #expect(store.location(of: picture) == root.path + "/" + CacheLayout.relativePath(for: picture))
        // The by-content name is the same file (a hard link), not a copy.
        var byPicture = stat(), byKey = stat()
        stat(store.location(of: picture), &byPicture)
        stat(root.path + "/" + CacheLayout.relativePath(forKey: key)!, &byKey)
        #expect(byPicture.st_ino == byKey.st_ino)
        // Drawn again under another key: both names hold the new bytes, the old key still its own.
        let newKey = String(repeating: "0a", count: 32)
        let second = Self.png(key: newKey, extra: [4, 5])
        try store.put(second, for: picture, key: newKey)
        #expect(try store.picture(picture) == second)
        #expect(try store.picture(key: newKey) == second)
        #expect(try store.picture(key: key) == first)
        #expect(Set(try store.keys(withPrefix: "")) == [key, newKey])
        #expect(try store.keys(withPrefix: "9c") == [key])
        #expect(try store.keys(withPrefix: "0a0a").count == 1)
        try store.delete(key: key)
        try store.delete(key: key)  // absent is fine
        try store.delete(picture)
        #expect(try store.picture(key: key) == nil)
        #expect(try store.picture(picture) == nil)
        #expect(try store.picture(key: newKey) == second)
        // No temporary file is left behind by any of it.
        let left = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }

    @Test func aPictureStoredBeforeItHadAByContentNameGetsOne() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        let bytes = Self.png(key: key, extra: [7])
        try store.put(bytes, for: picture, key: "not a key")
        #expect(try store.keys(withPrefix: "").isEmpty)
        try store.name(picture, key: key)
        #expect(try store.picture(key: key) == bytes)
    }

    @Test func notACacheKeyNeverBecomesAPath() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        for bad in ["../../etc/passwd", "9C" + String(repeating: "0", count: 62), String(repeating: "0", count: 63), ""] {
            #expect(try store.picture(key: bad) == nil)
            #expect(!store.contains(key: bad))
            try store.delete(key: bad)
        }
    }

    /// What `picture(key:)` refuses, and why: the store is written by every worker host, so a name
    /// under `keys/` may be a link to the token secret, the index or `/etc/passwd` (issue 23,
    /// finding 2), a FIFO, or another file.
    func refusal(_ store: DirectoryPictureStore, key: String) -> PictureStoreError.Refusal? {
        do {
            let bytes = try store.picture(key: key)
            Issue.record("served \(bytes?.count ?? -1) bytes for \(key.prefix(8))")
            return nil
        } catch {
            return error.refusal
        }
    }

    @Test func onlyRegularPNGFilesWithTheirOwnKeyAreServedNoLinkIsFollowed() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        let secret = root.url.appendingPathComponent("token.secret")
        try Data("the token secret".utf8).write(to: secret)
        let keys = root.url.appendingPathComponent("keys")
        func name(_ key: String) -> String { root.path + "/" + CacheLayout.relativePath(forKey: key)! }
        func key(_ digit: Character) -> String { String(repeating: digit, count: 64) }
        for folder in ["aa", "bb", "cc", "dd", "ee", "ff"] {
            try FileManager.default.createDirectory(at: keys.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // A link to a file outside the store, and one to a real picture of that key elsewhere.
        #expect(symlink("/etc/passwd", name(key("a"))) == 0)
        #expect(refusal(store, key: key("a")) == .symbolicLink)
        let elsewhere = root.url.appendingPathComponent("elsewhere.png").path
        try Data(Self.png(key: key("b"))).write(to: URL(fileURLWithPath: elsewhere))
        #expect(symlink(elsewhere, name(key("b"))) == 0)
        #expect(refusal(store, key: key("b")) == .symbolicLink)
        #expect(!store.contains(key: key("b")))
        // A link on the way: keys/0c is a link to a directory holding a real picture of that key.
        let decoy = root.url.appendingPathComponent("decoy")
        try FileManager.default.createDirectory(at: decoy, withIntermediateDirectories: true)
        let viaLink = "0c" + String(repeating: "0", count: 62)
        try Data(Self.png(key: viaLink)).write(to: decoy.appendingPathComponent(viaLink + ".png"))
        #expect(symlink(decoy.path, keys.appendingPathComponent("0c").path) == 0)
        #expect(refusal(store, key: viaLink) == .symbolicLink)
        #expect(!store.contains(key: viaLink))
        // A hard link to a file that is not a PNG (links cannot be seen, the bytes can).
        #expect(link(secret.path, name(key("c"))) == 0)
        #expect(refusal(store, key: key("c")) == .notPNG)
        // A FIFO: refused at once, never waited on.
        #expect(mkfifo(name(key("d")), 0o644) == 0)
        #expect(refusal(store, key: key("d")) == .notRegularFile)
        // A directory under a picture's name.
        try FileManager.default.createDirectory(atPath: name(key("e")), withIntermediateDirectories: true)
        #expect(refusal(store, key: key("e")) == .notRegularFile)
        // Another picture's bytes under this name, and a PNG without a key.
        try Data(Self.png(key: key("1"))).write(to: URL(fileURLWithPath: name(key("f"))))
        #expect(refusal(store, key: key("f")) == .otherKey)
        try Data(Self.png(key: nil)).write(to: URL(fileURLWithPath: name(key("f"))))
        #expect(refusal(store, key: key("f")) == .otherKey)
        // By picture too: a link planted under a picture's own name is not followed.
        try FileManager.default.createDirectory(
            atPath: (store.location(of: picture) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(symlink(elsewhere, store.location(of: picture)) == 0)
        do {
            _ = try store.picture(picture)
            Issue.record("followed a link planted under a picture's name")
        } catch {
            #expect(error.refusal == .symbolicLink)
        }
        // And what a worker writes is served, through its hard link.
        try FileManager.default.removeItem(atPath: store.location(of: picture))
        let real = Self.png(key: key("9"), extra: [9])
        try store.put(real, for: picture, key: key("9"))
        #expect(try store.picture(key: key("9")) == real)
        #expect(store.contains(key: key("9")))
    }

    @Test func storageFailuresNameTheStepAndTheirCode() throws {
        let store = DirectoryPictureStore(root: "/nonexistent-\(UUID().uuidString)")
        do {
            try store.probe()
            Issue.record("probed a directory that does not exist")
        } catch {
            #expect(
                error.step == "stat" && error.code == .notFound && error.failureCode == .cacheIO
                    && error.reason.hasPrefix("cannot use the cache directory"))
        }
        do {
            try store.put([1], for: picture, key: key)
            Issue.record("wrote into a directory that does not exist")
        } catch {
            #expect(error.step == "mkdir" && error.path.hasPrefix("/nonexistent-"))
        }
    }

    @Test func leftoversOfDeadWritersGoAndLiveOnesStay() throws {
        let root = try Root()
        let directory = root.url.appendingPathComponent("route/3f")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let host = DirectoryPictureStore.hostTag
        // A pid that cannot exist (above pid_max), one that does (ours), another host's, and a picture.
        let dead = directory.appendingPathComponent(".3f2a_light.png.\(host).2147483646.7.tmp")
        let live = directory.appendingPathComponent(".3f2a_dark.png.\(host).\(getpid()).8.tmp")
        let elsewhere = directory.appendingPathComponent(".3f2b_dark.png.otherhost.123.9.tmp")
        let picture = directory.appendingPathComponent("3f2a_light.png")
        for file in [dead, live, elsewhere, picture] { try Data([1]).write(to: file) }
        #expect(DirectoryPictureStore(root: root.path).removeAbandonedWrites() == 1)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(FileManager.default.fileExists(atPath: picture.path))
        // An hour later, another host's leftover is stale too; the picture never goes.
        #expect(DirectoryPictureStore.sweep(root: root.path, now: Date().addingTimeInterval(7_200)) == 2)
        #expect(FileManager.default.fileExists(atPath: picture.path))
    }

    /// The start of a PNG carrying `key` as its `workfeed:cache-key` text (what the store reads;
    /// CRCs are not checked there).
    static func png(key: String, filler: UInt8 = 0) -> [UInt8] {
        let text = Array("workfeed:cache-key".utf8) + [0] + Array(key.utf8)
        let length = UInt32(text.count)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + Array("tEXt".utf8) + text + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("IEND".utf8) + [0, 0, 0, 0, filler]
    }

    /// Issue 23: a refused or late picture's by-picture name goes only while it holds that
    /// picture; one drawn since under another key stays, and so does its by-content name.
    @Test func aPictureNameIsRemovedOnlyWhileItHoldsTheKeyAsked() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        let late = String(repeating: "1b", count: 32)
        #expect(try store.delete(picture, ifKey: late) == false)  // nothing there
        try store.put(Self.png(key: late), for: picture, key: late)
        #expect(store.embeddedKey(of: picture) == late)
        #expect(store.isNamed(picture, key: late))
        #expect(try store.delete(picture, ifKey: late))
        #expect(!store.contains(picture) && store.contains(key: late))
        // A newer picture under another key is put back, whole, under its name.
        try store.put(Self.png(key: key, filler: 7), for: picture, key: key)
        #expect(try store.delete(picture, ifKey: late) == false)
        #expect(try store.picture(picture) == Self.png(key: key, filler: 7))
        #expect(store.isNamed(picture, key: key) && !store.isNamed(picture, key: late))
        // A late picture written over the current one: removed, the name goes back to the current one.
        try store.put(Self.png(key: late, filler: 9), for: picture, key: late)
        #expect(try store.delete(picture, ifKey: late))
        try store.name(key: key, as: picture)
        #expect(try store.picture(picture) == Self.png(key: key, filler: 7) && store.isNamed(picture, key: key))
        // It never replaces a picture there, and a key without a picture gives nothing.
        try store.put(Self.png(key: late, filler: 3), for: picture, key: late)
        try store.name(key: key, as: picture)
        #expect(store.embeddedKey(of: picture) == late)
        let other = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: .light)
        try store.name(key: String(repeating: "77", count: 32), as: other)
        #expect(!store.contains(other))
        // Nothing left aside.
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func picturesAreListedByPrefixAndTheLayoutReadsBack() throws {
        let root = try Root()
        let store = DirectoryPictureStore(root: root.path)
        let heatmap = PictureID(workoutID: picture.workoutID, kind: .heatmap, theme: .light, scale: 1)
        try store.put([1], for: picture, key: key)
        try store.put([2], for: heatmap, key: String(repeating: "0a", count: 32))
        try FileManager.default.createDirectory(atPath: root.path + "/route/zz", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root.path + "/route/zz/not-a-picture.png", contents: Data([1])))
        let prefix = String(picture.workoutID.description.prefix(2))
        #expect(Set(try store.pictures(withPrefix: prefix)) == [picture, heatmap])
        #expect(Set(try store.pictures(withPrefix: "")) == [picture, heatmap])
        for id in [picture, heatmap] { #expect(CacheLayout.picture(atRelativePath: CacheLayout.relativePath(for: id)) == id) }
        for path in ["route/3f/x_light.png", "route/3f/\(picture.workoutID)_purple.png", "keys/9c/\(key).png", "route/\(picture.workoutID)_dark.png"]
        {
            #expect(CacheLayout.picture(atRelativePath: path) == nil, "\(path)")
        }
    }
}
