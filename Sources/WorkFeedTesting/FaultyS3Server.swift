import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An S3 endpoint that misbehaves on a loopback port (a stopped ``MotoServer``'s, to stand in for
/// it): it answers every request `503 Slow Down` with S3's `SlowDown` error, at once (a bucket that
/// throttles), or reads the request and never answers (a bucket that stalls: the client waits for
/// its own timeout). One thread accepts, one request a connection; ``stop()`` ends it and closes
/// the stalled connections.
public final class FaultyS3Server: Sendable {
    public enum Fault: Sendable {
        /// `503 Slow Down` at once.
        case slowDown
        /// No answer until ``FaultyS3Server/stop()``.
        case stall
    }

    public let port: Int
    public let fault: Fault
    private let stalled = Mutex<[Int32]>([])
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    /// Requests answered (or, stalling, read) so far.
    public var answered: Int { count.load(ordering: .relaxed) }
    private let count = Atomic<Int>(0)

    /// Listens on 127.0.0.1:`port` (a port another server just left: `SO_REUSEADDR`).
    public init(port: Int, fault: Fault = .slowDown) throws {
        self.port = port
        self.fault = fault
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw MotoError("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = MotoServer.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let number = errno
            close(descriptor)
            throw MotoError("cannot listen on 127.0.0.1:\(port): errno \(number)")
        }
        listener = descriptor
        Thread.detachNewThread { [self] in serve() }
    }

    deinit { stop() }

    /// Stops accepting; the port is free again once this returns.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in stalled.withLock({ $0 }) {
            shutdown(connection, Int32(SHUT_RDWR))
            close(connection)
        }
    }

    static let reply: [UInt8] = {
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
        return Array(
            ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
                .utf8)
    }()

    private func serve() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // The request's head (its body, if any, is not waited for: the answer refuses it).
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            var read = 0
            while read < buffer.count {
                let got = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress! + read, $0.count - read, 0) }
                guard got > 0 else { break }
                read += got
                if read >= 4, (3..<read).contains(where: { buffer[$0 - 3] == 13 && buffer[$0 - 2] == 10 && buffer[$0 - 1] == 13 && buffer[$0] == 10 })
                {
                    break
                }
            }
            count.add(1, ordering: .relaxed)
            if fault == .stall {
                stalled.withLock { $0.append(connection) }
                continue
            }
            _ = Self.reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
        }
    }
}
