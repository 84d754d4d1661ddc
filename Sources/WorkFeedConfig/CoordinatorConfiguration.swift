import Foundation
public import Logging
public import WorkFeedStore
public import WorkFeedModel
public import WorkFeedStyle
import WorkFeedPrivacy

/// Everything the coordinator is configured with. `Config/coordinator.yaml` documents each key;
/// ``defaults`` are the embedded defaults used when a key is absent.
public struct CoordinatorConfiguration: Sendable, Hashable {
    /// The SQLite index file (when ``indexURL`` is empty).
    public var indexPath = "var/index.sqlite"
    /// `index.url`: a PostgreSQL index (`postgres://user@host:port/database`, docs/postgres-index.md,
    /// "Connecting") that several coordinators share; empty: the SQLite file at ``indexPath``.
    public var indexURL = ""
    /// `index.password_file`: the file whose first line is the PostgreSQL password; empty: none.
    public var indexPasswordFile = ""
    /// `coordinator.id`: this coordinator among those sharing a PostgreSQL index (the holder of
    /// its leases; the same after a restart). Empty: the host name and the control endpoint.
    public var coordinatorID = ""
    /// `index.lease_seconds` (PostgreSQL): how long a lease lives unless renewed (every second):
    /// when a coordinator dies, the others lease its jobs again this long after its last renewal.
    public var leaseSeconds = 30
    /// `full`: every commit survives power loss; `normal`: survives a process crash.
    public var durability = Durability.full
    /// The shared picture cache, as the coordinator sees it (reported to operators).
    public var cacheDirectory = "var/cache"
    /// How an `s3://` cache is reached (`store.s3.*`).
    public var s3Store = S3StoreSettings()
    /// Where the kept original files of imports live (`originals.directory`): a directory or
    /// `s3://BUCKET/PREFIX` only the coordinator uses, never inside the picture store that workers
    /// and gateways read (the originals hold what privacy zones hide). Empty: the default
    /// (``originalsPath``).
    public var originalsDirectory = ""
    /// `originals.key_file`: a file of at least 32 bytes; when set, originals are sealed
    /// (ChaCha20-Poly1305) with a key derived from it. Empty: kept as they came (docs/security.md).
    public var originalsKeyFile = ""
    /// Where workers connect.
    public var workerEndpoint = "tcp://127.0.0.1:5555"
    /// Where workctl connects.
    public var controlEndpoint = "tcp://127.0.0.1:5556"
    /// Where the event stream (status changes, workers coming and going) is published.
    public var eventsEndpoint = "tcp://127.0.0.1:5557"
    /// `HOST:PORT` where Prometheus scrapes `/metrics`; empty turns it off.
    public var metricsListen = "127.0.0.1:9464"
    /// Whether `metricsListen` may be reachable from other hosts (plain HTTP, no authentication).
    public var metricsAllowRemote = false
    /// A leased job not reported within this many seconds is leased again.
    public var jobDeadlineSeconds = 120.0
    /// How many of one owner's pending pictures may wait above priority 0 (interactive); what an
    /// owner asks for beyond it waits as bulk work, which owners share in turn.
    public var interactivePerOwner = EnqueueRequest.defaultInteractivePerOwner
    /// The coordinator's CURVE key file (`workctl keygen`); empty: no encryption, loopback only.
    public var keyFile = ""
    /// The public keys (Z85) of the workers, let in on the worker socket only.
    public var workerKeys: [String] = []
    /// The public keys of the operators (workctl), let in on the control and event sockets.
    public var operatorKeys: [String] = []
    /// The public keys of the gateways, let in on the control and event sockets.
    public var gatewayKeys: [String] = []
    /// Control requests one client may have unanswered; past it, requests are refused "busy".
    public var controlMaximumInFlight = 32
    /// Bytes of requests one client may have unanswered (one request is always let in).
    public var controlMaximumInFlightBytes = 320 << 20
    /// Control clients (connections) with requests in flight or replies waiting at once; a new
    /// client's request past it is refused "busy".
    public var controlMaximumClients = 256
    /// Bytes of replies waiting for clients that do not read them, over all clients; a reply past
    /// it is dropped and counted.
    public var controlMaximumQueuedReplyBytes = 256 << 20
    /// A worker or coordinator that sent nothing for this long sends a HEARTBEAT.
    public var heartbeatIntervalMilliseconds = 1000
    /// A worker silent for `heartbeatLiveness` intervals is gone; its jobs are leased again.
    public var heartbeatLiveness = 5
    public var maximumAttempts = 3
    public var initialBackoffSeconds = 1.0
    public var maximumBackoffSeconds = 60.0
    /// Failures of a worker's surroundings (a full, read-only or forbidden cache; another
    /// basemap) count no attempt; they are retried after this long, doubling each time up to the
    /// maximum, for as long as it takes.
    public var environmentInitialBackoffSeconds = 10.0
    public var environmentMaximumBackoffSeconds = 900.0
    /// A worker whose last this-many reports were all transient failures, while other workers
    /// generated pictures, is set aside (sent away and refused) for `setAsideSeconds`.
    public var setAsideAfterFailures = 5
    public var setAsideSeconds = 300.0
    /// Picture size in points; the PNG is width × scale by height × scale pixels.
    public var pictureWidth = 512
    public var pictureHeight = 512
    /// Scales rendered when an enqueue does not name one.
    public var scales = [1]
    /// The themes pictures are drawn in ahead (`themes`), in order: what an ENQUEUE that names
    /// none, an upload and the feed ask for.
    public var themes = Theme.shipped
    /// The themes drawn only when a request names one (`on_request_themes`): the transparent
    /// share card, to lay over a photo, is asked for, not drawn for every upload.
    public var onRequestThemes = Theme.shippedOnRequest
    /// Every theme this coordinator draws, ``themes`` then ``onRequestThemes``: the only ones an
    /// ENQUEUE may name.
    public var drawnThemes: [Theme] { themes + onRequestThemes.filter { !themes.contains($0) } }
    /// Each theme's route and map style (`styles.<theme>.*`, `maps.<theme>.*`): one per theme in ``drawnThemes``.
    public var themeStyles = ThemeStyle.shipped
    public var heatmap = HeatmapStyle.standard
    /// Where an owner's maximum heart rate puts their zones' lower bounds (`heatmap.max_hr_percentages`,
    /// docs/settings.md): one percentage per threshold of ``heatmap``.
    public var maximumHeartRatePercentages = HeartRateZoneBounds.defaultPercentages(boundCount: HeatmapStyle.standard.thresholds.count)!
    /// Tilesets (MBTiles or PMTiles files, or PMTiles archives by `https://` or `s3://` URL) maps
    /// are drawn from, in the order to try; empty: no maps. The coordinator reads only their
    /// metadata and index (by URL: the header, root directory and metadata), for the cache keys;
    /// workers draw from their own copies, or the same URLs, and must have the same ones.
    public var basemapTilesets: [String] = []
    /// The font names and the attribution are drawn with (its content is part of the basemap's identity).
    public var basemapFont = BasemapDefaults.fontPath
    /// Fonts for names the main font cannot draw, tried in order (part of the identity too).
    public var basemapFallbackFonts = BasemapDefaults.fallbackFontPaths
    /// Drawn instead of each tileset's own attribution when not empty.
    public var basemapAttribution = ""
    /// The owner of workouts imported without one, and of those an index held before owners
    /// existed (given to them once, when the index is migrated).
    public var defaultOwner = Owner.defaultName
    /// Metres hidden at each end of every route of every owner, before each workout's secret
    /// jitter (docs/privacy.md); 0: none.
    public var privacyEndTrimMetres = 0.0
    /// A file holding the secret that jitters privacy cuts (at least 16 bytes); empty: a secret
    /// the coordinator makes once and keeps in the index.
    public var privacySecretFile = ""
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text

