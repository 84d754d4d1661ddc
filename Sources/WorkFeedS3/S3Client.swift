import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Where a bucket is and how to reach it.
public struct S3Configuration: Sendable, Equatable {
    public var bucket: String
    /// `https://s3.eu-central-1.amazonaws.com` (the default for ``region``), or another service's
    /// (`http://minio:9000`); scheme, host and port only.
    public var endpoint: String
    public var region: String
    /// Path-style addressing (`endpoint/bucket/key`, what MinIO, Ceph and moto want by default)
    /// or virtual-host style (`bucket.endpoint/key`, AWS's default).
    public var pathStyle: Bool
    public var credentials: S3CredentialSource
    /// How long one request may take, connection included.
    public var timeoutSeconds: Int

    public init(
        bucket: String, endpoint: String? = nil, region: String = "us-east-1", pathStyle: Bool? = nil,
        credentials: S3CredentialSource = .environment, timeoutSeconds: Int = 10
    ) {
        self.bucket = bucket
        self.endpoint = endpoint ?? "https://s3.\(region).amazonaws.com"
        self.region = region
        // AWS's own endpoint: virtual-host style (path style is being retired there); any other
        // service: path style, which needs no DNS name per bucket.
        self.pathStyle = pathStyle ?? (endpoint != nil)
        self.credentials = credentials
        self.timeoutSeconds = timeoutSeconds
    }
}

/// An object's head: its entity tag and size.
public struct S3ObjectHead: Sendable, Equatable {
    public var etag: String
    public var size: Int
    public var contentType: String? = nil
    public var cacheControl: String? = nil
}

