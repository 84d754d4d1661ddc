import Foundation
import Testing
import WorkFeedModel
import WorkFeedS3
import WorkFeedTesting
@testable import WorkFeedStore

/// What only the S3 store has: its errors' codes from a real server's answers (a missing bucket,
/// refused credentials, nothing listening), its objects' headers, and the factory that makes it.
@Suite(.enabled(if: MotoServer.isInstalled, Comment(rawValue: MotoServer.skipReason))) struct S3PictureStoreTests {
    let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: .light, scale: 1)
    let key = String(repeating: "3c", count: 32)

    @Test func aMissingBucketIsNotFoundNamingTheBucketAndTheEndpoint() throws {
        let server = try MotoServer.shared.get()
        let client = try S3Client(
            S3Configuration(bucket: "no-such-bucket-here", endpoint: server.endpoint, credentials: .fixed(MotoServer.credentials)))
        let store = S3PictureStore(client: client, prefix: "p")
        for check in [store.checkReachable, store.probe] {
            do {
                try check()
                Issue.record("a missing bucket passed")
            } catch {
                #expect(error.code == .notFound)
                #expect(error.description.contains("no-such-bucket-here") && error.description.contains(server.endpoint), "\(error)")
                #expect(error.cause is S3Error)
            }
        }
    }

    @Test func nothingListeningIsUnavailableAndCountsAsACacheFailure() throws {
        let port = try MotoServer.freePort()
        let client = try S3Client(
            S3Configuration(bucket: "bucket", endpoint: "http://127.0.0.1:\(port)", credentials: .fixed(MotoServer.credentials), timeoutSeconds: 2))
        let store = S3PictureStore(client: client, prefix: "")
        do {
            try store.put(DirectoryPictureStoreTests.png(key: key), for: picture, key: key)
            Issue.record("wrote to nothing")
        } catch {
            #expect(error.code == .unavailable && error.isTransient)
            #expect(error.failureCode == .cacheUnavailable && error.failureCode.isCacheFailure && error.failureCode.isEnvironmental)
            #expect(error.description.contains("127.0.0.1:\(port)"))
        }
    }

    @Test func objectsAreWrittenAsPNGsAndTheByContentOneIsImmutable() throws {
        let server = try MotoServer.shared.get()
        let client = try server.newBucket()
        let store = S3PictureStore(client: client, prefix: "cache")
        try store.put(DirectoryPictureStoreTests.png(key: key), for: picture, key: key)
        let byKey = try #require(try client.head("cache/" + CacheLayout.relativePath(forKey: key)!))
        #expect(byKey.contentType == "image/png" && byKey.cacheControl == S3PictureStore.immutableCacheControl)
        let byPicture = try #require(try client.head(store.objectKey(picture)))
        #expect(byPicture.contentType == "image/png" && byPicture.cacheControl == nil)
        let url = URL(string: store.publicURL(key: key, base: nil)!)!
        #expect(url.path == "/\(client.configuration.bucket)/cache/" + CacheLayout.relativePath(forKey: key)!)
        #expect(store.publicURL(key: key, base: "https://cdn.example/")! == "https://cdn.example/cache/" + CacheLayout.relativePath(forKey: key)!)
    }

    @Test func theFactoryMakesAnS3StoreFromALocationAndSettings() throws {
        let server = try MotoServer.shared.get()
        let client = try server.newBucket()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-credentials-\(UUID().uuidString)")
        try
            "[workfeed]\naws_access_key_id = \(MotoServer.credentials.accessKeyID)\naws_secret_access_key = \(MotoServer.credentials.secretAccessKey)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let location = try StoreLocation(parsing: "s3://\(client.configuration.bucket)/a/b")
        let store = try PictureStores.open(
            location, s3: S3StoreSettings(endpoint: server.endpoint, credentialsFile: file.path, profile: "workfeed"), environment: [:])
        let s3 = try #require(store as? S3PictureStore)
        #expect(s3.prefix == "a/b/" && s3.client.configuration.pathStyle && s3.client.configuration.region == "us-east-1")
        try store.checkReachable()
        try store.probe()
        // Without credentials anywhere: refused at once, saying where they are looked for.
        let refused = #expect(throws: PictureStoreError.self) {
            _ = try PictureStores.open(location, s3: S3StoreSettings(endpoint: server.endpoint), environment: [:])
        }
        #expect(refused?.code == .denied && "\(refused.map { "\($0)" } ?? "")".contains("AWS_ACCESS_KEY_ID"))
    }

    /// A server that checks credentials: a wrong key is refused (`denied`); a credentials file
    /// rewritten with a good key is read again on the next refusal, without a restart.
    /// (Disabled once: moto's `/moto-api/reset-auth` got its count as a form and turned nothing on;
    /// ``MotoServer/enforceCredentials()`` now sends it as text and checks the answer.)
    @Test func refusedCredentialsAreDeniedAndARotatedFileIsReadAgain() throws {
        let server = try MotoServer()
        let good = try server.enforceCredentials()
        let bucket = "wf-auth-\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try S3Client(S3Configuration(bucket: bucket, endpoint: server.endpoint, credentials: .fixed(good)))
        try admin.createBucket()

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        func write(_ credentials: S3Credentials) throws {
            try "[default]\naws_access_key_id=\(credentials.accessKeyID)\naws_secret_access_key=\(credentials.secretAccessKey)\n"
                .write(to: file, atomically: true, encoding: .utf8)
        }
        try write(S3Credentials(accessKeyID: "AKIAWRONGWRONGWRONG0", secretAccessKey: "wrong"))
        let store = try PictureStores.open(
            .s3(bucket: bucket, prefix: ""), s3: S3StoreSettings(endpoint: server.endpoint, credentialsFile: file.path), environment: [:])
        do {
            try store.checkReachable()
            try store.probe()
            Issue.record("a wrong key was accepted")
        } catch {
            #expect(error.code == .denied, "\(error)")
            #expect(error.failureCode == .cacheDenied)
            // Clear: the bucket, the endpoint, and what S3 said.
            #expect("\(error)".contains(bucket) && "\(error)".contains(server.endpoint) && "\(error)".contains("HTTP 403"), "\(error)")
        }
        // A bucket's own files (the kept originals) are refused the same way.
        let files = try FileStores.open(
            .s3(bucket: bucket, prefix: "originals"), s3: S3StoreSettings(endpoint: server.endpoint, credentialsFile: file.path),
            environment: [:])
        #expect(throws: PictureStoreError.self) { try files.put([1, 2, 3], as: "ab/c.gz", contentType: "application/gzip") }
        try write(good)
        Thread.sleep(forTimeInterval: 2.1)
        try store.probe()
    }
}

