public import Foundation
public import WorkFeedS3

/// Whole files by name, kept for one program: the coordinator's kept originals
/// (docs/architecture.md, "Picture storage"). The same seam as ``PictureStore``: a
/// ``StoreLocation`` (a directory or `s3://BUCKET/PREFIX`) handed to the one factory,
/// ``FileStores/open(_:s3:environment:)``, errors as ``PictureStoreError`` with their codes. A
/// directory (``DirectoryFileStore``) is private to its owner (folders 0700, files 0600); a bucket
/// (``S3FileStore``) is as private as its credentials and policy make it.
///
/// Names are relative, `/`-separated (`3f/3f2a….gz`), made by the caller from checked values: no
/// empty, `.` or `..` segment. Both pass the same tests (Tests/WorkFeedStoreTests/FileStoreConformanceTests.swift).
///
/// Every call blocks (a file system, a network): call it from a thread of your own, never from
/// Swift's cooperative pool.
public protocol FileStore: Sendable, CustomStringConvertible {
    /// Stores `bytes` under `name`, replacing what is there: a reader sees the old bytes or the
    /// new ones, never a part; once it returns they survive a crash.
    func put(_ bytes: [UInt8], as name: String, contentType: String) throws(PictureStoreError)

    /// The whole file, or `nil` when there is none.
    func get(_ name: String) throws(PictureStoreError) -> [UInt8]?

    /// The file's first `count` bytes (fewer when it is shorter), or `nil` when there is none.
    func head(_ name: String, count: Int) throws(PictureStoreError) -> [UInt8]?

    /// Whether a file is stored under `name`.
    func contains(_ name: String) throws(PictureStoreError) -> Bool

    /// Removes files (absent ones are fine): one by one in a directory, in DeleteObjects requests
    /// of up to 1,000 keys in a bucket.
    /// - Returns: the names that could not be removed, each with its error.
    func delete(_ names: [String]) -> [(name: String, error: PictureStoreError)]

    /// Every file's name, in no particular order (temporary files of unfinished writes are not files).
    func names() throws(PictureStoreError) -> [String]

    /// Readies the store at start: a directory is made (0700) and anything wider found in it
    /// narrowed (folders 0700, files 0600), temporary files of dead writers removed; a bucket is
    /// asked for (HeadBucket: missing, refused credentials and an endpoint that does not answer
    /// are found here).
    /// - Returns: how many permissions were narrowed.
    func prepare() throws(PictureStoreError) -> Int

    /// Whether the files are on a disk of this host (a directory), where reading the head of each is
    /// cheap, or behind a service (a bucket): a request each, and readable by whoever holds its credentials.
    var isLocal: Bool { get }

    /// Where a person finds the file: a path, an `s3://` URL.
    func location(of name: String) -> String
}

/// The one place a file store is made from its location.
public enum FileStores {
    /// The store at `location`, reached like the picture store (`store.s3.*`).
    /// - Throws: ``PictureStoreError`` (`denied`) when an S3 store has no credentials or its
    ///   endpoint is not a URL; nothing is asked of the service here (``FileStore/prepare()`` does).
    public static func open(
        _ location: StoreLocation, s3: S3StoreSettings = S3StoreSettings(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PictureStoreError) -> any FileStore {
        switch location {
        case .directory(let path):
            return DirectoryFileStore(root: path)
        case .s3(let bucket, let prefix):
            return S3FileStore(client: try PictureStores.client(bucket: bucket, s3: s3, environment: environment), prefix: prefix)
        }
    }
}

/// Files in an S3-compatible bucket under a key prefix: one PutObject each (whole, its body's
/// SHA-256 in the signature), GetObject, a ranged GET for a head, DeleteObjects in batches,
/// ListObjectsV2.
public struct S3FileStore: FileStore {
    public let client: S3Client
    /// The key prefix, ending in `/` unless empty.
    public let prefix: String

    public init(client: S3Client, prefix: String) {
        self.client = client
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    public var description: String { "s3://\(client.configuration.bucket)/\(prefix) at \(client.configuration.endpoint)" }
    public var isLocal: Bool { false }

    public func location(of name: String) -> String { "s3://\(client.configuration.bucket)/\(prefix)\(name)" }

    public func put(_ bytes: [UInt8], as name: String, contentType: String) throws(PictureStoreError) {
        try run { () throws(S3Error) in _ = try client.put(prefix + name, bytes, contentType: contentType) }
    }

    public func get(_ name: String) throws(PictureStoreError) -> [UInt8]? {
        try run { () throws(S3Error) in try client.get(prefix + name)?.bytes }
    }

    public func head(_ name: String, count: Int) throws(PictureStoreError) -> [UInt8]? {
        try run { () throws(S3Error) in try client.get(prefix + name, length: count)?.bytes }
    }

    public func contains(_ name: String) throws(PictureStoreError) -> Bool {
        try run { () throws(S3Error) in try client.head(prefix + name) != nil }
    }

    public func delete(_ names: [String]) -> [(name: String, error: PictureStoreError)] {
        var failures: [(name: String, error: PictureStoreError)] = []
        var start = 0
        while start < names.count {
            let chunk = Array(names[start..<min(start + S3PictureStore.deleteBatchSize, names.count)])
            start += S3PictureStore.deleteBatchSize
            do {
                for (object, code) in try client.delete(keys: chunk.map { prefix + $0 }) {
                    let error = S3Error(
                        S3Error.kind(status: 0, code: code), operation: "DELETE-OBJECTS", bucket: client.configuration.bucket,
                        endpoint: client.configuration.endpoint, key: object, s3Code: code, message: "")
                    failures.append((String(object.dropFirst(prefix.count)), S3PictureStore.storeError(error)))
                }
            } catch {
                let failure = S3PictureStore.storeError(error)
                failures += chunk.map { ($0, failure) }
            }
        }
        return failures
    }

    public func names() throws(PictureStoreError) -> [String] {
        try run { () throws(S3Error) in try client.list(prefix: prefix).map { String($0.dropFirst(prefix.count)) } }
    }

    public func prepare() throws(PictureStoreError) -> Int {
        try run { () throws(S3Error) in try client.headBucket() }
        return 0
    }

    func run<T>(_ body: () throws(S3Error) -> T) throws(PictureStoreError) -> T {
        do {
            return try body()
        } catch {
            throw S3PictureStore.storeError(error)
        }
    }
}
