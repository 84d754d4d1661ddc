import Foundation
public import Logging
public import WorkFeedStore
public import WorkFeedModel
import WorkFeedStyle

/// Everything the gateway is configured with. `Config/gateway.yaml` documents each key.
public struct GatewayConfiguration: Sendable, Hashable {
    /// `HOST:PORT` the HTTP server listens on (plain HTTP; TLS ends at a proxy in front).
    public var listen = "127.0.0.1:8080"
    /// The coordinators' control endpoints (their listen.control, comma-separated): a request
    /// goes to the one in use and, when it does not answer, to the next.
    public var controlEndpoints = ["tcp://127.0.0.1:5556"]
    /// The coordinators' event streams (their listen.events), where picture requests wait: every
    /// one of them is followed, so that a wait is answered whichever coordinator stored the picture.
    public var eventsEndpoints = ["tcp://127.0.0.1:5557"]
    /// Control sockets, each owned by a thread of its own: requests to the coordinator in flight at once.
    public var coordinatorClients = 16
    /// How long one request to the coordinator may take before the gateway answers 503.
    public var coordinatorTimeoutMilliseconds = 3_000
    /// The shared picture cache, read only.
    public var cacheDirectory = "var/cache"
    /// How an `s3://` cache is reached (`store.s3.*`).
    public var s3Store = S3StoreSettings()
    /// Pictures kept in memory (least recently used go first), in MiB; 0 turns it off.
    public var memoryCacheMegabytes = 64
    /// This gateway's CURVE key file (`workctl keygen`); empty: no encryption.
    public var keyFile = ""
    /// The coordinator's public key (Z85), required with a key file.
    public var serverKey = ""
    /// The HS256 secret tokens are signed with, from a file (its bytes, a final newline dropped) or given here.
    public var tokenSecretFile = ""
    public var tokenSecret = ""
    /// The public key (PEM, EC P-256 for ES256 or RSA for RS256) of an account system that signs
    /// tokens with a private key; with it, the secret is optional.
    public var tokenPublicKeyFile = ""
    /// The largest workout file an upload may carry, in bytes.
    public var uploadMaximumBytes = 16 << 20
    /// Pictures requested ahead of bulk work when a workout is uploaded.
    public var uploadKinds: [PictureKind] = PictureKind.drawnAhead
    public var uploadScales = [1, 2]
    /// Uploads one owner may make in a minute (a bucket that fills up again at that rate); past
    /// it, `429` with `Retry-After`.
    public var uploadsPerOwnerPerMinute = 30
    /// The longest `wait` a picture request may ask for, in seconds.
    public var maximumWaitSeconds = 10.0
    /// `pictures.redirect`: answer `GET /v1/pictures/{key}.png` with `302` to the object's public
    /// URL (an S3 store only), so that the bucket or a CDN in front of it carries the load.
    public var picturesRedirect = false
    /// `pictures.redirect_base`: the URL that stands for the bucket in those redirects (a CDN's);
    /// empty: the bucket's own URL.
    public var picturesRedirectBase = ""
    /// `pictures.reads_per_client`: picture reads one client may have under way at once that
    /// the memory cache does not answer (a question to the index, a store read); past it, `429`
    /// with `Retry-After`.
    public var pictureReadsPerClient = 8
    /// `http.trusted_proxies`: the addresses of proxies in front of the gateway (nginx, a CDN's
    /// edge); from one of them, the client is the last `X-Forwarded-For` address that is not one.
    public var trustedProxies: [String] = []
    public var trustedProxySet: Set<String> { Set(trustedProxies) }
    /// A connection that sends nothing for this long is closed (slow or idle clients).
    public var idleTimeoutSeconds = 30.0
    /// A request head (request line and headers) must arrive whole within this many seconds of the
    /// connection opening or the previous response, however slowly its bytes trickle in.
    public var headTimeoutSeconds = 10.0
    /// A request's body must arrive whole within this many seconds of its head (16 MiB at 56 KB/s
    /// by default), however slowly its bytes trickle in.
    public var bodyTimeoutSeconds = 300.0
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text

