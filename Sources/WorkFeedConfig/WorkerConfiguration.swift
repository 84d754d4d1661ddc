public import Logging
public import WorkFeedStore
import WorkFeedModel
import WorkFeedStyle

/// Everything a worker is configured with. `Config/worker.yaml` documents each key.
public struct WorkerConfiguration: Sendable, Hashable {
    /// The coordinators' worker endpoints (`coordinator`, comma-separated): the worker works for
    /// one at a time and moves to the next when it stops answering (coordinators of one
    /// PostgreSQL index).
    public var coordinatorEndpoints = ["tcp://127.0.0.1:5555"]
    /// The shared picture cache, as this worker's host mounts it.
    public var cacheDirectory = "var/cache"
    /// How an `s3://` cache is reached (`store.s3.*`).
    public var s3Store = S3StoreSettings()
    /// Render threads; 0 means one per core.
    public var renderThreads = 0
    /// Jobs held beyond the render threads (`jobs_ahead`): a thread that finishes a picture starts
    /// the next at once instead of waiting for its report's turn at the coordinator and the next
    /// JOB (docs/operations.md, "Sizing").
    public var jobsAhead = 1
    public var heartbeatIntervalMilliseconds = 1000
    /// The coordinator is gone after this many silent intervals; the worker reconnects.
    public var heartbeatLiveness = 5
    /// Reconnect back-off: starts here and doubles up to the maximum.
    public var reconnectInitialMilliseconds = 250
    public var reconnectMaximumMilliseconds = 30_000
    /// Bound on finishing the jobs in hand at shutdown.
    public var shutdownGraceSeconds = 30.0
    /// Shown in `workctl status`; empty means host name and process id.
    public var name = ""
    /// `HOST:PORT` where Prometheus scrapes this worker's `/metrics`; empty (the default) turns it
    /// off, so that several workers on one host do not compete for a port.
    public var metricsListen = ""
    /// Whether `metricsListen` may be reachable from other hosts (plain HTTP, no authentication).
    public var metricsAllowRemote = false
    /// This worker's CURVE key file (`workctl keygen`); empty: no encryption.
    public var keyFile = ""
    /// The coordinator's public key (Z85), required with a key file.
    public var serverKey = ""
    /// Tilesets in the order to try: MBTiles or PMTiles files on this host, or PMTiles archives by
    /// URL (`https://…`, `s3://bucket/key`, reached as `store.s3.*` says). They must be the
    /// coordinator's (the same content at any path; the same archive version by URL). Empty:
    /// plain pictures only.
    public var basemapTilesets: [String] = []
    public var basemapFont = BasemapDefaults.fontPath
    public var basemapFallbackFonts = BasemapDefaults.fallbackFontPaths
    public var basemapAttribution = ""
    /// The most memory decoded map tiles may take, in MiB.
    public var basemapCacheMegabytes = 64
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text

    public init() {}

    public static let keys: Set<String> = StoreKeys.keys.union([
        "coordinator", "cache.directory", "render_threads", "jobs_ahead", "heartbeat.interval_ms", "heartbeat.liveness",
        "reconnect.initial_ms", "reconnect.max_ms", "shutdown.grace_seconds", "name", "log.level", "log.format",
        "security.key_file", "security.server_key", "metrics.listen", "metrics.allow_remote", "basemap.tilesets", "basemap.font",
        "basemap.fallback_fonts", "basemap.attribution", "basemap.cache_mb",
    ])

    /// Why the metrics listen address cannot be used, or `nil` (see
    /// ``CoordinatorConfiguration/listenAddressProblem()``).
    public func listenAddressProblem() -> (key: String, value: String, reason: String)? {
        CoordinatorConfiguration.metricsProblem(metricsListen, allowRemote: metricsAllowRemote)
    }

    /// Loads the configuration: flags over environment over file over defaults.
    public static func load(
        file: String?, environment: [String: String], overrides: [String: String] = [:]
    ) async throws(ConfigurationError) -> WorkerConfiguration {
        let settings = try await Settings(file: file, knownKeys: keys, environment: environment, overrides: overrides)
        var c = WorkerConfiguration()
        c.coordinatorEndpoints = try settings.endpoints("coordinator", default: c.coordinatorEndpoints)
        c.cacheDirectory = try settings.storeLocation(default: c.cacheDirectory)
        c.s3Store = try settings.s3Store()
        c.renderThreads = try settings.int("render_threads", default: c.renderThreads, in: 0...256)
        c.jobsAhead = try settings.int("jobs_ahead", default: c.jobsAhead, in: 0...256)
        c.heartbeatIntervalMilliseconds = try settings.int("heartbeat.interval_ms", default: c.heartbeatIntervalMilliseconds, in: 10...60_000)
        c.heartbeatLiveness = try settings.int("heartbeat.liveness", default: c.heartbeatLiveness, in: 2...100)
        c.reconnectInitialMilliseconds = try settings.int("reconnect.initial_ms", default: c.reconnectInitialMilliseconds, in: 10...60_000)
        c.reconnectMaximumMilliseconds = try settings.int("reconnect.max_ms", default: c.reconnectMaximumMilliseconds, in: 10...600_000)
        c.shutdownGraceSeconds = try settings.double("shutdown.grace_seconds", default: c.shutdownGraceSeconds, in: 0...3600)
        c.name = settings.string("name", default: c.name)
        c.metricsListen = settings.string("metrics.listen", default: c.metricsListen)
        c.metricsAllowRemote = try settings.bool("metrics.allow_remote", default: c.metricsAllowRemote)
        if let problem = c.listenAddressProblem() { throw settings.invalid(problem.key, problem.value, problem.reason) }
        c.keyFile = settings.string("security.key_file", default: c.keyFile)
        c.serverKey = settings.string("security.server_key", default: c.serverKey)
        if !c.keyFile.isEmpty && c.serverKey.utf8.count != 40 {
            throw settings.invalid(
                "security.server_key", c.serverKey, "the coordinator's Z85 public key (40 characters), needed with security.key_file")
        }
        c.basemapTilesets = try settings.tilesets(default: c.basemapTilesets)
        c.basemapFont = settings.string("basemap.font", default: c.basemapFont)
        c.basemapFallbackFonts = settings.strings("basemap.fallback_fonts", default: c.basemapFallbackFonts).filter { !$0.isEmpty }
        c.basemapAttribution = settings.string("basemap.attribution", default: c.basemapAttribution)
        c.basemapCacheMegabytes = try settings.int("basemap.cache_mb", default: c.basemapCacheMegabytes, in: 1...65_536)
        c.logLevel = try settings.choice("log.level", default: LogLevelName.info).level
        c.logFormat = try settings.choice("log.format", default: LogFormat.text)
        return c
    }
}