    public static let defaults = CoordinatorConfiguration()

    public init() {}

    /// Every allowed public key with its role.
    public var keyRoles: [String: ClientRole] {
        var roles: [String: ClientRole] = [:]
        for key in workerKeys { roles[key] = .worker }
        for key in operatorKeys { roles[key] = .operator }
        for key in gatewayKeys { roles[key] = .gateway }
        return roles
    }

    /// How `theme` is drawn; `nil` for a theme this configuration does not draw (one named by
    /// jobs from before it was taken out of `themes` and `on_request_themes`).
    public func themeStyle(for theme: Theme) -> ThemeStyle? {
        themeStyles[theme]
    }

    /// The keys a coordinator configuration file may hold, with these themes configured.
    public static func keys(themes: [Theme]) -> Set<String> { keys.union(Settings.themeKeys(themes)) }

    /// The keys a coordinator configuration file may hold besides the themes' (``keys(themes:)``).
    static let keys: Set<String> = StoreKeys.keys.union(
        [
            "index.path", "index.url", "index.password_file", "index.lease_seconds", "coordinator.id", "index.durability", "cache.directory",
            "listen.workers",
            "listen.control", "listen.events",
            "jobs.deadline_seconds", "jobs.interactive_per_owner", "security.key_file", "security.allowed_keys", "security.worker_keys",
            "security.operator_keys",
            "security.gateway_keys", "metrics.listen", "metrics.allow_remote",
            "heartbeat.interval_ms", "heartbeat.liveness", "retry.max_attempts", "retry.initial_backoff_seconds",
            "retry.max_backoff_seconds", "retry.environment_initial_backoff_seconds", "retry.environment_max_backoff_seconds",
            "workers.set_aside_after_failures", "workers.set_aside_seconds", "control.max_in_flight", "control.max_in_flight_mb",
            "control.max_clients", "control.max_queued_replies_mb", "pictures.width",
            "pictures.height", "pictures.scales",
            "heatmap.segments", "heatmap.line_width", "heatmap.thresholds", "heatmap.colors", "heatmap.max_hr_percentages", "log.level",
            "log.format", "basemap.tilesets", "basemap.font", "basemap.fallback_fonts", "basemap.attribution", "owners.default",
            "privacy.end_trim_metres", "privacy.secret_file", "originals.directory", "originals.key_file",
        ])

