import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Values at the limits of what a frame holds, sent by a client or a worker that may speak the
/// protocol: each is refused with an ERROR that names the field, and nothing is stored.
@Suite(.serialized) struct HostileValueTests {
    /// A route of two points, the second at `time` milliseconds since 1970, as a sender can write it.
    static func routeBytes(secondTime time: Int64) -> [UInt8] {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        var bytes = Array("WFR1".utf8) + le(UInt32(1)) + le(UInt32(2))
        for (index, milliseconds) in [Int64(1_700_000_000_000), time].enumerated() {
            bytes += le(Int32(52_000_0000 + index * 1000)) + le(Int32(4_000_0000)) + le(Int32(100)) + le(milliseconds)
        }
        return bytes
    }

    static func heartRateBytes(time: Int64) -> [UInt8] {
        Array("WFH1".utf8) + withUnsafeBytes(of: UInt32(1).littleEndian, Array.init) + withUnsafeBytes(of: time.littleEndian, Array.init) + [
            0xD0, 0x05,
        ]
    }

    static func body(_ sourceID: String, extra: String = "") -> [UInt8] {
        Array("{\"source\":\"gpx\",\"sourceID\":\"\(sourceID)\",\"activity\":\"running\",\"origin\":\"crafted.gpx\"\(extra)}".utf8)
    }

    /// Issue 13, finding 1: a point time of Int64.max ms crashed the coordinator (SIGILL in the
    /// series codec); 2^62 ms was stored as year 506713 and broke every FEED afterwards.
    @Test(arguments: [Int64.max, 1 << 62, -(1 << 62), Int64.min + 1])
    func anImportWithAnExtremePointTimeIsRefusedNamingTheField(time: Int64) throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        do {
            _ = try client.requestRaw(
                .importWorkout, body: Self.body("extreme"), attachments: [Self.routeBytes(secondTime: time), SeriesCodec.encode([HeartRateSample]())])
            Issue.record("IMPORT with a time of \(time) ms was accepted")
        } catch {
            #expect(error.fromCoordinator)
            #expect(error.description.contains("route segment 0 point 1 time"), "\(error)")
            #expect(error.description.contains("outside 1900-01-01T00:00:00Z ..< 2200-01-01T00:00:00Z"), "\(error)")
        }
        do {
            _ = try client.requestRaw(
                .importWorkout, body: Self.body("extreme-hr"),
                attachments: [Self.routeBytes(secondTime: 1_700_000_001_000), Self.heartRateBytes(time: time)])
            Issue.record("IMPORT with a heart-rate time of \(time) ms was accepted")
        } catch {
            #expect(error.description.contains("heart-rate sample 0 time"), "\(error)")
        }
        // Nothing was stored, and the feed still reads.
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        #expect(feed.items.isEmpty)
        let pong: [String: Bool] = try client.request(.ping, [String: String]())
        #expect(pong["pong"] == true)
    }

    @Test(arguments: [
        (",\"start\":\"1800-01-01T00:00:00Z\"", "start"), (",\"end\":\"2300-01-01T00:00:00Z\"", "end"),
        (",\"timeZoneOffset\":9223372036854775807", "timeZoneOffset"), (",\"name\":\"\(String(repeating: "n", count: 1025))\"", "name"),
    ])
    func bodyFieldsOutOfRangeAreRefusedByName(extra: String, field: String) throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        do {
            _ = try client.requestRaw(
                .importWorkout, body: Self.body("fields", extra: extra),
                attachments: [Self.routeBytes(secondTime: 1_700_000_001_000), SeriesCodec.encode([HeartRateSample]())])
            Issue.record("accepted \(extra)")
        } catch {
            #expect(error.description.contains("\(field):"), "\(error)")
        }
    }

    @Test func requestValuesOutOfRangeAreRefusedByName() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let cases: [(ControlCommand, String, String)] = [
            (.enqueue, #"{"kinds":["route"],"themes":["light"],"priority":9223372036854775807}"#, "priority"),
            (.enqueue, #"{"kinds":["route"],"themes":["light"],"since":"1066-10-14T09:00:00Z"}"#, "since"),
            (.enqueue, #"{"kinds":["route"],"themes":["light"],"scales":[0]}"#, "scales"),
            (.feed, #"{"limit":9223372036854775807}"#, "limit"),
            (.feed, #"{"limit":3,"cursor":"nan|x"}"#, "cursor"),
            (.changes, #"{"since":-1,"limit":10}"#, "since"),
            (.failed, #"{"limit":0,"group":true}"#, "limit"),
        ]
        for (command, body, field) in cases {
            do {
                _ = try client.requestRaw(command, body: Array(body.utf8))
                Issue.record("\(command.rawValue) \(body) was accepted")
            } catch {
                #expect(error.fromCoordinator && error.description.contains(field), "\(command.rawValue) \(body): \(error)")
            }
        }
        let ids = (0...ControlLimits.maximumDeleteIDs).map { _ in WorkoutID(UUID()) }
        #expect(throws: ControlClientError.self) { let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: ids)) }
    }

    /// A worker that holds a real lease reports `generated` with a key other than the job's: the
    /// picture is not recorded as generated, and the job is tried again.
    @Test func aGeneratedReportWithAnotherCacheKeyIsNotStored() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let id = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]))
        let forger = try FakeWorker(system, capacity: 1, name: "forger")
        guard case .job(let job) = try #require(try forger.next(within: 5)) else { Issue.record("expected a JOB"); return }
        let forged = String(repeating: "0", count: 64)
        try forger.socket.send(WorkerMessage.status(JobReport(lease: job.lease, outcome: .generated, detail: forged, renderMicroseconds: 1)).frames)
        var picture: PictureRecord?
        for _ in 0..<100 {
            let show: ShowReply = try client.request(.show, ShowRequest(id: id))
            picture = show.item.pictures.first
            if picture?.attempts == 1 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(picture?.status == .pending)
        #expect(picture?.cacheKey == nil)
        #expect(picture?.reason?.contains("the worker reported cache key 000") == true, "\(String(describing: picture))")
    }
}

@Suite struct ListenGuardTests {
    /// The coordinator checks its addresses itself, however its configuration was made.
    @Test func theCoordinatorRefusesTheBypassAtStartNamingIt() {
        var configuration = CoordinatorConfiguration()
        configuration.indexPath =
            FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-guard-\(UUID().uuidString)/index.sqlite").path
        configuration.controlEndpoint = "tcp://127.0.0.1:0;0.0.0.0:5555"
        let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: Logger(label: "guard"))
        do {
            _ = try coordinator.start()
            coordinator.stop()
            Issue.record("started on the bypass address")
        } catch {
            #expect(error.description.contains("listen.control"), "\(error)")
            #expect(error.description.contains("one HOST:PORT"), "\(error)")
        }
    }
}
