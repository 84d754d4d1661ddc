import Foundation
import Testing
import WorkFeedS3
import WorkFeedTesting
@testable import WorkFeedStore

/// One suite for every ``FileStore`` (the kept originals' seam): a private directory and a bucket
/// on a real S3-compatible server (moto, on loopback) behave the same: put, get, head, replace,
/// list, batch removal, nothing half-written seen, errors with their codes.
@Suite struct FileStoreConformanceTests {
    typealias Kind = PictureStoreConformanceTests.Kind

    /// A fresh, empty store of `kind`, and what removes it.
    final class Fixture {
        let store: any FileStore
        let client: S3Client?
        let directory: URL?

        init(_ kind: Kind) throws {
            switch kind {
            case .directory:
                let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-files-\(UUID().uuidString)")
                directory = url
                client = nil
                store = DirectoryFileStore(root: url.appendingPathComponent("originals").path)
            case .s3:
                let client = try MotoServer.shared.get().newBucket()
                self.client = client
                directory = nil
                store = S3FileStore(client: client, prefix: "originals")
            }
        }

        deinit { if let directory { try? FileManager.default.removeItem(at: directory) } }
    }

    static let kinds = PictureStoreConformanceTests.kinds

    @Test(arguments: kinds) func putGetHeadReplaceListAndDelete(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        let store = fixture.store
        #expect(try store.prepare() == 0)
        #expect(try store.names().isEmpty)
        #expect(try store.get("ab/abc.gz") == nil && store.head("ab/abc.gz", count: 4) == nil)
        #expect(try !store.contains("ab/abc.gz"))

        let first = (0..<5000).map { UInt8($0 % 251) }
        try store.put(first, as: "ab/abc.gz", contentType: "application/gzip")
        try store.put([9, 8, 7], as: "cd/cde.gz", contentType: "application/gzip")
        #expect(try store.get("ab/abc.gz") == first)
        #expect(try store.head("ab/abc.gz", count: 4) == [0, 1, 2, 3])
        #expect(try store.head("cd/cde.gz", count: 4) == [9, 8, 7])
        #expect(try store.contains("ab/abc.gz"))
        #expect(Set(try store.names()) == ["ab/abc.gz", "cd/cde.gz"])

        // Replaced whole.
        try store.put([1], as: "ab/abc.gz", contentType: "application/octet-stream")
        #expect(try store.get("ab/abc.gz") == [1])

        // Removed in one go; absent names are fine.
        #expect(store.delete(["ab/abc.gz", "cd/cde.gz", "ef/efg.gz"]).isEmpty)
        #expect(try store.names().isEmpty)
        #expect(try store.get("ab/abc.gz") == nil)
    }

    @Test(arguments: kinds) func moreThanOneBatchRequestIsRemoved(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        let names = (0..<(S3PictureStore.deleteBatchSize + 5)).map { String(format: "%02x/%05d.gz", $0 % 256, $0) }
        // Only a few are there; removing absent ones is fine.
        for name in names.suffix(7) { try fixture.store.put([0], as: name, contentType: "application/gzip") }
        #expect(fixture.store.delete(names).isEmpty)
        #expect(try fixture.store.names().isEmpty)
    }

    /// The directory keeps files its owner's alone: folders 0700, files 0600 whatever the umask,
    /// and what was wider is narrowed at start; no name climbs out of it.
    @Test func aDirectoryIsPrivateAndNamesStayInside() throws {
        let fixture = try Fixture(.directory)
        let store = try #require(fixture.store as? DirectoryFileStore)
        try store.put([1, 2], as: "ab/abc.gz", contentType: "application/gzip")
        func mode(_ path: String) throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) }
        #expect(try mode(store.root) == 0o700 && mode(store.root + "/ab") == 0o700 && mode(store.root + "/ab/abc.gz") == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.root + "/ab/abc.gz")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.root + "/ab")
        #expect(try store.prepare() == 2)
        #expect(try mode(store.root + "/ab") == 0o700 && mode(store.root + "/ab/abc.gz") == 0o600)
        for name in ["../escape.gz", "ab/../../x", "/etc/passwd", "ab//c", ""] {
            #expect(throws: PictureStoreError.self) { try store.put([0], as: name, contentType: "application/gzip") }
        }
        // Emptied, it goes.
        #expect(store.delete(try store.names()).isEmpty)
        store.removeEmptyFolders()
        #expect(!FileManager.default.fileExists(atPath: store.root))
    }

    /// Nothing listening: `unavailable` (transient, retried), naming the bucket and the endpoint.
    @Test func aBucketThatDoesNotAnswerIsUnavailable() throws {
        let port = try MotoServer.freePort()
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: credentials) }
        try "[default]\naws_access_key_id=a\naws_secret_access_key=b\n".write(to: credentials, atomically: true, encoding: .utf8)
        let store = try FileStores.open(
            .s3(bucket: "originals-here", prefix: "originals"),
            s3: S3StoreSettings(endpoint: "http://127.0.0.1:\(port)", credentialsFile: credentials.path), environment: [:])
        #expect(!store.isLocal)
        var errors: [PictureStoreError] = []
        do { _ = try store.prepare() } catch { errors.append(error) }
        do { _ = try store.get("ab/abc.gz") } catch { errors.append(error) }
        #expect(errors.count == 2, "nothing listening answered")
        for error in errors {
            #expect(error.code == .unavailable && error.isTransient, "\(error)")
            #expect("\(error)".contains("originals-here") && "\(error)".contains("127.0.0.1:\(port)"), "\(error)")
        }
    }
}