    /// Loads the configuration: flags over environment over file over defaults.
    /// - Throws: ``ConfigurationError`` naming the first bad key, its value and what is allowed.
    public static func load(
        file: String?, environment: [String: String], overrides: [String: String] = [:]
    ) async throws(ConfigurationError) -> CoordinatorConfiguration {
        // Which keys are known depends on the themes the configuration lists: read those first.
        let settings = try await Settings(file: file, knownKeys: nil, environment: environment, overrides: overrides)
        var c = CoordinatorConfiguration()
        c.themes = try settings.themeList()
        c.onRequestThemes = try settings.onRequestThemeList(drawnAhead: c.themes)
        if let file { try Settings.checkKeys(file: file, known: keys(themes: c.drawnThemes), themes: c.drawnThemes) }
        c.indexPath = settings.string("index.path", default: c.indexPath)
        c.indexURL = settings.string("index.url", default: c.indexURL)
        c.indexPasswordFile = settings.string("index.password_file", default: c.indexPasswordFile)
        c.coordinatorID = settings.string("coordinator.id", default: c.coordinatorID)
        c.leaseSeconds = try settings.int("index.lease_seconds", default: c.leaseSeconds, in: 3...600)
        c.durability = try settings.choice("index.durability", default: Durability.full)
        c.cacheDirectory = try settings.storeLocation(default: c.cacheDirectory)
        c.s3Store = try settings.s3Store()
        c.originalsDirectory = settings.string("originals.directory", default: c.originalsDirectory)
        c.originalsKeyFile = settings.string("originals.key_file", default: c.originalsKeyFile)
        if let problem = c.originalsProblem() { throw settings.invalid("originals.directory", c.originalsPath, problem) }
        c.workerEndpoint = try settings.endpoint("listen.workers", default: c.workerEndpoint)
        c.controlEndpoint = try settings.endpoint("listen.control", default: c.controlEndpoint)
        c.eventsEndpoint = try settings.endpoint("listen.events", default: c.eventsEndpoint)
        c.metricsListen = settings.string("metrics.listen", default: c.metricsListen)
        c.metricsAllowRemote = try settings.bool("metrics.allow_remote", default: c.metricsAllowRemote)
        c.jobDeadlineSeconds = try settings.double("jobs.deadline_seconds", default: c.jobDeadlineSeconds, in: 1...86_400)
        c.interactivePerOwner = try settings.int("jobs.interactive_per_owner", default: c.interactivePerOwner, in: 1...1_000_000)
        c.keyFile = settings.string("security.key_file", default: c.keyFile)
        let legacy = settings.strings("security.allowed_keys", default: [])
        guard legacy.isEmpty else {
            // One list for every socket let the workers' key import and delete, and the operators'
            // key take jobs. Which key is whose must be said once, here.
            throw settings.invalid(
                "security.allowed_keys", legacy.joined(separator: ","),
                "keys now have roles: list each public key under security.worker_keys, security.operator_keys or security.gateway_keys (docs/security.md)"
            )
        }
        c.workerKeys = settings.strings("security.worker_keys", default: c.workerKeys)
        c.operatorKeys = settings.strings("security.operator_keys", default: c.operatorKeys)
        c.gatewayKeys = settings.strings("security.gateway_keys", default: c.gatewayKeys)
        var seen: [String: String] = [:]
        for (key, list) in [
            ("security.worker_keys", c.workerKeys), ("security.operator_keys", c.operatorKeys), ("security.gateway_keys", c.gatewayKeys),
        ] {
            for publicKey in list {
                guard publicKey.utf8.count == 40 else {
                    throw settings.invalid(key, publicKey, "Z85 public keys of 40 characters, as workctl keygen prints them")
                }
                if let other = seen[publicKey], other != key {
                    throw settings.invalid(key, publicKey, "this key is also in \(other): a key has one role (make one key pair per role)")
                }
                seen[publicKey] = key
            }
        }
        if let problem = c.listenAddressProblem() { throw settings.invalid(problem.key, problem.value, problem.reason) }
        c.heartbeatIntervalMilliseconds = try settings.int("heartbeat.interval_ms", default: c.heartbeatIntervalMilliseconds, in: 10...60_000)
        c.heartbeatLiveness = try settings.int("heartbeat.liveness", default: c.heartbeatLiveness, in: 2...100)
        c.maximumAttempts = try settings.int("retry.max_attempts", default: c.maximumAttempts, in: 1...100)
        c.initialBackoffSeconds = try settings.double("retry.initial_backoff_seconds", default: c.initialBackoffSeconds, in: 0...3600)
        c.maximumBackoffSeconds = try settings.double("retry.max_backoff_seconds", default: c.maximumBackoffSeconds, in: 0...86_400)
        c.environmentInitialBackoffSeconds = try settings.double(
            "retry.environment_initial_backoff_seconds", default: c.environmentInitialBackoffSeconds, in: 0...86_400)
        c.environmentMaximumBackoffSeconds = try settings.double(
            "retry.environment_max_backoff_seconds", default: c.environmentMaximumBackoffSeconds, in: 0...86_400)
        c.setAsideAfterFailures = try settings.int("workers.set_aside_after_failures", default: c.setAsideAfterFailures, in: 2...1000)
        c.setAsideSeconds = try settings.double("workers.set_aside_seconds", default: c.setAsideSeconds, in: 0...86_400)
        c.controlMaximumInFlight = try settings.int("control.max_in_flight", default: c.controlMaximumInFlight, in: 1...10_000)
        c.controlMaximumInFlightBytes =
            try settings.int("control.max_in_flight_mb", default: c.controlMaximumInFlightBytes >> 20, in: 1...65_536) << 20
        c.controlMaximumClients = try settings.int("control.max_clients", default: c.controlMaximumClients, in: 1...100_000)
        c.controlMaximumQueuedReplyBytes =
            try settings.int("control.max_queued_replies_mb", default: c.controlMaximumQueuedReplyBytes >> 20, in: 1...65_536) << 20
        c.pictureWidth = try settings.int("pictures.width", default: c.pictureWidth, in: PictureSpec.pointSizeRange)
        c.pictureHeight = try settings.int("pictures.height", default: c.pictureHeight, in: PictureSpec.pointSizeRange)
        c.scales = try settings.ints("pictures.scales", default: c.scales, in: PictureSpec.scaleRange)
        // The renderer draws at most maximumPixelSide pixels a side: a size that only fits at some
        // scales would start cleanly and then fail every job of the others.
        let largestScale = c.scales.max() ?? 1
        for (key, points) in [("pictures.width", c.pictureWidth), ("pictures.height", c.pictureHeight)]
        where points * largestScale > PictureSpec.maximumPixelSide {
            throw settings.invalid(
                key, "\(points)",
                "at scale \(largestScale) (pictures.scales) that is \(points * largestScale) pixels, over the renderer's \(PictureSpec.maximumPixelSide): at most \(PictureSpec.maximumPixelSide / largestScale)"
            )
        }
        c.themeStyles = try settings.themeStyles(c.drawnThemes)
        c.heatmap = try settings.heatmapStyle("heatmap", default: c.heatmap)
        c.maximumHeartRatePercentages = try settings.maximumHeartRatePercentages("heatmap.max_hr_percentages", boundCount: c.heatmap.thresholds.count)
        c.basemapTilesets = try settings.tilesets(default: c.basemapTilesets)
        c.basemapFont = settings.string("basemap.font", default: c.basemapFont)
        c.basemapFallbackFonts = settings.strings("basemap.fallback_fonts", default: c.basemapFallbackFonts).filter { !$0.isEmpty }
        c.basemapAttribution = settings.string("basemap.attribution", default: c.basemapAttribution)
        c.defaultOwner = settings.string("owners.default", default: c.defaultOwner)
        if let problem = Owner.problem(with: c.defaultOwner) { throw settings.invalid("owners.default", c.defaultOwner, problem) }
        c.privacyEndTrimMetres = try settings.double("privacy.end_trim_metres", default: c.privacyEndTrimMetres, in: PrivacyPolicy.endTrimRange)
        c.privacySecretFile = settings.string("privacy.secret_file", default: c.privacySecretFile)
        c.logLevel = try settings.choice("log.level", default: LogLevelName.info).level
        c.logFormat = try settings.choice("log.format", default: LogFormat.text)
        return c
    }

