import Foundation
import Testing
import WorkFeedConfig

#if canImport(Glibc)
import Glibc
#endif

/// Request heads are bounded and slow clients are timed out: raw TCP against the running gateway.
@Suite(.serialized) struct LimitsTests {
    /// A TCP connection to 127.0.0.1:`port` with a receive timeout.
    final class Connection {
        let descriptor: Int32

        init(port: Int, timeoutSeconds: Int = 30) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(descriptor) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                offset += sent
            }
        }

        /// Everything the server sends until it closes the connection; `nil` if it is still open
        /// when the receive timeout passes.
        func readUntilClosed() -> String? {
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, 65_536, 0) }
                if count == 0 { return String(decoding: all, as: UTF8.self) }
                if count < 0 { return errno == ECONNRESET ? String(decoding: all, as: UTF8.self) : nil }
                all += buffer.prefix(count)
            }
        }
    }

    @Test func aClientThatStopsSendingIsDisconnected() async throws {
        let system = try await GatewaySystem(workers: 0) { $0.idleTimeoutSeconds = 1 }
        do {
            let connection = try Connection(port: system.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  // and never the end of the head
            #expect(connection.readUntilClosed() != nil, "still open after 30 s")
            // A client that is served and then idles is disconnected too.
            let idle = try Connection(port: system.port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = idle.readUntilClosed()
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func anOversizedHeadIsRefused() async throws {
        let system = try await GatewaySystem(workers: 0)
        do {
            let connection = try Connection(port: system.port)
            connection.send(
                "GET /v1/feed HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + String(repeating: "a", count: 200_000) + "\r\n\r\n")
            let answer = try #require(connection.readUntilClosed(), "still open after 30 s")
            // Refused by the HTTP parser before any handler runs: an error status, or the connection closed.
            #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 4"))
            // The gateway keeps serving.
            #expect(try await system.get("/healthz").status == 200)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