/// A small S3 client over async-http-client: the requests WorkFeed's picture store makes, each
/// signed with ``SigV4Signer`` (payload hashed, so that the service refuses a body cut short).
///
/// Every call blocks until the answer is there (the picture store's contract): call it from a
/// thread of your own or a thread pool, never from an event loop or Swift's cooperative pool.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    let credentials: S3CredentialsProvider
    let scheme: String
    /// `host` or `host:port` of the endpoint.
    let authority: String

    /// One HTTP client for the process (connections pooled per host, never shut down: a store
    /// lives as long as its process).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(30))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// - Throws: ``S3Error`` (`denied`) when no credentials can be found, or the endpoint is not a URL.
    public init(_ configuration: S3Configuration) throws(S3Error) {
        self.configuration = configuration
        guard let url = URLComponents(string: configuration.endpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else {
            throw S3Error(
                .denied, operation: "CONFIGURE", bucket: configuration.bucket, endpoint: configuration.endpoint,
                message: "the endpoint is not an http:// or https:// URL with a host and nothing after it")
        }
        self.scheme = scheme
        authority = url.port.map { "\(host):\($0)" } ?? host
        do {
            credentials = try S3CredentialsProvider(source: configuration.credentials)
        } catch {
            throw S3Error(.denied, operation: "CONFIGURE", bucket: configuration.bucket, endpoint: configuration.endpoint, message: error.message)
        }
    }

    /// The bucket's address, for messages: `http://127.0.0.1:9000/bucket` or `https://bucket.s3…`.
    public var bucketURL: String {
        configuration.pathStyle ? "\(scheme)://\(authority)/\(configuration.bucket)" : "\(scheme)://\(configuration.bucket).\(authority)"
    }

    /// The object's URL (unsigned): what a public bucket or a CDN in front of it serves.
    public func url(of key: String) -> String {
        bucketURL + SigV4Signer.canonicalPath("/" + key, normalize: false)
    }

    // MARK: Objects

    /// Stores `bytes` under `key` in one request (a reader sees the old object or the new one).
    /// - Returns: the new object's entity tag.
    @discardableResult
    public func put(_ key: String, _ bytes: [UInt8], contentType: String, cacheControl: String? = nil) throws(S3Error) -> String {
        var headers = [("Content-Type", contentType)]
        if let cacheControl { headers.append(("Cache-Control", cacheControl)) }
        let response = try send(.PUT, operation: "PUT", key: key, headers: headers, body: bytes)
        return response.headers.first(name: "ETag") ?? ""
    }

    /// Starts several PUTs at once and waits for all: a picture's two names in one round trip.
    public func putAll(_ objects: [(key: String, bytes: [UInt8], contentType: String, cacheControl: String?)]) throws(S3Error) {
        let futures = objects.map { object in
            var headers = [("Content-Type", object.contentType)]
            if let cacheControl = object.cacheControl { headers.append(("Cache-Control", cacheControl)) }
            return start(.PUT, operation: "PUT", key: object.key, headers: headers, body: object.bytes)
        }
        var first: S3Error?
        for (future, object) in zip(futures, objects) {
            do {
                _ = try finish(future, operation: "PUT", key: object.key)
            } catch {
                first = first ?? error
            }
        }
        if let first { throw first }
    }

    /// The object's bytes (or its first `length` bytes) and entity tag, or `nil` when there is none.
    /// - Parameter maximumBytes: the most bytes taken in: an object larger than this is not read
    ///   (its `Content-Length` is looked at first, and the body is cut off if it grows past it).
    /// - Throws: ``S3Error`` of kind `tooLarge` for an object over `maximumBytes`.
    public func get(_ key: String, length: Int? = nil, maximumBytes: Int? = nil) throws(S3Error) -> (bytes: [UInt8], etag: String)? {
        let range = length.map { [("Range", "bytes=0-\(max(0, $0 - 1))")] } ?? []
        do {
            let response = try send(.GET, operation: "GET", key: key, headers: range, maximumBytes: maximumBytes)
            let body = response.body.map { Array($0.readableBytesView) } ?? []
            return (body, response.headers.first(name: "ETag") ?? "")
        } catch  where error.kind == .notFound && error.s3Code != "NoSuchBucket" {
            return nil
        }
    }

    /// The bytes of `range` of the object (fewer at its end), its whole size and entity tag: a
    /// GET with `Range`, checked by ``ByteRange/check(status:contentRange:bodyCount:asked:)``.
    /// Little more than `range`'s length is taken in, whatever the service sends (a service that ignores
    /// `Range` and sends a larger object whole is cut off and refused, never read whole: at most
    /// the range's length, or 64 KiB for a shorter range, is taken in).
    /// - Parameters:
    ///   - range: a non-empty span of bytes, at most 4 GiB long.
    ///   - ifMatch: the entity tag the object must still have; another one fails with
    ///     `conditionFailed` (S3's 412 `PreconditionFailed`).
    /// - Throws: ``S3Error``: `notFound` for a missing object, `conditionFailed`, `tooLarge` for a
    ///   body longer than asked, `corrupt` for an answer that is not the asked range, and what any
    ///   request throws.
    public func get(_ key: String, range: Range<UInt64>, ifMatch: String? = nil) throws(S3Error) -> RangedBody {
        guard !range.isEmpty, range.upperBound - range.lowerBound <= UInt64(UInt32.max) else {
            throw error(.denied, operation: "GET", key: key, message: "a range of \(range.upperBound - range.lowerBound) bytes cannot be asked for")
        }
        var headers = [("Range", ByteRange.header(range))]
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        // An error's XML may be longer than a small range: up to 64 KiB more is taken in.
        let response = try send(
            .GET, operation: "GET", key: key, headers: headers, maximumBytes: max(Int(range.upperBound - range.lowerBound), 64 << 10))
        switch ByteRange.body(of: response, asked: range) {
        case .success(let body): return body
        case .failure(let problem): throw error(.corrupt, operation: "GET", key: key, status: Int(response.status.code), message: problem.message)
        }
    }

    /// The object's entity tag and size, or `nil` when there is none.
    public func head(_ key: String) throws(S3Error) -> S3ObjectHead? {
        do {
            let response = try send(.HEAD, operation: "HEAD", key: key)
            let size = response.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
            return S3ObjectHead(
                etag: response.headers.first(name: "ETag") ?? "", size: size, contentType: response.headers.first(name: "Content-Type"),
                cacheControl: response.headers.first(name: "Cache-Control"))
        } catch  where error.kind == .notFound && error.s3Code != "NoSuchBucket" {
            return nil
        }
    }

    /// Deletes `key` (absent is fine); with `ifMatch`, only while its entity tag is that one.
    /// - Throws: ``S3Error`` of kind `conditionFailed` when the tag no longer matches.
    public func delete(_ key: String, ifMatch etag: String? = nil) throws(S3Error) {
        do {
            _ = try send(.DELETE, operation: "DELETE", key: key, headers: etag.map { [("If-Match", $0)] } ?? [])
        } catch  where error.kind == .notFound && error.s3Code != "NoSuchBucket" {
            return
        }
    }

    /// Deletes up to 1,000 keys in one request (S3's DeleteObjects, quiet mode).
    /// - Returns: the keys S3 could not delete, with its code for each.
    public func delete(keys: [String]) throws(S3Error) -> [(key: String, code: String)] {
        guard !keys.isEmpty else { return [] }
        precondition(keys.count <= 1000, "DeleteObjects takes at most 1,000 keys")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
        for key in keys { xml += "<Object><Key>\(XMLText.escape(key))</Key></Object>" }
        xml += "</Delete>"
        let body = Array(xml.utf8)
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        let response = try send(
            .POST, operation: "DELETE-OBJECTS", key: nil, query: [("delete", "")],
            headers: [("Content-Type", "application/xml"), ("Content-MD5", md5)], body: body)
        let text = response.body.map { String(buffer: $0) } ?? ""
        return XMLText.elements("Error", in: text).map { error in
            (XMLText.values("Key", in: error).first ?? "", XMLText.values("Code", in: error).first ?? "")
        }
    }

    /// Copies `source` to `key` in the bucket (no bytes through this process).
    public func copy(_ source: String, to key: String, contentType: String, cacheControl: String? = nil) throws(S3Error) {
        var headers = [
            ("x-amz-copy-source", "/" + configuration.bucket + SigV4Signer.canonicalPath("/" + source, normalize: false)),
            ("x-amz-metadata-directive", "REPLACE"), ("Content-Type", contentType),
        ]
        if let cacheControl { headers.append(("Cache-Control", cacheControl)) }
        _ = try send(.PUT, operation: "COPY", key: key, headers: headers)
    }

    /// Every key that starts with `prefix` (ListObjectsV2, page after page).
    /// - Parameter maximum: at most this many keys (one request when at most 1,000); `nil`: all.
    public func list(prefix: String, maximum: Int? = nil) throws(S3Error) -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            let page = min(1000, max(1, (maximum ?? 1000) - keys.count))
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", "\(page)")]
            if let token { query.append(("continuation-token", token)) }
            let response = try send(.GET, operation: "LIST", key: nil, query: query)
            let text = response.body.map { String(buffer: $0) } ?? ""
            guard text.contains("<ListBucketResult") else {
                throw error(
                    .corrupt, operation: "LIST", key: nil, status: Int(response.status.code), message: "the listing is not a ListBucketResult")
            }
            for contents in XMLText.elements("Contents", in: text) { keys += XMLText.values("Key", in: contents) }
            let truncated = XMLText.values("IsTruncated", in: text).first == "true"
            token = truncated ? XMLText.values("NextContinuationToken", in: text).first : nil
            if let maximum, keys.count >= maximum { return Array(keys.prefix(maximum)) }
        } while token != nil
        return keys
    }

    /// Checks that the bucket is there and these credentials may use it (HeadBucket).
    public func headBucket() throws(S3Error) {
        _ = try send(.HEAD, operation: "HEAD-BUCKET", key: nil)
    }

    /// Creates the bucket (tests, a first deployment).
    public func createBucket() throws(S3Error) {
        var body: [UInt8]?
        if configuration.region != "us-east-1" {
            body = Array(
                ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
                    + "\(XMLText.escape(configuration.region))</LocationConstraint></CreateBucketConfiguration>").utf8)
        }
        do {
            _ = try send(.PUT, operation: "CREATE-BUCKET", key: nil, body: body)
        } catch  where error.s3Code == "BucketAlreadyOwnedByYou" {
            return
        }
    }

    // MARK: Requests

    /// Sends one signed request and waits for its answer; a refusal of the credentials reads them
    /// again (a rotated file) and tries once more when they changed.
    func send(
        _ method: HTTPMethod, operation: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: [UInt8]? = nil, maximumBytes: Int? = nil
    ) throws(S3Error) -> HTTPClient.Response {
        func attempt() throws(S3Error) -> HTTPClient.Response {
            try finish(
                start(method, operation: operation, key: key, query: query, headers: headers, body: body, maximumBytes: maximumBytes),
                operation: operation, key: key)
        }
        do {
            return try attempt()
        } catch  where error.kind == .denied && error.status == 403 && credentials.reload() {
            return try attempt()
        }
    }

    /// Starts one signed request.
    /// - Parameter maximumBytes: the most bytes of the answer's body taken in (async-http-client's
    ///   `ResponseAccumulator` refuses a larger `Content-Length` at once and cuts off a body that
    ///   grows past it); `nil`: the accumulator's own bound.
    func start(
        _ method: HTTPMethod, operation: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: [UInt8]? = nil, maximumBytes: Int? = nil
    ) -> Result<EventLoopFuture<HTTPClient.Response>, S3Error> {
        var path: String
        let host: String
        if configuration.pathStyle {
            path = "/" + configuration.bucket + (key.map { "/" + $0 } ?? "")
            host = authority
        } else {
            path = "/" + (key ?? "")
            host = configuration.bucket + "." + authority
        }
        var request = SigV4Request(
            method: method.rawValue, path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: [("Host", host)] + headers.map { (name: $0.0, value: $0.1) })
        let signer = SigV4Signer(credentials: credentials.current, region: configuration.region, service: "s3", normalizesPath: false)
        let payloadHash = SigV4Signer.hash(body ?? [])
        request.headers += signer.authorizationHeaders(for: request, payloadHash: payloadHash, date: Date())

        path = SigV4Signer.canonicalPath(path, normalize: false)
        let queryText = query.map { SigV4Signer.encode($0.0) + "=" + SigV4Signer.encode($0.1) }.joined(separator: "&")
        let url = "\(scheme)://\(host)\(path)" + (queryText.isEmpty ? "" : "?" + queryText)
        do {
            var httpHeaders = HTTPHeaders()
            for header in request.headers { httpHeaders.add(name: header.name, value: header.value) }
            let outgoing = try HTTPClient.Request(url: url, method: method, headers: httpHeaders, body: body.map { .bytes($0) })
            let deadline = NIODeadline.now() + .seconds(Int64(configuration.timeoutSeconds))
            guard let maximumBytes else { return .success(Self.http.execute(request: outgoing, deadline: deadline)) }
            let accumulator = ResponseAccumulator(request: outgoing, maxBodySize: max(0, min(maximumBytes, Int(UInt32.max))))
            return .success(Self.http.execute(request: outgoing, delegate: accumulator, deadline: deadline).futureResult)
        } catch {
            return .failure(self.error(.denied, operation: operation, key: key, message: "the request cannot be made: \(error)"))
        }
    }

    func finish(
        _ started: Result<EventLoopFuture<HTTPClient.Response>, S3Error>, operation: String, key: String?
    ) throws(S3Error)
        -> HTTPClient.Response
    {
        let response: HTTPClient.Response
        do {
            response = try started.get().wait()
        } catch let error as S3Error {
            throw error
        } catch let error as ResponseAccumulator.ResponseTooBigError {
            throw S3Error(
                .tooLarge, operation: operation, bucket: configuration.bucket, endpoint: configuration.endpoint, key: key,
                message: "the answer is larger than the \(error.maxBodySize) bytes taken in: not read", transport: error)
        } catch {
            throw S3Error(
                .unavailable, operation: operation, bucket: configuration.bucket, endpoint: configuration.endpoint, key: key,
                message: "no answer: \(error)", transport: error)
        }
        let status = Int(response.status.code)
        guard !(200..<300).contains(status) else { return response }
        let text = response.body.map { String(buffer: $0) } ?? ""
        let code = XMLText.values("Code", in: text).first
        let message = XMLText.values("Message", in: text).first ?? response.status.reasonPhrase
        throw S3Error(
            S3Error.kind(status: status, code: code), operation: operation, bucket: configuration.bucket, endpoint: configuration.endpoint,
            key: key, status: status, s3Code: code ?? (status == 404 && key == nil ? "NoSuchBucket" : nil), message: message)
    }

    func error(_ kind: S3Error.Kind, operation: String, key: String?, status: Int? = nil, message: String) -> S3Error {
        S3Error(
            kind, operation: operation, bucket: configuration.bucket, endpoint: configuration.endpoint, key: key, status: status, message: message)
    }
}

/// The few pieces of S3's XML answers WorkFeed reads: the text of elements by name, entities
/// decoded. Never traps on what a server sends: what is not found is not there.
enum XMLText {
    /// The inner texts of every `<name>…</name>` (or `<name attr…>…</name>`), in order.
    static func elements(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<" + name) {
            let afterName = rest[open.upperBound...]
            guard let next = afterName.first, next == ">" || next == " " || next == "/" else {
                rest = afterName
                continue
            }
            guard let tagEnd = afterName.firstIndex(of: ">") else { break }
            if afterName[..<tagEnd].hasSuffix("/") {
                found.append("")
                rest = afterName[afterName.index(after: tagEnd)...]
                continue
            }
            let inner = afterName[afterName.index(after: tagEnd)...]
            guard let close = inner.range(of: "</" + name + ">") else { break }
            found.append(String(inner[..<close.lowerBound]))
            rest = inner[close.upperBound...]
        }
        return found
    }

    /// The decoded texts of every `<name>` element.
    static func values(_ name: String, in text: String) -> [String] {
        elements(name, in: text).map(unescape)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&apos;")
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(
            of: "&quot;", with: "\""
        )
        .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
