import Foundation
import Testing
import WorkFeedConfig

#if canImport(Glibc)
import Glibc
#endif

/// Request heads are bounded and slow clients are timed out: raw TCP against the running gateway.
@Suite(.serialized) struct LimitsTests {
    /// A TCP connection to 127.0.0.1:`port` with a receive timeout.
    final class Connection: @unchecked Sendable {
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

        func send(_ text: String) { send(bytes: Array(text.utf8)) }

        /// Sends `bytes`; whether all of them went (the server did not close or reset meanwhile).
        @discardableResult
        func send(bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }

        /// Everything the server sends until it closes the connection; `nil` if it is still open
        /// when the receive timeout passes.
        /// ``readUntilClosed()`` on a thread of its own: the gateway under test answers on Swift's
        /// cooperative pool (two threads here), which a test blocked in `recv` must not hold while
        /// other suites run beside it.
        func readUntilClosedOffThePool() async -> String? {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: self.readUntilClosed()) }
            }
        }

        /// ``send(bytes:)`` on a thread of its own (``readUntilClosedOffThePool()``).
        func sendOffThePool(bytes: [UInt8]) async -> Bool {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: self.send(bytes: bytes)) }
            }
        }

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
            #expect(await connection.readUntilClosedOffThePool() != nil, "still open after 30 s")
            // A client that is served and then idles is disconnected too.
            let idle = try Connection(port: system.port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = await idle.readUntilClosedOffThePool()
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
            let answer = try #require(await connection.readUntilClosedOffThePool(), "still open after 30 s")
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

    /// An upload past the owner's uploads a minute is answered 429 with its body read and dropped:
    /// a client still sending a body of some size reads the answer. Before, the 429 went out and
    /// the connection closed with the body unread, and the client's read met a reset (a trial's
    /// client saw "broken pipe" for every file past the 30th).
    @Test func anUploadPastTheMinutesBoundReadsItsAnswer() async throws {
        let system = try await GatewaySystem(workers: 0) { $0.uploadsPerOwnerPerMinute = 1 }
        do {
            let alice = system.token("alice")
            #expect(try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice").status == 201)
            // A 12 MB body (under uploads.max_bytes), more than the sockets' buffers hold.
            let body = [UInt8](repeating: 0x20, count: 12 << 20)
            let connection = try Connection(port: system.port, timeoutSeconds: 10)
            connection.send(
                "POST /v1/workouts?filename=big.gpx HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(alice)\r\n"
                    + "Content-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n")
            let sentAll = await connection.sendOffThePool(bytes: body)
            #expect(sentAll, "the gateway closed the connection before the body was sent")
            let answer = await connection.readUntilClosedOffThePool() ?? ""
            #expect(answer.hasPrefix("HTTP/1.1 429") && answer.contains("too-many-uploads"), "\(answer.prefix(300))")
            #expect(answer.lowercased().contains("retry-after:"))
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 3: one owner's uploads received at once are bounded (two): a third, while
    /// two of the owner's bodies are still arriving, is answered 429 `too-many-uploads` with
    /// `Retry-After` (its body read and dropped, so the client gets the answer, not a reset),
    /// another owner's upload goes ahead meanwhile, and once the two end the owner uploads again.
    /// Before, every upload's body was taken in, however many were arriving.
    @Test func anOwnersUploadsAtOnceAreBoundedAndOthersGoAhead() async throws {
        // The uploads a minute out of the way: every try of the third counts against them, and
        // under load the held two may reach the handler only after many tries.
        let system = try await GatewaySystem(workers: 0) { $0.uploadsPerOwnerPerMinute = 10_000 }
        do {
            let file = try Data(contentsOf: URL(fileURLWithPath: fixture("strava_run_2015_short_gpxtpx-hr.gpx")))
            let alice = system.token("alice")
            // Two uploads of alice's whose bodies are half sent. Under a loaded cooperative pool
            // (the gateway's suites run side by side on two cores) the two were seen, once in
            // about seven runs, not to reach the handler for seconds: the scene is set again, up
            // to three times, before its answer is judged.
            var held: [Connection] = []
            var third = GatewaySystem.Reply(status: 0, headers: [:], body: Data())
            for _ in 0..<3 where third.status != 429 {
                for connection in held {
                    _ = await connection.sendOffThePool(bytes: Array(file.suffix(file.count - file.count / 2)))
                    _ = await connection.readUntilClosedOffThePool()
                }
                held = try (0..<2).map { _ in try Connection(port: system.port, timeoutSeconds: 5) }
                for connection in held {
                    connection.send(
                        "POST /v1/workouts?filename=run.gpx HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(alice)\r\n"
                            + "Content-Type: application/octet-stream\r\nContent-Length: \(file.count)\r\n\r\n")
                    connection.send(bytes: Array(file.prefix(file.count / 2)))
                }
                for _ in 0..<40 where third.status != 429 {
                    // The held ones may not have reached the handler yet.
                    try await Task.sleep(for: .milliseconds(50))
                    third = try await system.call(
                        "POST", "/v1/workouts?filename=run.gpx", token: alice, headers: ["Content-Type": "application/octet-stream"], body: file)
                }
            }
            #expect(third.status == 429 && third.json["type"] as? String == "urn:workfeed:problem:too-many-uploads", "\(third.status) \(third.json)")
            #expect(third.header("Retry-After") == "1" && (third.json["detail"] as? String)?.contains("2 uploads at once") == true)
            // Bob is not held up by alice.
            #expect(try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "bob").status == 201)
            // Alice's two finish; then she uploads again.
            for connection in held {
                _ = await connection.sendOffThePool(bytes: Array(file.suffix(file.count - file.count / 2)))
                #expect(await connection.readUntilClosedOffThePool()?.hasPrefix("HTTP/1.1 20") == true)
            }
            let again = try await system.upload(fixture("garmin-connect_ride_2020_short_ns3-hr.gpx"), as: "alice")
            #expect(again.status == 201, "\(again.status) \(again.json)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
