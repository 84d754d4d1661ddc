public import Foundation
public import WorkFeedModel
public import WorkFeedS3

/// Where pictures live, whoever writes or reads them: workers put them, the coordinator deletes
/// them, `workctl` and the gateway read them: a shared directory (``DirectoryPictureStore``) or an
/// S3-compatible bucket (``S3PictureStore``), made by ``PictureStores/open(_:s3:environment:)``
/// from a ``StoreLocation`` (docs/architecture.md, "Picture storage"). Both pass the same
/// conformance tests (Tests/WorkFeedStoreTests/PictureStoreConformance.swift).
///
/// A picture has two names: by picture (``CacheLayout/relativePath(for:)``, the one `workctl`
/// shows) and by content, its cache key (``CacheLayout/relativePath(forKey:)``, the one the
/// gateway serves, immutable). No wire message carries either as a path: replies name pictures by
/// kind, theme, scale and cache key, and each reader resolves them through its own store.
///
/// Every call blocks (a file system, a network): call it from a thread of your own or a thread
/// pool, never from Swift's cooperative pool.
public protocol PictureStore: Sendable {
    /// Stores `bytes` as `picture`'s, under both its names. A reader sees the old bytes or the
    /// new ones, never a part; once it returns the bytes survive a crash of this process or host.
    func put(_ bytes: [UInt8], for picture: PictureID, key: String) throws(PictureStoreError)

    /// The picture whose cache key is `key`, or `nil` when there is none. Only a picture is
    /// returned: bytes that start with the PNG signature and whose embedded cache key (the
    /// `tEXt` chunk ``CacheLayout/keyTextKeyword``) is `key`, read from within the store (a
    /// directory store follows no symbolic link and reads regular files only). Anything else
    /// under that name is refused, never returned.
    /// - Throws: ``PictureStoreError``: with a ``PictureStoreError/refusal`` when something other
    ///   than that picture is stored under the name; without one when the store cannot be read.
    func picture(key: String) throws(PictureStoreError) -> [UInt8]?

    /// The picture stored for `picture` (its latest bytes), or `nil` when there is none; like
    /// ``picture(key:)``, only a PNG read from within the store (its key is not compared).
    func picture(_ picture: PictureID) throws(PictureStoreError) -> [UInt8]?

    /// Whether a picture with this cache key is stored.
    func contains(key: String) -> Bool

    /// Whether a picture is stored for `picture`.
    func contains(_ picture: PictureID) -> Bool

    /// Removes the picture's name by picture; absent is not an error.
    func delete(_ picture: PictureID) throws(PictureStoreError)

    /// Removes a by-content name; absent is not an error.
    func delete(key: String) throws(PictureStoreError)

    /// Removes the picture's name by picture only if it holds the picture drawn under `key` (the
    /// key embedded in its bytes): a picture a worker is writing there under another key, or wrote
    /// since, stays, whatever the timing (a directory moves the file aside, looks, and puts it back
    /// without replacing a newer one; an object store would delete conditionally on the ETag).
    /// - Returns: whether it was removed.
    @discardableResult
    func delete(_ picture: PictureID, ifKey key: String) throws(PictureStoreError) -> Bool

    /// Gives the picture stored under `key` the by-picture name `picture`, unless a picture is
    /// there already (one written meanwhile is newer and stays); nothing when `key` has no picture.
    func name(key: String, as picture: PictureID) throws(PictureStoreError)

    /// The pictures stored by picture whose workout id starts with `prefix` (two hex digits are one
    /// folder per kind), in no particular order: what the start sweep looks through.
    func pictures(withPrefix prefix: String) throws(PictureStoreError) -> [PictureID]

    /// The cache key embedded in the picture stored for `picture` (its `workfeed:cache-key` text),
    /// or `nil` when there is no picture or it has none.
    func embeddedKey(of picture: PictureID) -> String?

    /// Whether the picture stored for `picture` is the one stored under `key`, found without
    /// reading either (one file under two names in a directory; an object store would compare
    /// ETags): the start sweep's cheap test before it reads a picture's embedded key.
    func isNamed(_ picture: PictureID, key: String) -> Bool

    /// Gives the stored `picture` its by-content name `key` too (a second name in a directory, a
    /// copy in an object store), for pictures stored before they had one.
    func name(_ picture: PictureID, key: String) throws(PictureStoreError)

    /// The cache keys stored that start with `prefix` (two hex digits are one folder of a
    /// directory, one listing of a bucket), in no particular order.
    func keys(withPrefix prefix: String) throws(PictureStoreError) -> [String]

    /// The text of the store's owner marker (``CacheLayout/ownerMarkerName``, the index whose
    /// pictures the store holds), or `nil` when it has none.
    func ownerMarker() throws(PictureStoreError) -> String?

    /// Writes the owner marker, durably, replacing any.
    func writeOwnerMarker(_ text: String) throws(PictureStoreError)