    public init() {}

    public static let keys: Set<String> = StoreKeys.keys.union([
        "listen", "coordinator.control", "coordinator.events", "coordinator.clients", "coordinator.timeout_ms", "cache.directory",
        "cache.memory_mb", "security.key_file", "security.server_key", "tokens.secret_file", "tokens.secret", "tokens.public_key_file",
        "uploads.max_bytes",
        "uploads.request_kinds", "uploads.request_scales", "uploads.per_owner_per_minute", "pictures.max_wait_seconds", "pictures.redirect",
        "pictures.redirect_base", "pictures.reads_per_client",
        "http.idle_timeout_seconds", "http.trusted_proxies", "http.head_timeout_seconds", "http.body_timeout_seconds",
        "log.level",
        "log.format",
    ])

    /// Loads the configuration: flags over environment over file over defaults.
    /// - Throws: ``ConfigurationError`` naming the first bad key, its value and what is allowed.
    public static func load(
        file: String?, environment: [String: String], overrides: [String: String] = [:]
    ) async throws(ConfigurationError) -> GatewayConfiguration {
        let settings = try await Settings(file: file, knownKeys: keys, environment: environment, overrides: overrides)
        var c = GatewayConfiguration()
        c.listen = settings.string("listen", default: c.listen)
        guard HostAndPort(c.listen) != nil else {
            throw settings.invalid("listen", c.listen, "HOST:PORT with an IPv4 address or a host name, e.g. 127.0.0.1:8080")
        }
        c.controlEndpoints = try settings.endpoints("coordinator.control", default: c.controlEndpoints)
        c.eventsEndpoints = try settings.endpoints("coordinator.events", default: c.eventsEndpoints)
        c.coordinatorClients = try settings.int("coordinator.clients", default: c.coordinatorClients, in: 1...64)
        c.coordinatorTimeoutMilliseconds = try settings.int("coordinator.timeout_ms", default: c.coordinatorTimeoutMilliseconds, in: 100...120_000)
        c.cacheDirectory = try settings.storeLocation(default: c.cacheDirectory)
        c.s3Store = try settings.s3Store()
        c.memoryCacheMegabytes = try settings.int("cache.memory_mb", default: c.memoryCacheMegabytes, in: 0...65_536)
        c.keyFile = settings.string("security.key_file", default: c.keyFile)
        c.serverKey = settings.string("security.server_key", default: c.serverKey)
        if !c.keyFile.isEmpty && c.serverKey.utf8.count != 40 {
            throw settings.invalid(
                "security.server_key", c.serverKey, "the coordinator's Z85 public key (40 characters), needed with security.key_file")
        }
        c.tokenSecretFile = settings.string("tokens.secret_file", default: c.tokenSecretFile)
        c.tokenSecret = settings.string("tokens.secret", default: c.tokenSecret)
        c.tokenPublicKeyFile = settings.string("tokens.public_key_file", default: c.tokenPublicKeyFile)
        if !c.tokenPublicKeyFile.isEmpty, !FileManager.default.isReadableFile(atPath: c.tokenPublicKeyFile) {
            throw settings.invalid("tokens.public_key_file", c.tokenPublicKeyFile, "a readable PEM file (an EC P-256 or RSA public key)")
        }
        if c.tokenSecretFile.isEmpty && c.tokenSecret.isEmpty && c.tokenPublicKeyFile.isEmpty {
            throw settings.invalid(
                "tokens.secret_file", "",
                "the file holding the HS256 secret the app's account system signs tokens with (or tokens.secret, or tokens.public_key_file for ES256/RS256)"
            )
        }
        if c.tokenSecretFile.isEmpty && c.tokenSecret.isEmpty {
            // A public key alone: no secret to check.
        } else if !c.tokenSecretFile.isEmpty {
            guard let secret = try? TokenSecret.read(file: c.tokenSecretFile) else {
                throw settings.invalid("tokens.secret_file", c.tokenSecretFile, "a readable file holding the secret, at least 32 bytes")
            }
            guard secret.count >= TokenSecret.minimumLength else {
                throw settings.invalid(
                    "tokens.secret_file", c.tokenSecretFile, "a secret of at least \(TokenSecret.minimumLength) bytes (it has \(secret.count))")
            }
        } else if c.tokenSecret.utf8.count < TokenSecret.minimumLength {
            throw settings.invalid("tokens.secret", "(\(c.tokenSecret.utf8.count) bytes)", "a secret of at least \(TokenSecret.minimumLength) bytes")
        }
        c.uploadMaximumBytes = try settings.int("uploads.max_bytes", default: c.uploadMaximumBytes, in: 1024...(1 << 30))
        let kinds = settings.strings("uploads.request_kinds", default: c.uploadKinds.map(\.rawValue))
        c.uploadKinds = []
        for kind in kinds {
            guard let parsed = PictureKind(rawValue: kind) else {
                throw settings.invalid(
                    "uploads.request_kinds", kinds.joined(separator: ","), PictureKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            c.uploadKinds.append(parsed)
        }
        c.uploadScales = try settings.ints("uploads.request_scales", default: c.uploadScales, in: PictureSpec.scaleRange)
        c.uploadsPerOwnerPerMinute = try settings.int("uploads.per_owner_per_minute", default: c.uploadsPerOwnerPerMinute, in: 1...100_000)
        c.maximumWaitSeconds = try settings.double("pictures.max_wait_seconds", default: c.maximumWaitSeconds, in: 0...60)
        c.picturesRedirect = try settings.bool("pictures.redirect", default: c.picturesRedirect)
        c.picturesRedirectBase = settings.string("pictures.redirect_base", default: c.picturesRedirectBase)
        if c.picturesRedirect, (try? StoreLocation(parsing: c.cacheDirectory))?.directory != nil {
            throw settings.invalid("pictures.redirect", "true", "only with an s3:// cache.directory: a directory has no public URL")
        }
        c.pictureReadsPerClient = try settings.int("pictures.reads_per_client", default: c.pictureReadsPerClient, in: 1...10_000)
        c.trustedProxies = settings.strings("http.trusted_proxies", default: c.trustedProxies)
        for proxy in c.trustedProxies where !IPAddressText.isValid(proxy) {
            throw settings.invalid("http.trusted_proxies", c.trustedProxies.joined(separator: ","), "IPv4 or IPv6 addresses (no names, no ranges)")
        }
        c.idleTimeoutSeconds = try settings.double("http.idle_timeout_seconds", default: c.idleTimeoutSeconds, in: 1...3_600)
        c.headTimeoutSeconds = try settings.double("http.head_timeout_seconds", default: c.headTimeoutSeconds, in: 1...300)
        c.bodyTimeoutSeconds = try settings.double("http.body_timeout_seconds", default: c.bodyTimeoutSeconds, in: 1...86_400)
        c.logLevel = try settings.choice("log.level", default: LogLevelName.info).level
        c.logFormat = try settings.choice("log.format", default: LogFormat.text)
        return c
    }

    /// The HS256 secret: the file's bytes, or ``tokenSecret``'s; empty when none is configured.
    public func secret() throws -> [UInt8] {
        tokenSecretFile.isEmpty ? Array(tokenSecret.utf8) : try TokenSecret.read(file: tokenSecretFile)
    }
}

/// `HOST:PORT`, as `listen` keys write it.
public struct HostAndPort: Sendable, Hashable {
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        let host = String(text[..<colon])
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else { return nil }
        self.host = host
        self.port = port
    }
}

/// The secret tokens are signed with, as a file holds it.
public enum TokenSecret {
    public static let minimumLength = 32

    /// The file's bytes, without one final newline (an editor's).
    public static func read(file: String) throws -> [UInt8] {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }
}

/// An IPv4 or IPv6 address as text (`inet_pton`'s rules).
public enum IPAddressText {
    public static func isValid(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
