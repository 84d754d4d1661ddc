import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedImport
import WorkFeedModel
import WorkFeedPrivacy
import WorkFeedRender
import WorkFeedWire

/// Privacy zones through the real coordinator (docs/privacy.md): what a worker receives, which
/// pictures go stale, what is drawn. On a real recording: a run in Heidelberg with heart rate
/// (Garmin Forerunner 645M, 2019; Tests/Data/tracks-in-map/SOURCES.md).
@Suite(.serialized) struct PrivacyZoneTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/tracks-in-map/heidelberg")
    static let run = "runpandas_garmin-fr645m_run_2019_hr.fit"
    /// Another real recording (TomTom Runner 3, a ride): another owner's pictures with other keys.
    static let ride = "fitfiler_tomtom-runner3_ride_2021.fit"

    static func workout(_ name: String = run) throws -> ImportedWorkout {
        try #require(try WorkoutFileReader.read(contentsOf: folder.appendingPathComponent(name)).first)
    }

    /// The recording's first point: where a user would put a zone around home.
    static func start() throws -> RoutePoint { try #require(try workout().route.points.first) }

    static func importRun(into client: inout ControlClient, owner: String, file: String = run) throws -> WorkoutID {
        let workout = try workout(file)
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(workout, owner: owner),
            attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        return reply.id
    }

    /// Metres between two points on the sphere (haversine).
    static func metres(_ a: RoutePoint, _ b: RoutePoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians, dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }

    static func enqueueAll(_ client: inout ControlClient, owner: String) throws {
        var request = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark])
        request.owner = owner
        let _: EnqueueReply = try client.request(.enqueue, request)
    }

    /// The pictures of `id` once none is pending (or after 20 s).
    static func settled(_ client: inout ControlClient, _ id: WorkoutID) throws -> [PictureRecord] {
        var pictures: [PictureRecord] = []
        for _ in 0..<400 {
            let show: ShowReply = try client.request(.show, ShowRequest(id: id))
            pictures = show.item.pictures
            if !pictures.isEmpty && pictures.allSatisfy({ $0.status != .pending }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return pictures
    }

    @Test func aWorkerNeverReceivesWhatAZoneHides() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let home = try Self.start()
        let alice = try Self.importRun(into: &client, owner: "alice")
        let bob = try Self.importRun(into: &client, owner: "bob")
        let zones: ZonesReply = try client.request(
            .zones, ZonesRequest(owner: "alice", add: .init(latitude: home.latitude, longitude: home.longitude, radius: 200)))
        #expect(zones.zones.count == 1 && zones.added != nil)
        for owner in ["alice", "bob"] {
            var request = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light])
            request.owner = owner
            let _: EnqueueReply = try client.request(.enqueue, request)
        }
        let worker = try FakeWorker(system, capacity: 2, name: "inspector")
        var jobs: [WorkoutID: JobAssignment] = [:]
        while jobs.count < 2, let message = try worker.next(within: 5) {
            if case .job(let job) = message { jobs[job.workoutID] = job }
        }
        let aliceJob = try #require(jobs[alice]), bobJob = try #require(jobs[bob])
        let original = try SeriesCodec.decodeRoute(bobJob.route)
        let cut = try SeriesCodec.decodeRoute(aliceJob.route)
        // Bob has no zones: his route goes as stored. Alice's never comes near her home: the
        // hidden circle holds her circle with a margin of at least 5 % of its radius.
        #expect(original.points.contains { Self.metres($0, home) < 200 })
        #expect(cut.pointCount > 0 && cut.pointCount < original.pointCount)
        let nearest = cut.points.map { Self.metres($0, home) }.min() ?? 0
        print("privacy: nearest point alice's worker received is \(Int(nearest)) m from the zone's centre (radius 200 m)")
        #expect(nearest > 200 * 1.05)
        // Same route, same style: only the privacy fingerprint tells their keys apart.
        #expect(aliceJob.cacheKey != bobJob.cacheKey)
    }

    @Test func changingZonesMakesExactlyThatOwnersPicturesStaleAndRemovesTheOldOnes() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        var client = try system.client()
        let home = try Self.start()
        let alice = try Self.importRun(into: &client, owner: "alice")
        let bob = try Self.importRun(into: &client, owner: "bob", file: Self.ride)
        try Self.enqueueAll(&client, owner: "alice")
        try Self.enqueueAll(&client, owner: "bob")
        let before = try Self.settled(&client, alice), bobBefore = try Self.settled(&client, bob)
        #expect(before.count == 4 && before.allSatisfy { $0.status == .generated })
        #expect(!bobBefore.isEmpty && bobBefore.allSatisfy { $0.status == .generated })

        // WORKFEED_LOOK=DIRECTORY keeps the pictures before and after, to look at them.
        if let look = ProcessInfo.processInfo.environment["WORKFEED_LOOK"] {
            for picture in before {
                try Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + picture.relativePath))
                    .write(to: URL(fileURLWithPath: "\(look)/whole-\(picture.picture.kind)-\(picture.picture.theme).png"))
            }
        }
        let events = try ZMQSocket(system.context, type: .sub)
        try events.subscribe("queued")
        try events.connect(system.endpoints.events)
        Thread.sleep(forTimeInterval: 0.3)  // a subscriber joins late: let it
        let reply: ZonesReply = try client.request(
            .zones, ZonesRequest(owner: "alice", add: .init(latitude: home.latitude, longitude: home.longitude, radius: 250)))
        #expect(reply.stale == 4)
        // They are queued ahead of bulk work (behind interactive requests): one event says so.
        let ready = try ZMQPoll.poll([events.pollItem()], timeoutMilliseconds: 3000)
        let frames = ready[0] ? try events.receive(dontWait: true) : nil
        let queued = try frames.map { try ControlCodec.decode(QueuedEvent.self, from: $0[1]) }
        #expect(queued?.priority == EnqueueRequest.privacyPriority && queued?.stale == 4 && queued?.owner == "alice")
        let after = try Self.settled(&client, alice), bobAfter = try Self.settled(&client, bob)
        #expect(after.allSatisfy { $0.status == .generated })
        // Bob's pictures keep their keys; each of Alice's has a new one, and the old picture is
        // gone from the cache: no longer readable by its key.
        #expect(bobAfter.map(\.cacheKey) == bobBefore.map(\.cacheKey))
        let cache = system.configuration.cacheDirectory
        for (old, new) in zip(before, after) {
            #expect(old.cacheKey != new.cacheKey)
            let oldLink = cache + "/" + (CacheLayout.relativePath(forKey: old.cacheKey ?? "") ?? "")
            #expect(!FileManager.default.fileExists(atPath: oldLink), "\(old.picture.kind) \(old.picture.theme): old picture still readable")
            // The new picture is a whole PNG of the configured size, and not the old one.
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cache + "/" + new.relativePath)))
            let image = try PNGCodec.decode(png)
            if let look = ProcessInfo.processInfo.environment["WORKFEED_LOOK"] {
                try Data(png).write(to: URL(fileURLWithPath: "\(look)/zone-\(new.picture.kind)-\(new.picture.theme).png"))
            }
            #expect(image.width == system.configuration.pictureWidth * new.picture.scale)
        }
        // Removing the zone puts the keys back where they were.
        let removed: ZonesReply = try client.request(.zones, ZonesRequest(owner: "alice", remove: try #require(reply.added?.id)))
        #expect(removed.removed == true && removed.zones.isEmpty && removed.stale == 4)
        let restored = try Self.settled(&client, alice)
        #expect(restored.map(\.cacheKey) == before.map(\.cacheKey))
        // An owner who leaves takes their zones along.
        let _: ZonesReply = try client.request(.zones, ZonesRequest(owner: "alice", add: .init(latitude: 1, longitude: 1, radius: 300)))
        let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: nil, owner: "alice"))
        let left: ZonesReply = try client.request(.zones, ZonesRequest(owner: "alice"))
        #expect(left.zones.isEmpty)
    }

    @Test func aRouteWhollyInsideAZoneFailsWithThatReasonAndComesBackWhenTheZoneGoes() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        var client = try system.client()
        let home = try Self.start()
        let carol = try Self.importRun(into: &client, owner: "carol")
        try Self.enqueueAll(&client, owner: "carol")
        let drawn = try Self.settled(&client, carol)
        #expect(drawn.count == 4 && drawn.allSatisfy { $0.status == .generated })
        let zone: ZonesReply = try client.request(
            .zones, ZonesRequest(owner: "carol", add: .init(latitude: home.latitude, longitude: home.longitude, radius: 2000)))
        #expect(zone.stale == 4)
        let far = try Self.workout().route.points.map { Self.metres($0, home) }.max() ?? 0
        try #require(far < 2000 * 1.35, "the run goes \(far) m from its start: a 2 km zone must hold all of it")
        let hidden = try Self.settled(&client, carol)
        #expect(hidden.count == 4)
        #expect(hidden.allSatisfy { $0.status == .failedNoRetry && $0.reason == "hidden by a privacy zone" })
        #expect(hidden.allSatisfy { $0.reasonCode == FailureCode.hiddenByPrivacy.rawValue })
        // The pictures drawn before the zone showed the whole run: neither their files nor their
        // by-content names are left to read.
        let cache = system.configuration.cacheDirectory
        // (The files go right after the commit that a SHOW can already see.)
        for _ in 0..<40 where drawn.contains(where: { FileManager.default.fileExists(atPath: cache + "/" + $0.relativePath) }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        for picture in drawn {
            #expect(!FileManager.default.fileExists(atPath: cache + "/" + picture.relativePath), "\(picture.picture): old picture left")
            let link = cache + "/" + (CacheLayout.relativePath(forKey: picture.cacheKey ?? "") ?? "")
            #expect(!FileManager.default.fileExists(atPath: link), "\(picture.picture): old key left")
        }
        #expect(hidden.allSatisfy { $0.cacheKey == nil })
        // A zone out of range is answered with the field, and nothing changes.
        let northOfThePole: ZonesReply = try client.request(.zones, ZonesRequest(owner: "carol", add: .init(latitude: 91, longitude: 0, radius: 300)))
        #expect(northOfThePole.refusal?.code == "bad-zone" && northOfThePole.refusal?.field == "latitude")
        let tiny: ZonesReply = try client.request(.zones, ZonesRequest(owner: "carol", add: .init(latitude: 0, longitude: 0, radius: 50)))
        #expect(tiny.refusal?.field == "radius" && tiny.refusal?.message.contains("200") == true)
        #expect(tiny.zones.count == 1 && tiny.added == nil && tiny.stale == 0)
        let gone: ZonesReply = try client.request(.zones, ZonesRequest(owner: "carol", remove: try #require(zone.added?.id)))
        #expect(gone.stale == 4)
        #expect(try Self.settled(&client, carol).allSatisfy { $0.status == .generated })
    }
}