    /// `index.durability`: `full` syncs every commit; `normal` (WAL) may lose the last commits on
    /// a power cut, never the index.
    public enum Durability: String, CaseIterable, Sendable { case full, normal }

    /// The first listen address this configuration may not use, and why; `nil` when every one is
    /// fine. Each is parsed (``ListenAddress``), not prefix-matched: it must be one endpoint, and
    /// without `security.key_file` (no CURVE, so no encryption and no keys) only this host may
    /// reach it. The metrics endpoint (plain HTTP) must be on loopback unless `metrics.allow_remote`.
    /// The coordinator checks this at start whatever built the configuration.
    public func listenAddressProblem() -> (key: String, value: String, reason: String)? {
        for (key, endpoint) in [("listen.workers", workerEndpoint), ("listen.control", controlEndpoint), ("listen.events", eventsEndpoint)] {
            let address: ListenAddress
            do { address = try ListenAddress(zeroMQ: endpoint) } catch { return (key, endpoint, error.reason) }
            if keyFile.isEmpty && !address.isLoopback {
                return (
                    key, endpoint,
                    "without security.key_file (CURVE encryption and keys per role) the coordinator listens on loopback only "
                        + "(tcp://127.x.x.x:PORT, tcp://[::1]:PORT, ipc://): use one of those, or configure keys (docs/security.md)"
                )
            }
        }
        if let problem = Self.metricsProblem(metricsListen, allowRemote: metricsAllowRemote) { return problem }
        return nil
    }