    /// Whether any picture is stored, by either name: looks no further than the first one found.
    func holdsPictures() throws(PictureStoreError) -> Bool

    /// Checks that a picture can be stored (and removed) now: what a worker does before it takes
    /// jobs, and after a write failed.
    func probe() throws(PictureStoreError)

    /// Checks, without writing, that the store is there and answers: what the coordinator and the
    /// gateway do at start (a worker probes). An object store asks for its bucket (a missing
    /// bucket, refused credentials and an endpoint that does not answer are found here); a
    /// directory passes, since a reader may start before the writers make it.
    func checkReachable() throws(PictureStoreError)

    /// Makes the store itself when it is missing but its place is there (a directory whose parent
    /// exists), as a worker does at start before ``probe()``; a store whose place is missing too
    /// (a mount that is not there) is left for ``probe()`` to report.
    /// - Returns: whether the store was made now.
    /// - Throws: ``PictureStoreError`` when it is missing and cannot be made (the parent is not
    ///   writable, say).
    func createIfMissing() throws(PictureStoreError) -> Bool

    /// Removes what interrupted writes left behind (temporary files, unfinished uploads).
    /// - Returns: how many items were removed.
    func removeAbandonedWrites() -> Int

    /// Removes many names at once (absent ones are fine): one by one in a directory, in batch
    /// requests in an object store (S3's DeleteObjects, 1,000 keys each).
    /// - Returns: the names that could not be removed, each with its error.
    func delete(pictures: [PictureID], keys: [String]) -> [PictureStoreRemovalFailure]

    /// The URL where the picture stored under `key` can be fetched without this process (a
    /// bucket, or a CDN in front of it), or `nil` when the store has none (a directory).
    /// - Parameter base: the CDN's URL that stands for the bucket; `nil`: the bucket's own.
    func publicURL(key: String, base: String?) -> String?

    /// Where a person finds the picture: a file path, a URL.
    func location(of picture: PictureID) -> String

    /// Where the store is, for logs and messages: a directory, a bucket.
    var description: String { get }
}

/// A name of a stored picture: by picture, or by content (its cache key).
public enum PictureStoreName: Sendable, Hashable, CustomStringConvertible {
    case picture(PictureID)
    case key(String)

    public var description: String {
        switch self {
        case .picture(let picture): "\(picture)"
        case .key(let key): "key \(key)"
        }
    }
}

/// A name a batch removal could not remove, and why.
public struct PictureStoreRemovalFailure: Sendable, Error {
    public var name: PictureStoreName
    public var error: PictureStoreError

    public init(name: PictureStoreName, error: PictureStoreError) {
        self.name = name
        self.error = error
    }
}

extension PictureStore {
    /// One name at a time (what a directory does).
    public func delete(pictures: [PictureID], keys: [String]) -> [PictureStoreRemovalFailure] {
        var failures: [PictureStoreRemovalFailure] = []
        for picture in pictures {
            do { try delete(picture) } catch { failures.append(PictureStoreRemovalFailure(name: .picture(picture), error: error)) }
        }
        for key in keys {
            do { try delete(key: key) } catch { failures.append(PictureStoreRemovalFailure(name: .key(key), error: error)) }
        }
        return failures
    }

    /// No URL of its own (a directory).
    public func publicURL(key: String, base: String?) -> String? { nil }
}

/// The one place a store is made from its location (`cache.directory`, `WORKFEED_CACHE` or
/// `--cache` of every program, parsed once into a ``StoreLocation``).
public enum PictureStores {
    /// The store at `location`.
    /// - Throws: ``PictureStoreError`` (`denied`) when an S3 store has no credentials or its
    ///   endpoint is not a URL; nothing is asked of the service here (``PictureStore/probe()`` does).
    public static func open(
        _ location: StoreLocation, s3: S3StoreSettings = S3StoreSettings(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PictureStoreError) -> any PictureStore {
        switch location {
        case .directory(let path):
            return DirectoryPictureStore(root: path)
        case .s3(let bucket, let prefix):
            return S3PictureStore(client: try client(bucket: bucket, s3: s3, environment: environment), prefix: prefix)
        }
    }

    /// The client of `bucket` as `store.s3.*` and the environment say (the AWS way), for the picture
    /// store, the kept originals (``FileStores``) and tilesets in a bucket alike.
    public static func client(bucket: String, s3: S3StoreSettings, environment: [String: String]) throws(PictureStoreError) -> S3Client {
        let region = s3.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let credentials: S3CredentialSource =
            if let file = s3.credentialsFile {
                .file(path: file, profile: s3.profile ?? environment["AWS_PROFILE"] ?? "default")
            } else {
                .environment
            }
        let configuration = S3Configuration(
            bucket: bucket, endpoint: s3.endpoint, region: region, pathStyle: s3.pathStyle, credentials: credentials)
        do {
            return try S3Client(configuration)
        } catch {
            throw S3PictureStore.storeError(error)
        }
    }
}
