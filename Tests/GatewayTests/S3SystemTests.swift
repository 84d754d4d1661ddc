import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedGateway
import WorkFeedModel
import WorkFeedS3
import WorkFeedTesting
import WorkFeedStore
import WorkFeedWire
import WorkFeedWorker
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole system with no shared directory at all: a coordinator, two workers and the gateway
/// all on `cache.directory = s3://…`, against a real S3-compatible server (moto) on loopback.
@Suite(.serialized, .enabled(if: MotoServer.isInstalled, Comment(rawValue: MotoServer.skipReason)))
struct S3SystemTests {
    let run = fixture("strava_run_2015_short_gpxtpx-hr.gpx")
    let ride = fixture("garmin-connect_ride_2020_short_ns3-hr.gpx")

    /// A server, a bucket on it, and credentials for it in a file (as an operator would give them).
    final class Bucket {
        let server: MotoServer
        let client: S3Client
        let name: String
        let credentialsFile: URL

        init() throws {
            server = try MotoServer()
            name = "wf-\(UUID().uuidString.prefix(8).lowercased())"
            client = try server.newBucket(name)
            credentialsFile = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-s3-\(UUID().uuidString)")
            try
                "[default]\naws_access_key_id=\(MotoServer.credentials.accessKeyID)\naws_secret_access_key=\(MotoServer.credentials.secretAccessKey)\n"
                .write(to: credentialsFile, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: credentialsFile) }

        var store: (location: String, s3: S3StoreSettings) {
            ("s3://\(name)/feed", S3StoreSettings(endpoint: server.endpoint, credentialsFile: credentialsFile.path))
        }

        /// Every object under the prefix.
        func objects() throws -> [String] { try client.list(prefix: "feed/") }
    }

