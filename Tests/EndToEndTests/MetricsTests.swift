import Foundation
import Prometheus
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedImport
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire
import WorkFeedWorker

#if canImport(Glibc)
import Glibc
#endif

/// GETs a URL of the form http://127.0.0.1:PORT/PATH over a plain socket.
func httpGet(_ url: String) throws -> (status: Int, body: String) {
    let rest = url.dropFirst("http://".count)
    let hostPort = rest.prefix { $0 != "/" }
    let path = String(rest.dropFirst(hostPort.count))
    let port = UInt16(hostPort.split(separator: ":")[1])!
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response += buffer[..<count]
    }
    let text = String(decoding: response, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}

/// A TCP connection to 127.0.0.1:`port`.
func connectLoopback(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot connect to 127.0.0.1:\(port)"])
    }
    return fd
}

/// The value of a sample line in Prometheus text format, e.g. `workfeed_jobs{kind="route",...} 3`.
func sample(_ body: String, _ name: String, labels: [String: String] = [:]) -> Double? {
    for line in body.split(separator: "\n") where line.hasPrefix(name) && !line.hasPrefix("#") {
        // The value follows the last space; label values may hold spaces.
        guard let space = line.lastIndex(of: " ") else { continue }
        let series = line[..<space]
        guard series == name || series.hasPrefix(name + "{") else { continue }
        if labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) {
            return Double(line[line.index(after: space)...])
        }
    }
    return nil
}

/// Scrapes `url` until `done` holds for what it serves (10 s at most) and returns the last scrape.
func scrape(_ url: String, until done: (String) -> Bool) throws -> String {
    var body = ""
    for _ in 0..<100 {
        body = try httpGet(url).body
        if done(body) { break }
        Thread.sleep(forTimeInterval: 0.1)
    }
    return body
}

