public import Foundation
public import WorkFeedS3
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real S3-compatible server for tests (a library of its own so that every test target that
/// needs one shares it; no program links it): PyPI's `moto[server]` (pinned in Tests/web/requirements.txt,
/// installed into var/test-python by deploy/install-test-deps.sh), started on a free loopback
/// port and stopped by the test. It keeps objects in memory: a restarted server is empty.
public final class MotoServer: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WorkFeedTesting
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()
    public static let executable = repositoryRoot.appendingPathComponent("var/test-python/bin/moto_server").path
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let skipReason = "var/test-python has no moto_server: run deploy/install-test-deps.sh (make test does)"

    /// The credentials moto accepts (any); what the tests sign with.
    public static let credentials = S3Credentials(accessKeyID: "workfeed-test", secretAccessKey: "workfeed-test-secret")

    public private(set) var port: Int
    private var process: SpawnedProcess?
    private var log: URL

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on `port`, or on a free one. A free port is free when it is asked for,
    /// not when moto binds it: another test's socket (a ZeroMQ endpoint on `tcp://127.0.0.1:*`)
    /// may take it in between, and moto then exits; it is tried again on another port, up to 5 times.
    public init(port: Int? = nil) throws {
        var attempt = 1
        while true {
            self.port = try port ?? Self.freePort()
            log = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-moto-\(self.port)-\(UUID().uuidString).log")
            do {
                try start()
                return
            } catch {
                guard port == nil, attempt < 5 else { throw error }
                attempt += 1
            }
        }
    }

    deinit { stop() }

    /// Starts the server (again, on the same port) and waits until it answers.
    public func start() throws {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        // Not Foundation's Process, which crashes at random on Linux (``SpawnedProcess``).
        let process = try SpawnedProcess(Self.executable, ["-H", "127.0.0.1", "-p", String(port)], output: log.path)
        self.process = process
        MotoServer.running.withLock { _ = $0.insert(process.pid) }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // Something that accepts a connection is not yet moto: it must answer HTTP.
            if Self.answersHTTP(port: port), process.isRunning { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw MotoError("moto_server did not start on 127.0.0.1:\(port): \(said.suffix(2000))")
    }

    /// Stops it with SIGKILL (moto's server was seen here to ignore SIGTERM, which left a waiting
    /// test hung), and waits for the process to end. `kill` says the test means a crash; the
    /// signal is the same.
    public func stop(kill: Bool = false) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.pid, SIGCONT)
        Glibc.kill(process.pid, SIGKILL)
        process.wait()
        _ = MotoServer.running.withLock { $0.remove(process.pid) }
        self.process = nil
    }

    /// Servers still running, killed when the test process exits (the shared one is a static and
    /// never deinitialized).
    static let running: Mutex<Set<Int32>> = {
        atexit {
            for pid in MotoServer.running.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
        }
        return Mutex([])
    }()

    /// Pauses it (SIGSTOP): connections are accepted by the kernel but nothing answers.
    public func pause() { if let process { Glibc.kill(process.pid, SIGSTOP) } }
    public func resume() { if let process { Glibc.kill(process.pid, SIGCONT) } }

    /// A client of a fresh bucket on this server.
    public func newBucket(
        _ name: String = "wf-\(UUID().uuidString.prefix(8).lowercased())", credentials: S3CredentialSource? = nil
    ) throws -> S3Client {
        let client = try S3Client(
            S3Configuration(
                bucket: name, endpoint: endpoint, region: "us-east-1", pathStyle: true, credentials: credentials ?? .fixed(Self.credentials),
                timeoutSeconds: 5))
        try client.createBucket()
        return client
    }

    /// An AWS shared credentials file with ``credentials`` as its `default` profile, in the
    /// temporary directory (the caller removes it): what `store.s3.credentials_file` names.
    public static func writeCredentialsFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-moto-credentials-\(UUID().uuidString)")
        try "[default]\naws_access_key_id=\(credentials.accessKeyID)\naws_secret_access_key=\(credentials.secretAccessKey)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw MotoError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0 else { throw MotoError("bind: errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw MotoError("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether what listens on `port` answers a `GET /` as an HTTP server does (within a second).
    static func answersHTTP(port: Int) -> Bool {
        guard let descriptor = connected(to: port, timeoutSeconds: 1) else { return false }
        defer { close(descriptor) }
        let request = Array("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        let wanted = 5
        var reply = [UInt8](repeating: 0, count: wanted)
        var got = 0
        while got < wanted {
            let read = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + got, wanted - got, 0) }
            guard read > 0 else { return false }
            got += read
        }
        return reply == Array("HTTP/".utf8)
    }

    public static func accepts(port: Int) -> Bool {
        guard let descriptor = connected(to: port) else { return false }
        close(descriptor)
        return true
    }

    /// The address 127.0.0.1:`port` (0: any free port).
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// A socket connected to 127.0.0.1:`port` (its sends and receives bounded by `timeoutSeconds`
    /// when given), or `nil` when nothing accepts there.
    private static func connected(to port: Int, timeoutSeconds: Int? = nil) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if let timeoutSeconds {
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// One server for a test process's suites, started when first asked for.
    public static let shared: Result<MotoServer, any Error> = Result { try MotoServer() }
}