    /// Why a metrics listen address cannot be used, or `nil`.
    static func metricsProblem(_ listen: String, allowRemote: Bool) -> (key: String, value: String, reason: String)? {
        guard !listen.isEmpty else { return nil }
        let address: ListenAddress
        do { address = try ListenAddress(http: listen) } catch { return ("metrics.listen", listen, error.reason) }
        guard address.isLoopback || allowRemote else {
            return (
                "metrics.listen", listen,
                "/metrics is plain HTTP without authentication: listen on 127.0.0.1:PORT, or set metrics.allow_remote: true to serve it beyond this host"
            )
        }
        return nil
    }
}

/// Log levels as configuration spells them (swift-log's names).
public enum LogLevelName: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical

    /// swift-log's level of the same name.
    public var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

public enum LogFormat: String, CaseIterable, Sendable {
    /// One human-readable line per event with its metadata.
    case text
    /// One JSON object per line, for log shippers.
    case json
}

extension Settings {
    func ints(_ key: String, default value: [Int], in range: ClosedRange<Int>) throws(ConfigurationError) -> [Int] {
        let texts = strings(key, default: value.map(String.init))
        var numbers: [Int] = []
        for text in texts {
            guard let number = Int(text), range.contains(number) else {
                throw invalid(key, texts.joined(separator: ","), "a list of whole numbers from \(range.lowerBound) to \(range.upperBound)")
            }
            numbers.append(number)
        }
        guard !numbers.isEmpty else { throw invalid(key, "", "at least one value") }
        return numbers
    }