    @Test func importDrawServeAndDeleteWithNoSharedDirectory() async throws {
        let bucket = try Bucket()
        let system = try await GatewaySystem(workers: 2, store: bucket.store)
        do {
            let uploaded = try await system.upload(run, as: "alice")
            #expect(uploaded.status == 201)
            let id = try #require(uploaded.uploaded["id"] as? String)
            #expect(try await system.upload(ride, as: "alice").status == 201)

            // Drawn into the bucket by a worker, served by the gateway from the bucket.
            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/dark?scale=1&wait=10", as: "alice")
            #expect(requested.status == 200)
            let url = try #require((requested.json["picture"] as? [String: Any])?["url"] as? String)
            let key = String(url.dropFirst("/v1/pictures/".count).dropLast(4))
            let png = try await system.get(url)
            #expect(png.status == 200 && png.header("Content-Type") == "image/png")
            let stored = try #require(try bucket.client.get("feed/" + CacheLayout.relativePath(forKey: key)!))
            #expect(Array(png.body) == stored.bytes)
            #expect(PNGText.value(of: CacheLayout.keyTextKeyword, in: stored.bytes) == key)
            let objects = try bucket.objects()
            #expect(objects.contains { $0.hasPrefix("feed/route/") } && objects.contains { $0.hasPrefix("feed/keys/") })
            // No directory was made anywhere for pictures, nor for the kept originals: they are in
            // the bucket beside the pictures (originals/), and ORIGINAL (what workctl reimport
            // reads) serves them from there.
            #expect(!FileManager.default.fileExists(atPath: system.directory.appendingPathComponent("cache").path))
            #expect(!FileManager.default.fileExists(atPath: system.directory.appendingPathComponent("originals").path))
            let kept = try bucket.client.list(prefix: "originals/")
            #expect(kept.count == 2, "\(kept)")
            let workoutID = try #require(WorkoutID(id))
            let original = try Self.original(workoutID, system)
            let sha = original.reply.file.sha256
            let object = "originals/\(sha.prefix(2))/\(sha).gz"
            #expect(try bucket.client.get(object)?.bytes == original.bytes)

            // Deleted with its workout: its objects go, by-content ones too.
            let workoutObjects = objects.filter { $0.contains(id.lowercased()) }
            #expect(!workoutObjects.isEmpty)
            let deleted = try await system.call("DELETE", "/v1/workouts/\(id)", token: system.token("alice"))
            #expect(deleted.status == 204 || deleted.status == 200)
            let after = try bucket.objects()
            #expect(workoutObjects.allSatisfy { !after.contains($0) }, "left: \(workoutObjects.filter(after.contains))")
            #expect(!after.contains("feed/" + CacheLayout.relativePath(forKey: key)!))
            // Its original too (no other workout came from that file); the ride's stays.
            #expect(try bucket.client.list(prefix: "originals/") == kept.filter { $0 != object })
            #expect(try await system.get(url).status == 404)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func withRedirectTheGatewaySendsTheAppToTheBucket() async throws {
        let bucket = try Bucket()
        let system = try await GatewaySystem(store: bucket.store) { $0.picturesRedirect = true }
        do {
            let id = try #require(try await system.upload(run, as: "alice").uploaded["id"] as? String)
            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
            let url = try #require((requested.json["picture"] as? [String: Any])?["url"] as? String)
            let key = String(url.dropFirst("/v1/pictures/".count).dropLast(4))
            let (status, location) = try Self.headWithoutFollowing(URL(string: system.base + url)!)
            #expect(status == 302)
            #expect(location == "\(bucket.server.endpoint)/\(bucket.name)/feed/" + CacheLayout.relativePath(forKey: key)!)
            // What the bucket holds there is the picture (read signed: moto's bucket is private).
            let fetched = try #require(try bucket.client.get("feed/" + CacheLayout.relativePath(forKey: key)!))
            #expect(PNGText.value(of: CacheLayout.keyTextKeyword, in: fetched.bytes) == key)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 7: with `pictures.redirect` the feed page lets images come from the bucket's
    /// origin (its policy was `img-src 'self' data:`, which blocked every redirected picture), and
    /// a key the index no longer calls current is not redirected, whatever the bucket holds: a
    /// picture withdrawn by a privacy zone answers 410 and one of a deleted workout 404 (both were
    /// 302 to an object the bucket may still have).
    @Test func withRedirectThePageAllowsTheBucketAndGoneKeysAreNotRedirected() async throws {
        let bucket = try Bucket()
        let system = try await GatewaySystem(store: bucket.store) { $0.picturesRedirect = true }
        do {
            let page = try await system.get("/")
            let policy = try #require(page.header("Content-Security-Policy"))
            let images = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("img-src ") }
            #expect(images == "img-src 'self' data: \(bucket.server.endpoint)", "\(policy)")

            func pictureURL(_ id: String) async throws -> String {
                let requested = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
                return try #require((requested.json["picture"] as? [String: Any])?["url"] as? String, "\(requested.json)")
            }
            func head(_ url: String) throws -> (Int, String?) { try Self.headWithoutFollowing(URL(string: system.base + url)!) }
            // Current: redirected.
            let run = try #require(try await system.upload(self.run, as: "alice").uploaded["id"] as? String)
            let ride = try #require(try await system.upload(self.ride, as: "alice").uploaded["id"] as? String)
            let runURL = try await pictureURL(run)
            let rideURL = try await pictureURL(ride)
            #expect(try head(runURL).0 == 302 && head(rideURL).0 == 302)

            // A zone over the run's start withdraws its picture: 410, not a redirect.
            let start = ZonesTests.start
            let zone = try await system.call(
                "POST", "/v1/zones", token: system.token("alice"), headers: ["Content-Type": "application/json"],
                body: Data(#"{"latitude": \#(start.latitude), "longitude": \#(start.longitude), "radius": 300}"#.utf8))
            #expect(zone.status == 201)
            var withdrawn = (0, String?.none)
            for _ in 0..<40 {
                withdrawn = try head(runURL)
                if withdrawn.0 == 410 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(withdrawn.0 == 410 && withdrawn.1 == nil, "\(withdrawn)")
            #expect(try await system.get(runURL).json["type"] as? String == "urn:workfeed:problem:withdrawn")

            // A deleted workout's picture: 404, not a redirect.
            #expect(try await system.call("DELETE", "/v1/workouts/\(ride)", token: system.token("alice")).status == 204)
            let deleted = try head(rideURL)
            #expect(deleted.0 == 404 && deleted.1 == nil, "\(deleted)")
            // A key nobody ever had: 404.
            #expect(try head("/v1/pictures/\(String(repeating: "ab", count: 32)).png").0 == 404)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// The server killed while a bulk render runs and started again (moto keeps nothing: the bucket
    /// is made again, as an operator restoring a store would): every picture ends generated, none
    /// failed, and every object in the bucket is a whole picture under its own key.
    @Test func theStoreKilledDuringABulkRenderAndStartedAgain() async throws {
        let bucket = try Bucket()
        let system = try await GatewaySystem(
            workers: 2, store: bucket.store,
            adjustCoordinator: {
                $0.environmentInitialBackoffSeconds = 0.2
                $0.environmentMaximumBackoffSeconds = 1
            },
            adjustWorker: {
                $0.reconnectInitialMilliseconds = 50
                $0.reconnectMaximumMilliseconds = 300
            })
        do {
            for file in [run, ride, fixture("apple-watch_run_2025_3seg_partial-hr.gpx")] {
                #expect(try await system.upload(file, as: "alice").status == 201)
            }
            var client = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 10_000)
            let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]))
            bucket.server.stop(kill: true)
            try await Task.sleep(for: .milliseconds(800))
            try bucket.server.start()
            _ = try bucket.server.newBucket(bucket.name)

            var status: StatusReply = try client.request(.status, [String: String]())
            for _ in 0..<300 where status.counts.contains(where: { $0.status == .pending && $0.count > 0 }) {
                try await Task.sleep(for: .milliseconds(100))
                status = try client.request(.status, [String: String]())
            }
            let pending = status.counts.filter { $0.status == .pending }.reduce(0) { $0 + $1.count }
            let generated = status.counts.filter { $0.status == .generated }.reduce(0) { $0 + $1.count }
            #expect(pending == 0 && generated > 0, "\(status.counts)")
            // Heatmaps of workouts without heart rate fail for that reason; nothing failed because of the store.
            let failures: FailedReply = try client.request(.failed, FailedRequest(limit: 100, group: true))
            #expect(failures.groups.allSatisfy { !FailureCode(rawValue: $0.code).isCacheFailure }, "\(failures.groups)")

            for object in try bucket.objects() where object.hasSuffix(".png") {
                let bytes = try #require(try bucket.client.get(object)).bytes
                #expect(bytes.starts(with: PNGText.signature) && bytes.suffix(8) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], "\(object)")
                if object.hasPrefix("feed/keys/") {
                    let name = String(object.split(separator: "/").last!.dropLast(4))
                    #expect(PNGText.value(of: CacheLayout.keyTextKeyword, in: bytes) == name)
                }
            }
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Credentials that stop working mid-run (moto with its authentication on, the system's access
    /// key deleted through moto's IAM): the workers say so clearly (the bucket, the endpoint, S3's
    /// 403 and its code) and pause; the jobs wait, none counted failed; once the credentials file
    /// is rewritten with a new key, every job finishes, without a restart.
    @Test func credentialsThatStopWorkingMidRunMakeTheJobsWait() async throws {
        let server = try MotoServer()
        let admin = try server.enforceCredentials()
        let service = try server.createAccessKey(signedWith: admin)
        let name = "wf-keys-\(UUID().uuidString.prefix(8).lowercased())"
        try S3Client(S3Configuration(bucket: name, endpoint: server.endpoint, pathStyle: true, credentials: .fixed(admin))).createBucket()
        let credentialsFile = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: credentialsFile) }
        func use(_ credentials: S3Credentials) throws {
            try "[default]\naws_access_key_id=\(credentials.accessKeyID)\naws_secret_access_key=\(credentials.secretAccessKey)\n"
                .write(to: credentialsFile, atomically: true, encoding: .utf8)
        }
        try use(service)
        let lines = LogLines()
        var logger = Logger(label: "s3-keys") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .info
        let system = try await GatewaySystem(
            workers: 2, store: ("s3://\(name)/feed", S3StoreSettings(endpoint: server.endpoint, credentialsFile: credentialsFile.path)),
            adjustCoordinator: {
                $0.environmentInitialBackoffSeconds = 0.2
                $0.environmentMaximumBackoffSeconds = 1
            },
            adjustWorker: {
                $0.reconnectInitialMilliseconds = 50
                $0.reconnectMaximumMilliseconds = 500
            }, logger: logger)
        do {
            for file in [run, ride, fixture("apple-watch_run_2025_3seg_partial-hr.gpx")] {
                #expect(try await system.upload(file, as: "alice").status == 201)
            }
            var client = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 10_000)
            // Let the uploads' own pictures finish, then take the key away and ask for many more.
            for _ in 0..<100 {
                guard try Self.counts(&client).pending > 0 else { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try server.deleteAccessKey(service, signedWith: admin)
            let _: EnqueueReply = try client.request(
                .enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1, 2]))
            for _ in 0..<50 where !lines.all.contains(where: { $0.contains("taking no jobs") }) { try await Task.sleep(for: .milliseconds(100)) }
            try await Task.sleep(for: .seconds(2))
            let waiting = try Self.counts(&client)
            #expect(waiting.pending > 0, "the jobs did not wait: \(waiting)")
            let said = lines.all.first { $0.contains("taking no jobs") } ?? ""
            #expect(said.contains(name) && said.contains(server.endpoint) && said.contains("HTTP 403"), "\(said)")
            #expect(said.contains("InvalidAccessKeyId") || said.contains("SignatureDoesNotMatch"), "\(said)")
            var failures: FailedReply = try client.request(.failed, FailedRequest(limit: 100, group: true))
            #expect(failures.groups.allSatisfy { !FailureCode(rawValue: $0.code).isCacheFailure }, "\(failures.groups)")

            // A new key in the credentials file: read again on the next refusal, and the jobs finish.
            try use(try server.createAccessKey(signedWith: admin))
            var done = try Self.counts(&client)
            for _ in 0..<300 where done.pending > 0 {
                try await Task.sleep(for: .milliseconds(100))
                done = try Self.counts(&client)
            }
            #expect(done.pending == 0 && done.generated > waiting.generated, "\(done)")
            failures = try client.request(.failed, FailedRequest(limit: 100, group: true))
            #expect(failures.groups.allSatisfy { !FailureCode(rawValue: $0.code).isCacheFailure }, "\(failures.groups)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Pending (leased included) and generated jobs.
    static func counts(_ client: inout ControlClient) throws -> (pending: Int, generated: Int) {
        let status: StatusReply = try client.request(.status, [String: String]())
        let of = { (wanted: JobStatus) in status.counts.filter { $0.status == wanted }.reduce(0) { $0 + $1.count } }
        return (of(.pending), of(.generated))
    }

    /// A missing bucket stops every part at start with 73, naming the bucket and the endpoint.
    @Test func aMissingBucketStopsEveryPartAtStart() async throws {
        let server = try MotoServer.shared.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-s3-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let credentials = directory.appendingPathComponent("credentials")
        try "[default]\naws_access_key_id=a\naws_secret_access_key=b\n".write(to: credentials, atomically: true, encoding: .utf8)
        let settings = S3StoreSettings(endpoint: server.endpoint, credentialsFile: credentials.path)
        let logger = Logger(label: "test")

        var worker = WorkerConfiguration()
        worker.cacheDirectory = "s3://no-such-bucket-wf/x"
        worker.s3Store = settings
        do {
            try Worker(configuration: worker, context: ZMQContext(), logger: logger).start()
            Issue.record("a worker started without its bucket")
        } catch {
            #expect(error.exitCode == 73)
            #expect("\(error)".contains("no-such-bucket-wf") && "\(error)".contains(server.endpoint) && "\(error)".contains("404"), "\(error)")
        }

        var coordinator = CoordinatorConfiguration()
        coordinator.indexPath = directory.appendingPathComponent("index.sqlite").path
        coordinator.cacheDirectory = worker.cacheDirectory
        coordinator.s3Store = settings
        coordinator.metricsListen = ""
        for key in [\CoordinatorConfiguration.workerEndpoint, \.controlEndpoint, \.eventsEndpoint] { coordinator[keyPath: key] = "tcp://127.0.0.1:*" }
        do {
            _ = try Coordinator(configuration: coordinator, context: ZMQContext(), logger: logger).start()
            Issue.record("a coordinator started without its bucket")
        } catch {
            #expect(error.code == .store && error.exitCode == 73)
            #expect("\(error)".contains("no-such-bucket-wf") && "\(error)".contains(server.endpoint), "\(error)")
        }

        var gateway = GatewayConfiguration()
        gateway.cacheDirectory = worker.cacheDirectory
        gateway.s3Store = settings
        gateway.tokenSecret = "a test secret of at least thirty-two bytes"
        do {
            _ = try Gateway(configuration: gateway, context: ZMQContext(), logger: logger)
            Issue.record("a gateway started without its bucket")
        } catch {
            #expect((error as? GatewayError)?.exitCode == 73)
            #expect("\(error)".contains("no-such-bucket-wf"), "\(error)")
        }
    }

    /// Issue 37, item 9: an object planted under a picture's name that is larger than any picture
    /// this system draws (the head of a picture with its key, then padding: before, read whole and
    /// served 200) is refused by its size without being buffered: 404, counted as `too-large`,
    /// logged naming the object. One of exactly the largest size is still served. Both are planted
    /// in place of drawn pictures: the store is read only for keys the index calls current.
    @Test func anObjectLargerThanAnyPictureIsRefusedNotServed() async throws {
        let bucket = try Bucket()
        let lines = LogLines()
        var logger = Logger(label: "s3-large") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .info
        let system = try await GatewaySystem(workers: 1, store: bucket.store, logger: logger)
        do {
            let drawn = try await system.drawnKeys(2)
            func plant(_ key: String, bytes count: Int) throws {
                let head = Self.pictureHead(key: key)
                try bucket.client.put(
                    "feed/" + CacheLayout.relativePath(forKey: key)!, head + [UInt8](repeating: 0x41, count: count - head.count),
                    contentType: "image/png")
            }
            let largest = drawn[0]
            try plant(largest, bytes: StoredPicture.maximumBytes)
            let served = try await system.get("/v1/pictures/\(largest).png")
            #expect(served.status == 200 && served.body.count == StoredPicture.maximumBytes)

            let planted = drawn[1]
            try plant(planted, bytes: StoredPicture.maximumBytes + 1)
            let refused = try await system.get("/v1/pictures/\(planted).png")
            #expect(refused.status == 404, "\(refused.status), \(refused.body.count) bytes")
            #expect(refused.body.count < 1000)
            let metrics = String(decoding: try await system.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"workfeed_gateway_pictures_refused_total{reason="too-large"} 1"#), "\(metrics)")
            let said = lines.all.filter { $0.contains("not that picture") && $0.contains(planted) }
            #expect(said.count == 1 && said[0].contains("too-large"), "\(lines.all)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 9: a bucket that throttles (every request answered `503 SlowDown`), then one
    /// that does not answer at all, turns picture reads into 503 with `Retry-After` (nothing is
    /// wrong with the request: it was 500), counted, and one log line a second with the count of
    /// those it stands for, not one per request.
    @Test func aBucketThatFailsAnswers503AndLogsOnceASecond() async throws {
        let bucket = try Bucket()
        let lines = LogLines()
        var logger = Logger(label: "s3-down") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .info
        let system = try await GatewaySystem(store: bucket.store, logger: logger)
        do {
            let id = try #require(try await system.upload(run, as: "alice").uploaded["id"] as? String)
            let requested = try await system.get("/v1/workouts/\(id)/pictures/route/light?scale=1&wait=10", as: "alice")
            let url = try #require((requested.json["picture"] as? [String: Any])?["url"] as? String)
            bucket.server.stop(kill: true)
            let slowDown = try FaultyS3Server(port: bucket.server.port)
            defer { slowDown.stop() }

            let started = ContinuousClock.now
            let count = 40
            var statuses: [Int: Int] = [:]
            var retryAfter = Set<String>()
            for _ in 0..<count {
                let reply = try await system.get(url)
                statuses[reply.status, default: 0] += 1
                retryAfter.insert(reply.header("Retry-After") ?? "none")
                if reply.status == 503 { #expect(reply.json["type"] as? String == "urn:workfeed:problem:store-unavailable") }
            }
            let elapsed = ContinuousClock.now - started
            #expect(statuses == [503: count], "\(statuses)")
            #expect(retryAfter == ["2"])
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await system.get(url).status == 503)
            #expect(slowDown.answered >= count + 1)  // the worker and the coordinator ask it too
            // No answer at all (nothing listens): 503 too, once the connection attempts give up.
            slowDown.stop()
            try await Task.sleep(for: .milliseconds(1100))
            let refused = try await system.get(url)
            #expect(refused.status == 503 && refused.header("Retry-After") == "2")

            let said = lines.all.filter { $0.contains("picture store cannot be read") }
            let seconds = Int(elapsed / .seconds(1)) + 1
            // One line in each second of the burst, one for the failure after it, one for the last.
            #expect(said.count >= 3 && said.count <= seconds + 2, "\(said.count) lines for \(count + 2) failures, a burst of \(count) in \(elapsed)")
            // Every failure is in a line or in a line's count.
            let suppressed = said.compactMap { line in
                line.range(of: "\"suppressed\": ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
            }
            #expect(said.count + suppressed.reduce(0, +) == count + 2, "\(said)")
            #expect(said.allSatisfy { $0.contains("unavailable") }, "\(said)")
            #expect(said.first?.contains("SlowDown") == true, "\(said)")
            let metrics = String(decoding: try await system.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("workfeed_gateway_picture_store_unavailable_total \(count + 2)"), "\(metrics)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// The start of a PNG as workers write it: signature, `IHDR`, the key's `tEXt` chunk (CRCs are
    /// not checked by readers).
    static func pictureHead(key: String) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + Array(type.utf8) + data
                + [0, 0, 0, 0]
        }
        return PNGText.signature + chunk("IHDR", [UInt8](repeating: 0, count: 13))
            + chunk("tEXt", Array(CacheLayout.keyTextKeyword.utf8) + [0] + Array(key.utf8))
    }

    /// ORIGINAL: the reply and the kept original's bytes, through a client closed before it returns.
    static func original(_ id: WorkoutID, _ system: GatewaySystem) throws -> (reply: OriginalReply, bytes: [UInt8]) {
        var client = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 10_000)
        let (body, attachments) = try client.requestWithAttachments(.original, OriginalRequest(id: id))
        return (try ControlCodec.decode(OriginalReply.self, from: body), try #require(attachments.first))
    }

    /// A HEAD that does not follow redirects: the status and the Location.
    static func headWithoutFollowing(_ url: URL) throws -> (Int, String?) {
        final class Refuse: NSObject, URLSessionTaskDelegate {
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
            ) { completionHandler(nil) }
        }
        let session = URLSession(configuration: .ephemeral, delegate: Refuse(), delegateQueue: nil)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, String?) = (0, nil)
        session.dataTask(with: url) { _, response, _ in
            let http = response as? HTTPURLResponse
            result = (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Location"))
            done.signal()
        }.resume()
        done.wait()
        return result
    }
}