public struct MotoError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MotoServer {
    /// Makes an IAM user allowed everything, with an access key, and turns moto's authentication
    /// on: from then on only that key (and others made so) is accepted, and a wrong one gets 403.
    public func enforceCredentials() throws -> S3Credentials {
        let user = "workfeed-\(UUID().uuidString.prefix(8))"
        _ = try iam(["Action": "CreateUser", "UserName": user])
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        _ = try iam(["Action": "PutUserPolicy", "UserName": user, "PolicyName": "all", "PolicyDocument": policy])
        let created = try iam(["Action": "CreateAccessKey", "UserName": user])
        guard let id = Self.element("AccessKeyId", in: created), let secret = Self.element("SecretAccessKey", in: created) else {
            throw MotoError("CreateAccessKey said: \(created.prefix(500))")
        }
        // The count travels as the raw body: sent as a form (URLSession's default type for a POST
        // body), Flask reads it into the form, moto finds no body, answers 500, and authentication
        // stays off (what kept this test disabled: every key was accepted).
        let (status, said) = try http("POST", "/moto-api/reset-auth", body: Array("0".utf8), headers: ["Content-Type": "text/plain"])
        guard status == 200 else { throw MotoError("moto-api/reset-auth: HTTP \(status): \(said.prefix(500))") }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret)
    }

    /// Another access key of the user `credentials` belong to, made with them (moto checks them).
    public func createAccessKey(signedWith credentials: S3Credentials) throws -> S3Credentials {
        let users = try iam(["Action": "ListUsers"], credentials: credentials)
        for user in Self.elements("UserName", in: users) {
            let keys = try iam(["Action": "ListAccessKeys", "UserName": user], credentials: credentials)
            guard Self.elements("AccessKeyId", in: keys).contains(credentials.accessKeyID) else { continue }
            let created = try iam(["Action": "CreateAccessKey", "UserName": user], credentials: credentials)
            guard let id = Self.element("AccessKeyId", in: created), let secret = Self.element("SecretAccessKey", in: created) else {
                throw MotoError("CreateAccessKey said: \(created.prefix(500))")
            }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret)
        }
        throw MotoError("no IAM user has the access key \(credentials.accessKeyID)")
    }

    /// Deletes an access key (credentials that stop working mid-run): from then on moto answers
    /// 403 `InvalidAccessKeyId` to requests signed with it.
    public func deleteAccessKey(_ credentials: S3Credentials, signedWith admin: S3Credentials) throws {
        let users = try iam(["Action": "ListUsers"], credentials: admin)
        var deleted = false
        for user in Self.elements("UserName", in: users) {
            let keys = try iam(["Action": "ListAccessKeys", "UserName": user], credentials: admin)
            guard Self.elements("AccessKeyId", in: keys).contains(credentials.accessKeyID) else { continue }
            _ = try iam(["Action": "DeleteAccessKey", "UserName": user, "AccessKeyId": credentials.accessKeyID], credentials: admin)
            deleted = true
        }
        guard deleted else { throw MotoError("no IAM user has the access key \(credentials.accessKeyID)") }
    }

    /// An IAM query request, signed with SigV4 for the service `iam`.
    public func iam(_ parameters: [String: String], credentials: S3Credentials? = nil) throws -> String {
        var all = parameters
        all["Version"] = "2010-05-08"
        let body = Array(
            all.sorted { $0.key < $1.key }.map { "\(SigV4Signer.encode($0.key))=\(SigV4Signer.encode($0.value))" }.joined(separator: "&").utf8)
        let host = "127.0.0.1:\(port)"
        var request = SigV4Request(
            method: "POST", path: "/", headers: [("Host", host), ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")])
        let signer = SigV4Signer(credentials: credentials ?? Self.credentials, region: "us-east-1", service: "iam", normalizesPath: true)
        request.headers += signer.authorizationHeaders(for: request, payloadHash: SigV4Signer.hash(body), date: Date(), addsContentHash: false)
        var headers: [String: String] = [:]
        for header in request.headers where header.name != "Host" { headers[header.name] = header.value }
        let (status, text) = try http("POST", "/", body: body, headers: headers)
        guard (200..<300).contains(status) else { throw MotoError("IAM \(parameters["Action"] ?? ""): HTTP \(status): \(text.prefix(500))") }
        return text
    }

    public func http(_ method: String, _ path: String, body: [UInt8], headers: [String: String]) throws -> (Int, String) {
        var request = URLRequest(url: URL(string: "\(endpoint)\(path)")!)
        request.httpMethod = method
        request.httpBody = Data(body)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, String)?
        nonisolated(unsafe) var failure: (any Error)?
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error { failure = error }
            result = ((response as? HTTPURLResponse)?.statusCode ?? 0, data.map { String(decoding: $0, as: UTF8.self) } ?? "")
            done.signal()
        }.resume()
        done.wait()
        if let failure { throw failure }
        return result ?? (0, "")
    }

    public static func element(_ name: String, in text: String) -> String? { elements(name, in: text).first }

    public static func elements(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }
}
