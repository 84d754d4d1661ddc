import Foundation
import Synchronization
public import Logging
public import Prometheus

#if canImport(Glibc)
import Glibc
#endif

/// Serves a Prometheus registry at `GET /metrics` over plain HTTP/1.1.
///
/// Deliberately small: one request per connection, for a Prometheus scraper on a trusted network.
/// It carries no work between the parts (they speak ZeroMQ; the gateway's HTTP is for apps and
/// browsers, on Hummingbird, and an S3 store's for the bucket). Each connection is
/// served on a thread of its own with a deadline of its own (``requestDeadline`` to send its
/// request, ``responseDeadline`` to take the answer), so a slow or silent client delays only
/// itself; at most ``maximumConnections`` are served at once, and one more is closed at once.
public final class MetricsServer: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let beforeScrape: (@Sendable () -> Void)?
    private let logger: Logger
    private let descriptor: Int32
    /// The port actually bound (a requested 0 resolved).
    public let port: Int
    private let active = Atomic<Int>(0)
    /// A scrape is one small request: a client that has not sent it by then is dropped.
    static let requestDeadline: Duration = .seconds(2)
    static let responseDeadline: Duration = .seconds(5)
    static let maximumConnections = 64

    /// Binds `listen` (`HOST:PORT`, an IPv4 address) and starts serving.
    /// - Throws: ``MetricsServerError`` naming the address and the system's reason.
    /// - Parameter beforeScrape: runs on the server's thread before each scrape, to bring gauges
    ///   that are costly to keep current up to date only when someone asks.
    public init(
        listen: String, registry: PrometheusCollectorRegistry, beforeScrape: (@Sendable () -> Void)? = nil, logger: Logger
    ) throws(MetricsServerError) {
        self.registry = registry
        self.beforeScrape = beforeScrape
        self.logger = logger
        let parts = listen.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else {
            throw MetricsServerError(.badAddress, "metrics listen address must be HOST:PORT, e.g. 127.0.0.1:9464, not '\(listen)'")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, String(parts[0]), &address.sin_addr) == 1 else {
            throw MetricsServerError(.badAddress, "metrics listen address: '\(parts[0])' is not an IPv4 address")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MetricsServerError(.socket, "socket: \(String(cString: strerror(errno)))", errno: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let failure = errno
            close(fd)
            throw MetricsServerError(.socket, "cannot listen for metrics on \(listen): \(String(cString: strerror(failure)))", errno: failure)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        descriptor = fd
        let thread = Thread { [self] in serve() }
        thread.name = "metrics-http"
        thread.start()
        logger.info("metrics served", metadata: ["url": "http://\(parts[0]):\(self.port)/metrics"])
    }

    /// Stops accepting connections.
    public func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    // Out of descriptors: wait for some to be closed rather than spin.
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                close(descriptor)
                return
            }
            guard active.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                active.subtract(1, ordering: .relaxed)
                close(client)
                continue
            }
            let thread = Thread { [self] in
                answer(client)
                close(client)
                active.subtract(1, ordering: .relaxed)
            }
            thread.name = "metrics-client"
            thread.start()
        }
    }

    private func answer(_ client: Int32) {
        let deadline = ContinuousClock.now + Self.requestDeadline
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 16_384, !request.ends(with: [13, 10, 13, 10]) {
            // The whole request within the deadline, however the client dribbles it.
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard milliseconds > 0 else { return }
            var poll = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, milliseconds) > 0 else { return }
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            request += buffer[..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let response: [UInt8]
        if line.hasPrefix("GET /metrics ") || line == "GET /metrics" {
            beforeScrape?()
            let body = registry.emitToBuffer()
            response =
                Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
                + body
        } else {
            let body = Array("only GET /metrics is served here\n".utf8)
            response =
                Array("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        }
        let sendDeadline = ContinuousClock.now + Self.responseDeadline
        var sent = 0
        while sent < response.count {
            let left = sendDeadline - ContinuousClock.now
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            var poll = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
            guard milliseconds > 0, Glibc.poll(&poll, 1, milliseconds) > 0 else { return }
            let count = response.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if count <= 0 { return }
            sent += count
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// The metrics endpoint could not be set up.
public struct MetricsServerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// `metrics.listen` is not an IPv4 `HOST:PORT`.
        case badAddress
        /// The socket could not be made, bound or listened on (`errno` says why).
        case socket
    }

    public var code: Code
    public var message: String
    /// The system's error number, for ``Code/socket``.
    public var errno: Int32?

    init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }
}