@Suite(.serialized) struct MetricsTests {
    @Test func theCoordinatorsMetricsEndpointIsScrapedAndParsed() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        let url = try #require(system.endpoints.metrics)
        var client = try system.client()
        _ = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        _ = try importFixture("runkeeper_hr-on-waypoint.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]))
        let body = try scrape(url) { body in
            sample(body, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "generated"]) == 1
                && sample(body, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "failed-no-retry"]) == 1
        }
        #expect(sample(body, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "generated"]) == 1)
        #expect(sample(body, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "failed-no-retry"]) == 1)
        #expect(sample(body, "workfeed_workers_connected") == 2)
        #expect(sample(body, "workfeed_render_duration_seconds_count", labels: ["kind": "route"]) == 1)
        #expect(sample(body, "workfeed_render_duration_seconds_count", labels: ["kind": "heatmap"]) == 0)
        #expect(sample(body, "workfeed_worker_slots") == 4, "two workers of one render thread and one job ahead")
        #expect(sample(body, "workfeed_worker_slots_busy") == 0)
        #expect(sample(body, "workfeed_failures_total", labels: ["code": "no-route"]) == 1)
        #expect(sample(body, "workfeed_job_results_total", labels: ["kind": "route", "status": "generated"]) == 1)
        #expect(body.contains("# TYPE workfeed_jobs gauge"))
        #expect(try httpGet(url.replacingOccurrences(of: "/metrics", with: "/other")).status == 404)
    }

    /// A gauge whose jobs drain reads 0 on the next scrape, and every label set of kind, theme
    /// and status is there from the start: an alert on pending jobs clears (issue 15).
    @Test func gaugesReadZeroAfterTheQueueDrains() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let url = try #require(system.endpoints.metrics)
        var client = try system.client()
        _ = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]))
        let pending = ["kind": "route", "theme": "light", "status": "pending"]
        let waiting = try httpGet(url).body
        #expect(sample(waiting, "workfeed_jobs", labels: pending) == 1)
        #expect(sample(waiting, "workfeed_jobs", labels: ["kind": "heatmap", "theme": "dark", "status": "failed-no-retry"]) == 0)

        let worker = try system.startWorker(name: "drainer")
        defer { worker.stop() }
        let body = try scrape(url) { sample($0, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "generated"]) == 1 }
        #expect(sample(body, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "generated"]) == 1)
        #expect(sample(body, "workfeed_jobs", labels: pending) == 0, "the drained pending gauge reads 0")
    }

    /// The oldest pending job's age grows while nothing can take it, and reads 0 once it is
    /// generated; the slots follow the workers that come (issue 15).
    @Test func oldestPendingAgeAndWorkerSlots() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let url = try #require(system.endpoints.metrics)
        var client = try system.client()
        #expect(sample(try httpGet(url).body, "workfeed_oldest_pending_age_seconds") == 0, "nothing pending: 0, not absent")
        _ = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]))
        Thread.sleep(forTimeInterval: 1.2)
        let waiting = try httpGet(url).body
        let age = try #require(sample(waiting, "workfeed_oldest_pending_age_seconds"))
        #expect(age >= 1 && age < 60, "age \(age) s")
        #expect(sample(waiting, "workfeed_workers_connected") == 0)
        #expect(sample(waiting, "workfeed_worker_slots") == 0)

        let worker = try system.startWorker(name: "three-slots") { $0.renderThreads = 3 }
        defer { worker.stop() }
        let body = try scrape(url) { sample($0, "workfeed_jobs", labels: ["kind": "route", "theme": "light", "status": "generated"]) == 1 }
        #expect(sample(body, "workfeed_oldest_pending_age_seconds") == 0, "the drained queue's oldest age reads 0")
        #expect(sample(body, "workfeed_workers_connected") == 1)
        #expect(sample(body, "workfeed_worker_slots") == 4, "three render threads and one job ahead")
        #expect(sample(body, "workfeed_worker_slots_busy") == 0)
    }

    /// IMPORTs are counted by result and DELETEs by workout, each once it has committed; every
    /// result reads 0 before anything happened.
    @Test func importsAndDeletesAreCounted() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let url = try #require(system.endpoints.metrics)
        let before = try httpGet(url).body
        for result in ImportResult.allCases {
            #expect(sample(before, "workfeed_imports_total", labels: ["result": result.rawValue]) == 0, "\(result.rawValue)")
        }
        #expect(sample(before, "workfeed_deletes_total") == 0)

        var client = try system.client()
        let first = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        _ = try importFixture("garmin-connect_ride_2020_short_ns3-hr.gpx", into: &client)
        _ = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: [first]))
        // A request the coordinator refuses (no series attached) counts nothing.
        let workout = try #require(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: fixture("strava_run_2015_short_gpxtpx-hr.gpx"))).first)
        #expect(throws: ControlClientError.self) {
            let _: ImportReply = try client.request(.importWorkout, ImportRequest(workout), attachments: [])
        }

        let after = try httpGet(url).body
        #expect(sample(after, "workfeed_imports_total", labels: ["result": "imported"]) == 2)
        #expect(sample(after, "workfeed_imports_total", labels: ["result": "unchanged"]) == 1)
        #expect(sample(after, "workfeed_imports_total", labels: ["result": "duplicate"]) == 0)
        #expect(sample(after, "workfeed_deletes_total") == 1)
    }

    /// Both registries say which release runs, and the render histogram has one series per kind.
    @Test func buildInfoOnCoordinatorAndWorker() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let worker = try system.startWorker(name: "scraped") { $0.metricsListen = "127.0.0.1:0" }
        defer { worker.stop() }
        let labels = ["version": BuildInfo.version, "build": BuildInfo.configuration, "renderer": "\(BuildInfo.rendererVersion)"]
        let coordinator = try httpGet(try #require(system.endpoints.metrics)).body
        #expect(sample(coordinator, "workfeed_build_info", labels: labels) == 1)
        #expect(coordinator.contains("# TYPE workfeed_build_info gauge"))
        for kind in JobKind.allCases {
            #expect(sample(coordinator, "workfeed_render_duration_seconds_count", labels: ["kind": kind.rawValue]) == 0)
        }
        let workerBody = try httpGet(try #require(worker.metricsURL)).body
        #expect(sample(workerBody, "workfeed_build_info", labels: labels) == 1)
    }

    /// A failure code this version does not know (a newer worker's) is counted as `other`: no
    /// value a worker sends adds a series, and a reason is never a label.
    @Test func failureCodesStayBounded() {
        let metrics = CoordinatorMetrics()
        metrics.failed(code: .noRoute)
        metrics.failed(code: FailureCode("made-up-by-a-newer-worker"))
        metrics.failed(code: FailureCode("cache write failed: /srv/cache/ab/cd.png: No space left"))
        let body = metrics.registry.emitToString()
        #expect(sample(body, "workfeed_failures_total", labels: ["code": "no-route"]) == 1)
        #expect(sample(body, "workfeed_failures_total", labels: ["code": "other"]) == 2)
        #expect(!body.contains("made-up"))
        #expect(!body.contains("/srv/cache"))
        let codes = body.split(separator: "\n").filter { $0.hasPrefix("workfeed_failures_total{") }
        #expect(codes.count == FailureCode.known.count + 1, "one series per known code and other")
        #expect(Set(FailureCode.known).count == FailureCode.known.count)
        #expect(FailureCode.known.allSatisfy { FailureCode.isWellFormed($0.rawValue) })
    }

    /// The render threads report the shared tile cache's counts since start in any order: the
    /// counters add what is new and never go back.
    @Test func tileCacheCountersNeverGoBack() {
        let metrics = WorkerMetrics()
        metrics.tileCache(residentBytes: 100, residentTiles: 2, hits: 5, misses: 2, evictions: 0, broken: 0)
        metrics.tileCache(residentBytes: 90, residentTiles: 2, hits: 3, misses: 1, evictions: 0, broken: 0)
        metrics.tileCache(residentBytes: 120, residentTiles: 3, hits: 7, misses: 3, evictions: 1, broken: 1, unavailable: 2)
        metrics.tileCache(residentBytes: 120, residentTiles: 3, hits: 7, misses: 3, evictions: 1, broken: 1, unavailable: 1)
        let body = metrics.registry.emitToString()
        #expect(sample(body, "workfeed_worker_tile_cache_hits_total") == 7)
        #expect(sample(body, "workfeed_worker_tile_cache_misses_total") == 3)
        #expect(sample(body, "workfeed_worker_tile_cache_evictions_total") == 1)
        #expect(sample(body, "workfeed_worker_map_tiles_broken_total") == 1)
        #expect(sample(body, "workfeed_worker_map_tiles_unavailable_total") == 2)
        #expect(sample(body, "workfeed_worker_tile_cache_bytes") == 120)
        #expect(body.contains("# TYPE workfeed_worker_tile_cache_hits_total counter"))
    }

    /// Issue 13, finding 6: one slow client blocked /metrics for everyone. Now a client that sends
    /// half a request and waits is still waiting, unanswered, when another client's scrape is
    /// answered.
    @Test func aSlowClientDoesNotHoldUpAnotherClientsScrape() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let url = try #require(system.endpoints.metrics)
        let port = UInt16(url.split(separator: ":")[2].prefix { $0.isNumber })!
        var slow: [Int32] = []
        defer { for fd in slow { close(fd) } }
        for _ in 0..<8 {
            let fd = try connectLoopback(port: port)
            _ = Array("GET /met".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            slow.append(fd)
        }
        let scrape = try httpGet(url)
        #expect(scrape.status == 200)
        #expect(scrape.body.contains("workfeed_"))
        // The slow clients have had no answer and are still connected: they did not go first.
        for fd in slow {
            var byte: UInt8 = 0
            let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
            #expect(count < 0 && errno == EAGAIN, "a slow client was answered or dropped before the scrape")
        }
    }
}
