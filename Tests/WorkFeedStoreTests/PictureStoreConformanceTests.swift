import Foundation
import Synchronization
import Testing
import WorkFeedModel
import WorkFeedS3
import WorkFeedTesting
@testable import WorkFeedStore

/// One suite for every ``PictureStore``: the directory store and the S3 store (on a real
/// S3-compatible server, moto, on loopback) must behave the same: put, get, replace, delete, list
/// by prefix, by-content names, no partial object visible, errors with their codes.
@Suite struct PictureStoreConformanceTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case directory, s3
        var testDescription: String { rawValue }
    }

    /// A fresh, empty store of `kind`, and what removes it.
    final class Fixture {
        let store: any PictureStore
        let client: S3Client?
        private let directory: URL?

        init(_ kind: Kind) throws {
            switch kind {
            case .directory:
                let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-conformance-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                directory = url
                client = nil
                store = DirectoryPictureStore(root: url.path)
            case .s3:
                let client = try MotoServer.shared.get().newBucket()
                self.client = client
                directory = nil
                store = S3PictureStore(client: client, prefix: "pictures/v1")
            }
        }

        deinit { if let directory { try? FileManager.default.removeItem(at: directory) } }
    }

    static let kinds: [Kind] = MotoServer.isInstalled ? Kind.allCases : [.directory]

    let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .dark, scale: 2)
    static func key(_ byte: String) -> String { String(repeating: byte, count: 32) }
    static func png(_ key: String?, _ extra: [UInt8]) -> [UInt8] { DirectoryPictureStoreTests.png(key: key, extra: extra) }

    @Test func theS3StoreIsTestedHere() {
        // Say so when the S3 half cannot run (make test installs moto, so it always runs there).
        withKnownIssue(Comment(rawValue: MotoServer.skipReason), isIntermittent: true) { #expect(MotoServer.isInstalled) }
    }

    @Test(arguments: kinds) func putGetReplaceAndDelete(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        let store = fixture.store
        let key = Self.key("9c")
        #expect(try store.picture(key: key) == nil)
        #expect(try store.picture(picture) == nil)
        #expect(!store.contains(key: key) && !store.contains(picture))
        let first = Self.png(key, [1, 2, 3])
        try store.put(first, for: picture, key: key)
        #expect(try store.picture(key: key) == first)
        #expect(try store.picture(picture) == first)
        #expect(store.contains(key: key) && store.contains(picture))
        #expect(store.embeddedKey(of: picture) == key)
        #expect(store.isNamed(picture, key: key))

        // Replaced under another key: the picture's name has the new bytes, the old key its own.
        let newKey = Self.key("0a")
        let second = Self.png(newKey, [4, 5])
        try store.put(second, for: picture, key: newKey)
        #expect(try store.picture(picture) == second)
        #expect(try store.picture(key: newKey) == second)
        #expect(try store.picture(key: key) == first)
        #expect(store.isNamed(picture, key: newKey) && !store.isNamed(picture, key: key))

        try store.delete(key: key)
        #expect(try store.picture(key: key) == nil)
        try store.delete(picture)
        #expect(try store.picture(picture) == nil && !store.contains(picture))
        // Absent is not an error.
        try store.delete(picture)
        try store.delete(key: key)
    }

    @Test(arguments: kinds) func listingsByPrefix(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let ids = ["3f000000-0000-4000-8000-000000000001", "3f100000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003"]
        var pictures: [PictureID] = []
        for (number, id) in ids.enumerated() {
            let picture = PictureID(workoutID: WorkoutID(UUID(uuidString: id)!), kind: number == 1 ? .heatmap : .route, theme: .light, scale: 1)
            let key = ["3f", "3e", "a1"][number] + String(repeating: "0", count: 62)
            try store.put(Self.png(key, [UInt8(number)]), for: picture, key: key)
            pictures.append(picture)
        }
        #expect(Set(try store.pictures(withPrefix: "3f")) == Set(pictures.prefix(2)))
        #expect(Set(try store.pictures(withPrefix: "3")) == Set(pictures.prefix(2)))
        #expect(try store.pictures(withPrefix: "3f1") == [pictures[1]])
        #expect(Set(try store.pictures(withPrefix: "")) == Set(pictures))
        #expect(try store.keys(withPrefix: "3f") == ["3f" + String(repeating: "0", count: 62)])
        #expect(Set(try store.keys(withPrefix: "3")).count == 2)
        #expect(try store.keys(withPrefix: "b").isEmpty)
    }

    @Test(arguments: kinds) func byContentNames(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let key = Self.key("5b")
        let bytes = Self.png(key, [7])
        try store.put(bytes, for: picture, key: key)
        // Only the by-content name left: given back to the picture.
        try store.delete(picture)
        try store.name(key: key, as: picture)
        #expect(try store.picture(picture) == bytes)
        // A picture there already stays.
        let other = Self.png(Self.key("6c"), [8])
        try store.put(other, for: picture, key: Self.key("6c"))
        try store.name(key: key, as: picture)
        #expect(try store.picture(picture) == other)
        // A by-content name made for a picture that had none.
        try store.delete(key: Self.key("6c"))
        try store.name(picture, key: Self.key("6c"))
        #expect(try store.picture(key: Self.key("6c")) == other)
        // Nothing under a key: nothing named.
        let lonely = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .light, scale: 1)
        try store.name(key: Self.key("77"), as: lonely)
        #expect(!store.contains(lonely))
    }

    @Test(arguments: kinds) func conditionalRemovalLeavesAnotherKeysPicture(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let old = Self.key("11")
        let new = Self.key("22")
        try store.put(Self.png(new, [2]), for: picture, key: new)
        #expect(try store.delete(picture, ifKey: old) == false)
        #expect(try store.picture(picture) == Self.png(new, [2]))
        #expect(try store.delete(picture, ifKey: new) == true)
        #expect(try store.picture(picture) == nil)
        #expect(try store.delete(picture, ifKey: new) == false)
    }

    @Test(arguments: kinds) func batchRemovalTakesMoreThanOneRequestsWorth(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        let store = fixture.store
        // 1,003 by-content names: more than one DeleteObjects request (1,000 keys) on S3.
        var keys: [String] = []
        let bytes = Self.png(nil, [1])
        for number in 0..<1003 {
            let key = String(format: "%064x", number * 7919)
            keys.append(key)
            if let client = fixture.client {
                try client.put("pictures/v1/" + CacheLayout.relativePath(forKey: key)!, bytes, contentType: "image/png")
            } else {
                try store.put(bytes, for: PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .light, scale: 1), key: key)
            }
        }
        try store.put(Self.png(Self.key("ab"), [1]), for: picture, key: Self.key("ab"))
        #expect(Set(try store.keys(withPrefix: "")).count == 1004)
        let failures = store.delete(pictures: [picture], keys: keys)
        #expect(failures.isEmpty, "\(failures.prefix(3).map(\.error))")
        #expect(try store.keys(withPrefix: "") == [Self.key("ab")])
        #expect(!store.contains(picture))
    }

    @Test(arguments: kinds) func whatIsNotThatPictureIsRefusedAsCorrupt(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let key = Self.key("cd")
        try store.put(Array("not a picture".utf8), for: picture, key: key)
        #expect(throws: PictureStoreError.self) { try store.picture(key: key) }
        do {
            _ = try store.picture(key: key)
        } catch {
            #expect(error.code == .corrupt && error.refusal == .notPNG)
        }
        // A PNG whose embedded key is another's.
        try store.put(Self.png(Self.key("ef"), [1]), for: picture, key: key)
        do {
            _ = try store.picture(key: key)
            Issue.record("served another key's picture")
        } catch {
            #expect(error.code == .corrupt && error.refusal == .otherKey)
        }
    }

    /// Issue 37, item 9: a "picture" larger than any this system draws (its head a real picture's,
    /// with its key, then padding) is refused by its size, as `too-large`, never returned; one of
    /// exactly the largest size is a picture. Before, a bucket's object of any size was read whole.
    @Test(arguments: kinds) func anObjectLargerThanAnyPictureIsRefused(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let key = Self.key("5a")
        let head = Self.png(key, [])
        let largest = head + [UInt8](repeating: 0x41, count: StoredPicture.maximumBytes - head.count)
        try store.put(largest, for: picture, key: key)
        #expect(try store.picture(key: key)?.count == StoredPicture.maximumBytes)
        try store.put(largest + [0x41], for: picture, key: key)
        for name in ["by key", "by picture"] {
            do {
                let bytes = name == "by key" ? try store.picture(key: key) : try store.picture(picture)
                Issue.record("\(name): read \(bytes?.count ?? 0) bytes, over the \(StoredPicture.maximumBytes) of the largest picture")
            } catch {
                #expect(error.refusal == .tooLarge, "\(name): \(error)")
                #expect(error.reason.contains("larger than the largest picture"), "\(error.reason)")
            }
        }
    }

    /// Readers while a picture is replaced again and again: each read is one whole picture.
    @Test(arguments: kinds) func noPartialPictureIsEverSeen(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let key = Self.key("44")
        let versions = (0..<4).map { Self.png(key, [UInt8](repeating: UInt8($0), count: 200_000 + $0 * 10_000)) }
        try store.put(versions[0], for: picture, key: key)
        final class Shared: Sendable {
            let writing = Atomic(true)
            let seen = Mutex<[Int]>([])
            let done = DispatchSemaphore(value: 0)
        }
        let shared = Shared()
        let picture = picture
        let reader = Thread {
            while shared.writing.load(ordering: .relaxed) {
                if let bytes = try? store.picture(picture) {
                    shared.seen.withLock { $0.append(versions.firstIndex(of: bytes) ?? -1) }
                }
            }
            shared.done.signal()
        }
        reader.start()
        for round in 1..<20 { try store.put(versions[round % 4], for: picture, key: key) }
        shared.writing.store(false, ordering: .relaxed)
        shared.done.wait()
        let reads = shared.seen.withLock { $0 }
        #expect(!reads.isEmpty)
        #expect(!reads.contains(-1), "a read was not one whole version")
    }
}
