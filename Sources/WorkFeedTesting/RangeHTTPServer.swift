import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests that read files by range requests, as a web
/// server or CDN in front of a PMTiles archive answers them: `GET` of the files it holds, `Range: bytes=FIRST-LAST` answered `206 Partial Content` with `Content-Range`, a strong
/// `ETag` per content (a file replaced gets a new one), `If-Match` answered `412` when it no longer
/// matches, keep-alive connections. One thread accepts, one thread serves each connection.
///
/// It can be stopped (every connection dropped, mid-answer too) and started again on the same
/// port, told to ignore `Range` (``Behaviour/ignoresRange``: `200` with the whole file, as a
/// server without range support does) or to fail every request with a status. It counts the
/// requests and the body bytes it sent.
public final class RangeHTTPServer: Sendable {
    public enum Behaviour: Sendable, Equatable {
        /// Ranges answered as RFC 9110 says.
        case normal
        /// Every request answered `200` with the whole file, whatever `Range` says.
        case ignoresRange
        /// Every request answered with this status and an empty body.
        case failing(status: Int)
    }

    public private(set) var port: Int {
        get { state.withLock { $0.port } }
        set { state.withLock { $0.port = newValue } }
    }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Requests answered since the server was made.
    public var requests: Int { counters.withLock { $0.requests } }
    /// Body bytes sent since the server was made.
    public var bytesSent: Int { counters.withLock { $0.bytes } }
    /// The `Range` headers of the requests answered, in order (`""` for none).
    public var ranges: [String] { counters.withLock { $0.ranges } }

    private struct File {
        var bytes: [UInt8]
        var etag: String
    }

    private struct State {
        var port = 0
        var files: [String: File] = [:]
        var behaviour = Behaviour.normal
        var listener: Int32 = -1
        var connections: Set<Int32> = []
        var accepting: DispatchSemaphore?
        /// Files served so far: each one's ETag is its number.
        var served = 0
    }

    private struct Counters {
        var requests = 0
        var bytes = 0
        var ranges: [String] = []
    }

    private let state = Mutex(State())
    private let counters = Mutex(Counters())

    /// Serves `files` (URL path, such as `/tiles.pmtiles`, to bytes) on `port`, or on a free one.
    public init(files: [String: [UInt8]], port: Int = 0) throws {
        for (path, bytes) in files { serve(bytes, at: path) }
        self.port = port
        try start()
    }

    deinit { stop() }

    /// `baseURL` + `path`.
    public func url(_ path: String) -> String { baseURL + path }

    /// Serves `bytes` at `path` from now on, with a new `ETag`.
    public func serve(_ bytes: [UInt8], at path: String) {
        state.withLock { state in
            state.served += 1
            state.files[path] = File(bytes: bytes, etag: "\"file-\(state.served)-\(bytes.count)\"")
        }
    }

    /// How requests are answered from now on.
    public func behave(_ behaviour: Behaviour) {
        state.withLock { $0.behaviour = behaviour }
    }

    /// Listens again (on the port it had, once it has one) after ``stop()``.
    public func start() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw MotoError("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = MotoServer.loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let number = errno
            close(descriptor)
            throw MotoError("cannot listen on 127.0.0.1:\(port): errno \(number)")
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            close(descriptor)
            throw MotoError("getsockname: errno \(errno)")
        }
        let done = DispatchSemaphore(value: 0)
        state.withLock {
            $0.port = Int(UInt16(bigEndian: address.sin_port))
            $0.listener = descriptor
            $0.accepting = done
        }
        Thread.detachNewThread { [self] in
            acceptConnections(descriptor)
            close(descriptor)
            done.signal()
        }
    }

    /// Stops listening and drops every connection, answers under way included; the port is free
    /// once this returns. ``start()`` listens again.
    public func stop() {
        let (listener, connections, accepting) = state.withLock { state in
            defer {
                state.listener = -1
                state.accepting = nil
            }
            return (state.listener, state.connections, state.accepting)
        }
        guard listener >= 0 else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        accepting?.wait()
    }

    private func acceptConnections(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let open = state.withLock { state -> Bool in
                guard state.listener == listener else { return false }
                state.connections.insert(connection)
                return true
            }
            guard open else {
                close(connection)
                return
            }
            Thread.detachNewThread { [self] in
                serveConnection(connection)
                state.withLock { _ = $0.connections.remove(connection) }
                close(connection)
            }
        }
    }

    /// Answers requests on one connection until the client closes it or the server stops.
    private func serveConnection(_ connection: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            guard let end = Self.headEnd(pending) else {
                guard pending.count < 64 << 10 else { return }
                let got = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard got > 0 else { return }
                pending += buffer[0..<got]
                continue
            }
            let head = String(decoding: pending[0..<end], as: UTF8.self)
            pending.removeFirst(end + 4)
            guard let answer = answer(head) else { return }
            let sent = answer.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let wrote = send(connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    guard wrote > 0 else { return false }
                    offset += wrote
                }
                return true
            }
            guard sent else { return }
        }
    }

    /// Where `\r\n\r\n` starts in `bytes`.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The whole answer to a request head; `nil` for one that is not HTTP.
    private func answer(_ head: String) -> [UInt8]? {
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        let method = String(requestLine[0])
        let path = String(requestLine[1].prefix { $0 != "?" })
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let range = headers["range"] ?? ""
        let (file, behaviour) = state.withLock { ($0.files[path], $0.behaviour) }
        counters.withLock {
            $0.requests += 1
            $0.ranges.append(range)
        }
        if case .failing(let status) = behaviour { return reply(status, "Failing", [:], []) }
        guard method == "GET" else { return reply(405, "Method Not Allowed", [:], []) }
        guard let file else { return reply(404, "Not Found", [:], []) }
        var fields = ["ETag": file.etag, "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"]
        if let ifMatch = headers["if-match"], ifMatch != "*",
            !ifMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == file.etag })
        {
            return reply(412, "Precondition Failed", fields, [])
        }
        let size = file.bytes.count
        guard behaviour == .normal, !range.isEmpty else { return reply(200, "OK", fields, file.bytes) }
        guard let span = Self.span(range, size: size) else {
            fields["Content-Range"] = "bytes */\(size)"
            return reply(416, "Range Not Satisfiable", fields, [])
        }
        fields["Content-Range"] = "bytes \(span.lowerBound)-\(span.upperBound - 1)/\(size)"
        return reply(206, "Partial Content", fields, Array(file.bytes[span]))
    }

    /// The bytes `bytes=FIRST-LAST` (or `FIRST-`, or `-SUFFIX`) names in a `size`-byte file.
    private static func span(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let ends = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else { return nil }
        if ends[0].isEmpty {
            guard let suffix = Int(ends[1]), suffix > 0, size > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let first = Int(ends[0]), first < size else { return nil }
        let last = ends[1].isEmpty ? size - 1 : min(Int(ends[1]) ?? -1, size - 1)
        guard last >= first else { return nil }
        return first..<(last + 1)
    }

    private func reply(_ status: Int, _ phrase: String, _ fields: [String: String], _ body: [UInt8]) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(phrase)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        counters.withLock { $0.bytes += body.count }
        return Array((head + "\r\n").utf8) + body
    }
}
