public import WorkFeedStore

/// The picture store's keys, the same in every program: `cache.directory` (a directory or
/// `s3://bucket/prefix`; also `WORKFEED_CACHE`) and how an S3 store is reached (`store.s3.*`;
/// the endpoint also `WORKFEED_S3_ENDPOINT`).
public enum StoreKeys {
    public static let keys: Set<String> = [
        "cache.directory", "store.s3.endpoint", "store.s3.region", "store.s3.addressing", "store.s3.credentials_file", "store.s3.profile",
    ]
}

extension Settings {
    /// `cache.directory` (flag, `WORKFEED_CACHE_DIRECTORY`, `WORKFEED_CACHE`, file, default),
    /// checked to be a directory path or an `s3://` location now, so that a bad one stops the
    /// program at start naming the key.
    func storeLocation(default value: String) throws(ConfigurationError) -> String {
        var text = string("cache.directory", default: "")
        if text.isEmpty { text = environment["WORKFEED_CACHE"].flatMap { $0.isEmpty ? nil : $0 } ?? value }
        do {
            _ = try StoreLocation(parsing: text)
        } catch {
            throw invalid("cache.directory", text, "a directory, or s3://bucket/prefix: \(error.problem)")
        }
        return text
    }

    /// `basemap.tilesets`: files, `https://` URLs or `s3://bucket/key`, each checked to be one now
    /// (``TilesetLocation``), so that a bad one stops the program at start naming the key; empty
    /// entries are dropped.
    func tilesets(default value: [String]) throws(ConfigurationError) -> [String] {
        let entries = strings("basemap.tilesets", default: value).filter { !$0.isEmpty }
        for entry in entries {
            do {
                _ = try TilesetLocation(parsing: entry)
            } catch {
                throw invalid("basemap.tilesets", entry, "a file, an https:// URL or s3://bucket/key: \(error.problem)")
            }
        }
        return entries
    }

    /// `store.s3.*`.
    func s3Store() throws(ConfigurationError) -> S3StoreSettings {
        var settings = S3StoreSettings()
        let endpoint = string("store.s3.endpoint", default: environment["WORKFEED_S3_ENDPOINT"] ?? "")
        if !endpoint.isEmpty {
            guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
                throw invalid("store.s3.endpoint", endpoint, "an http:// or https:// URL (scheme, host and port)")
            }
            settings.endpoint = endpoint
        }
        let region = string("store.s3.region", default: "")
        if !region.isEmpty { settings.region = region }
        switch string("store.s3.addressing", default: "") {
        case "": break
        case "path": settings.pathStyle = true
        case "virtual-host": settings.pathStyle = false
        case let other: throw invalid("store.s3.addressing", other, "path or virtual-host")
        }
        let file = string("store.s3.credentials_file", default: "")
        if !file.isEmpty { settings.credentialsFile = file }
        let profile = string("store.s3.profile", default: "")
        if !profile.isEmpty { settings.profile = profile }
        return settings
    }
}

/// A program's configuration that names a picture store: the one way each program opens it.
public protocol PictureStoreConfiguration {
    /// `cache.directory`: a directory or `s3://bucket/prefix`, as configured.
    var cacheDirectory: String { get }
    var s3Store: S3StoreSettings { get }
}

extension PictureStoreConfiguration {
    /// `cache.directory` parsed (a relative directory against the working directory).
    public func storeLocation() throws(LocationError) -> StoreLocation {
        try StoreLocation(parsing: cacheDirectory)
    }

    /// The store, from ``PictureStores/open(_:s3:environment:)``.
    /// - Throws: ``LocationError`` when `cache.directory` cannot be parsed,
    ///   ``PictureStoreError`` when the store cannot be made (an S3 store without credentials).
    public func openStore() throws -> any PictureStore {
        try PictureStores.open(storeLocation(), s3: s3Store)
    }
}

extension WorkerConfiguration: PictureStoreConfiguration {}
extension CoordinatorConfiguration: PictureStoreConfiguration {}
extension GatewayConfiguration: PictureStoreConfiguration {}