/// `cache.directory` as every program reads it.
@Suite struct StoreLocationTests {
    @Test func directoriesAreMadeAbsoluteAndS3LocationsSplit() throws {
        #expect(try StoreLocation(parsing: "var/cache", relativeTo: "/srv/wf") == .directory("/srv/wf/var/cache"))
        #expect(try StoreLocation(parsing: "/a/./b/../c") == .directory("/a/c"))
        #expect(try StoreLocation(parsing: "s3://pictures") == .s3(bucket: "pictures", prefix: ""))
        #expect(try StoreLocation(parsing: "s3://pictures/feed/v1/") == .s3(bucket: "pictures", prefix: "feed/v1"))
        #expect(try StoreLocation(parsing: "S3://my.bucket-1//x") == .s3(bucket: "my.bucket-1", prefix: "x"))
        #expect(try StoreLocation(parsing: "s3://pictures/feed").description == "s3://pictures/feed")
        #expect(try StoreLocation(parsing: "s3://pictures/feed").directory == nil)
    }

    @Test(arguments: [
        ("", "is empty"), ("s3://", "names no bucket"), ("s3://ab", "3 to 63"), ("s3://Pictures", "lower-case"),
        ("s3://-pictures", "starts and ends"), ("gs://pictures", "scheme 'gs'"), ("s3://pictures/../x", "'..' segment"),
        ("s3://pictures/a b", "characters other than"),
    ])
    func badLocationsSayWhatIsWrong(_ text: String, _ problem: String) {
        let error = #expect(throws: LocationError.self) { _ = try StoreLocation(parsing: text) }
        #expect(error.map { "\($0)".contains(problem) } == true, "\(String(describing: error))")
    }
}