    func colour(_ key: String, default value: RGBA) throws(ConfigurationError) -> RGBA {
        guard let text = raw(key) else { return value }
        guard let colour = RGBA(hex: text) else { throw invalid(key, text, "a colour written #rrggbb or #rrggbbaa") }
        return colour
    }
}

extension CoordinatorConfiguration {
    /// The kept originals' place as written: `originals.directory` (a directory or
    /// `s3://BUCKET/PREFIX`), else the default: with pictures in `s3://BUCKET/PREFIX`, the same
    /// bucket's `originals` prefix beside them (``defaultOriginalsPrefix``; not when PREFIX is empty
    /// or itself under it: the originals would be inside the pictures), otherwise `originals/`
    /// beside the index (``originalsBesideIndex``).
    public var originalsPath: String {
        guard originalsDirectory.isEmpty else { return originalsDirectory }
        if case .s3(let bucket, let prefix)? = try? StoreLocation(parsing: cacheDirectory), !prefix.isEmpty,
            prefix.split(separator: "/").first.map(String.init) != Self.defaultOriginalsPrefix
        {
            return "s3://\(bucket)/\(Self.defaultOriginalsPrefix)"
        }
        return originalsBesideIndex
    }

    /// The prefix of a bucket's kept originals when `originals.directory` is not set.
    public static let defaultOriginalsPrefix = "originals"

    /// `originals/` beside the index: where originals are kept by default with a directory cache,
    /// and where they were kept with any cache before issue 26 (moved to the bucket at start when
    /// the default is a bucket now).
    public var originalsBesideIndex: String {
        URL(fileURLWithPath: indexPath).standardizedFileURL.deletingLastPathComponent().appendingPathComponent("originals").path
    }

    /// The kept originals' store location (``originalsPath`` parsed).
    public func originalsLocation() throws(LocationError) -> StoreLocation {
        try StoreLocation(parsing: originalsPath)
    }

    /// Why the originals' place may not be used, or `nil`: not a directory or `s3://` location, or
    /// inside (or equal to) the picture store, which every worker and gateway reads (and a CDN may
    /// serve): the originals hold what privacy zones hide.
    public func originalsProblem() -> String? {
        let originals: StoreLocation
        do {
            originals = try originalsLocation()
        } catch {
            return error.problem
        }
        guard let cache = try? StoreLocation(parsing: cacheDirectory) else { return nil }
        let inside: Bool =
            switch (originals, cache) {
            case (.directory(let path), .directory(let root)):
                path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
            case (.s3(let bucket, let prefix), .s3(let cacheBucket, let cachePrefix)):
                bucket == cacheBucket && (cachePrefix.isEmpty || prefix == cachePrefix || prefix.hasPrefix(cachePrefix + "/"))
            case (.directory, .s3), (.s3, .directory):
                false
            }
        guard inside else { return nil }
        return "it is inside cache.directory (\(cache)), which every worker and gateway reads; the originals hold what privacy zones hide: "
            + "choose a place only the coordinator uses"
    }
}
