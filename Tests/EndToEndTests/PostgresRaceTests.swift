import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel
import WorkFeedRender
import WorkFeedTesting
import WorkFeedWire
import WorkFeedWorker

/// Issue 34's races across two coordinators on one PostgreSQL index: a privacy zone added through
/// the first while the second's workers draw that owner's pictures, and a workout deleted through
/// the first while the second's workers draw (and have drawn) its pictures. The decisions are
/// pinned one report at a time on each index in `DispatcherReportTests`; here real workers draw
/// real pictures through the second coordinator while the first changes the inputs, over seeded
/// trials (`WORKFEED_RACE_SEED`, hex, printed; `WORKFEED_RACE_TRIALS`), each changing them at
/// another point of the drawing.
extension PostgresSystemTests {
    /// The seed and trial count of a race test, printed so that a failing schedule can be replayed.
    static func raceSchedule(_ label: String, trials: Int) -> (random: SplitMix64, trials: Int) {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["WORKFEED_RACE_SEED"].flatMap { UInt64($0, radix: 16) } ?? 0x34
        let count = environment["WORKFEED_RACE_TRIALS"].flatMap(Int.init) ?? trials
        print("\(label): seed \(String(seed, radix: 16)) (WORKFEED_RACE_SEED replays it), \(count) trials")
        return (SplitMix64(seed: seed), count)
    }

    /// Asks `client` for `owner`'s STATUS until `condition` holds, for up to 30 s.
    static func statusOf(
        _ owner: String, _ client: inout ControlClient, until condition: (StatusReply) -> Bool = { _ in true }
    ) throws -> StatusReply {
        let deadline = Date().addingTimeInterval(30)
        var status: StatusReply
        repeat {
            status = try client.request(.status, StatusRequest(owner: owner))
            if condition(status) { break }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return status
    }

    /// A trial's start: a run of `owner` imported through `client`, its 4 pictures queued, and
    /// its status once `drawFirst` of them are drawn while another is being drawn (or, when the
    /// workers were quicker than the polls, once all are: that trial missed the window).
    static func startDrawing(
        _ owner: String, _ client: inout ControlClient, drawFirst: Int
    ) throws -> (id: WorkoutID, before: StatusReply) {
        let id = try PrivacyZoneTests.importRun(into: &client, owner: owner)
        try PrivacyZoneTests.enqueueAll(&client, owner: owner)
        let before = try statusOf(owner, &client) { ($0.total(.generated) >= drawFirst && $0.leased > 0) || $0.total(.generated) == 4 }
        return (id, before)
    }

    /// The PNG files (and temporary files) in a cache directory, by their paths in it.
    static func pictureFiles(_ cache: String) -> [String] {
        (FileManager.default.enumerator(atPath: cache)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".png") || $0.hasSuffix(".tmp") }
    }

    /// The decoded picture stored for `record`, or `nil` (with the issue recorded) when it cannot be read.
    static func storedImage(_ record: PictureRecord, cache: String) -> DecodedImage? {
        let path = cache + "/" + record.relativePath
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("\(record.picture): generated, but \(path) does not exist")
            return nil
        }
        let png = [UInt8](data)
        #expect(PNGCodec.textChunks(png)["workfeed:cache-key"] == record.cacheKey, "\(record.picture): the PNG holds another key than the index")
        guard let image = try? PNGCodec.decode(png) else {
            Issue.record("\(record.picture): \(path) does not decode")
            return nil
        }
        return image
    }

    /// What an owner's pictures are, by kind, theme and scale.
    struct PictureShape: Hashable {
        var kind: PictureKind
        var theme: Theme
        var scale: Int
        init(_ picture: PictureID) { (kind, theme, scale) = (picture.kind, picture.theme, picture.scale) }
    }

    /// Found a real bug (2026-12-03, fixed in 187c613): a coordinator kept every owner's zones
    /// from its start and never read them again when another coordinator changed them, so the
    /// second coordinator's workers drew the whole route under the key of before the zone and it
    /// was stored as current.
    @Test func aZoneAddedThroughOneCoordinatorWhileTheOthersWorkersDrawLeavesNoPictureOfTheOldKey() throws {
        try withTwoCoordinators(workers: 0) { first, second in try zoneRace(first, second) }
    }

    func zoneRace(_ first: RunningSystem, _ second: RunningSystem) throws {
        var (random, trials) = Self.raceSchedule("zone race", trials: 6)
        let cache = first.configuration.cacheDirectory
        var viaFirst = try first.client()
        var viaSecond = try second.client()
        let home = try PrivacyZoneTests.start()
        let zone = ZonesRequest.NewZone(latitude: home.latitude, longitude: home.longitude, radius: 250)

        // What a picture of the run looks like with the zone and without, drawn through the first
        // coordinator alone, with the zone in place before anything was drawn: the cut is placed
        // by the route's hash and the secret the index holds, so every owner's cut run is drawn
        // the same (only the key in the PNG differs, which the pixels do not show).
        var references: [PictureShape: DecodedImage] = [:]
        do {
            let drawer = try first.startWorker(name: "reference")
            defer { drawer.stop() }
            let cut = try PrivacyZoneTests.importRun(into: &viaFirst, owner: "reference-cut")
            let whole = try PrivacyZoneTests.importRun(into: &viaFirst, owner: "reference-whole")
            let _: ZonesReply = try viaFirst.request(.zones, ZonesRequest(owner: "reference-cut", add: zone))
            try PrivacyZoneTests.enqueueAll(&viaFirst, owner: "reference-cut")
            try PrivacyZoneTests.enqueueAll(&viaFirst, owner: "reference-whole")
            let cutPictures = try PrivacyZoneTests.settled(&viaFirst, cut)
            let wholePictures = try PrivacyZoneTests.settled(&viaFirst, whole)
            try #require(cutPictures.count == 4 && (cutPictures + wholePictures).allSatisfy { $0.status == .generated })
            let wholeImages = Dictionary(uniqueKeysWithValues: wholePictures.map { (PictureShape($0.picture), Self.storedImage($0, cache: cache)) })
            for picture in cutPictures {
                let image = try #require(Self.storedImage(picture, cache: cache))
                let changed = image != wholeImages[PictureShape(picture.picture)] ?? nil
                try #require(changed, "the zone changes nothing in \(picture.picture): the pictures below cannot show whether they are cut")
                references[PictureShape(picture.picture)] = image
            }
        }

        let workers = try (0..<2).map { try second.startWorker(name: "second-\($0)") }
        defer { for worker in workers { worker.stop() } }
        var inFlightAtZone = 0
        var drawnBeforeZone = 0
        for trial in 0..<trials {
            let owner = "zone-race-\(trial)"
            // The zone comes after 0 to 3 of the 4 pictures are drawn, while others are.
            let (id, before) = try Self.startDrawing(owner, &viaSecond, drawFirst: Int(random.next() % 4))
            let shown: ShowReply = try viaSecond.request(.show, ShowRequest(id: id))
            let oldKeys = Set(shown.item.pictures.filter { $0.status == .generated }.compactMap(\.cacheKey))
            inFlightAtZone += before.leased
            drawnBeforeZone += oldKeys.count
            let added: ZonesReply = try viaFirst.request(.zones, ZonesRequest(owner: owner, add: zone))
            #expect(added.added != nil)

            let after = try PrivacyZoneTests.settled(&viaSecond, id)
            #expect(after.count == 4 && after.allSatisfy { $0.status == .generated }, "trial \(trial): \(after.map { ($0.picture, $0.status) })")
            // Both coordinators compute the keys from the zones as they are now: every stored key is current.
            for system in [first, second] {
                let name = system.configuration.coordinatorID
                var client = try system.client()
                var request = EnqueueRequest(ids: [id], kinds: [.route, .heatmap], themes: [.light, .dark])
                request.owner = owner
                let reply: EnqueueReply = try client.request(.enqueue, request)
                #expect(
                    reply.current == 4 && reply.stale == 0 && reply.created == 0,
                    "trial \(trial): the \(name) coordinator finds pictures stored under keys that are not current: \(reply)")
            }
            for picture in after where picture.status == .generated {
                let key = try #require(picture.cacheKey)
                #expect(!oldKeys.contains(key), "trial \(trial): \(picture.picture) kept its key from before the zone")
                #expect(FileManager.default.fileExists(atPath: LatePictureTests.keyPath(cache, key)), "trial \(trial): \(picture.picture)")
                // Drawn from the cut route: the reference's pixels, not the whole run's.
                let cut = Self.storedImage(picture, cache: cache) == references[PictureShape(picture.picture)]
                #expect(cut, "trial \(trial): \(picture.picture) is not cut by the zone")
            }
            // The pictures drawn before the zone are readable by their old keys no longer.
            LatePictureTests.waitGone(oldKeys.map { LatePictureTests.keyPath(cache, $0) })
            for key in oldKeys {
                #expect(!FileManager.default.fileExists(atPath: LatePictureTests.keyPath(cache, key)), "trial \(trial): a pre-zone picture stays")
            }
        }
        print("zone race: \(trials) trials; when the zone came, \(drawnBeforeZone) pictures were drawn and \(inFlightAtZone) leased")
        #expect(inFlightAtZone > 0, "no picture was being drawn when a zone came: the trials never hit the window")
    }

    @Test func aWorkoutDeletedThroughOneCoordinatorWhileTheOthersWorkersDrawLeavesNothingOfIt() throws {
        try withTwoCoordinators(workers: 0) { first, second in try deleteRace(first, second) }
    }

    func deleteRace(_ first: RunningSystem, _ second: RunningSystem) throws {
        var (random, trials) = Self.raceSchedule("delete race", trials: 6)
        let cache = first.configuration.cacheDirectory
        var viaFirst = try first.client()
        var viaSecond = try second.client()
        let workers = try (0..<2).map { try second.startWorker(name: "second-\($0)") }
        defer { for worker in workers { worker.stop() } }
        var inFlightAtDelete = 0
        var drawnBeforeDelete = 0
        for trial in 0..<trials {
            let owner = "delete-race-\(trial)"
            // Deleted after 0 to 3 of its 4 pictures are drawn, while others are.
            let (id, before) = try Self.startDrawing(owner, &viaSecond, drawFirst: Int(random.next() % 4))
            inFlightAtDelete += before.leased
            drawnBeforeDelete += before.total(.generated)
            let deleted: DeleteReply = try viaFirst.request(.delete, DeleteRequest(ids: [id], owner: owner))
            #expect(deleted.deleted == [id])

            // Once the second coordinator holds no lease, every report its workers had to make
            // has come (late, for leases the delete ended) and been taken.
            let idle = try Self.statusOf(owner, &viaSecond) { $0.leased == 0 && $0.workers.allSatisfy { $0.busy == 0 } }
            #expect(idle.leased == 0, "trial \(trial): the second coordinator still leases \(idle.leased) jobs")
            // Every earlier trial's workout is deleted too: no picture file may be left at all.
            for _ in 0..<100 where !Self.pictureFiles(cache).isEmpty { Thread.sleep(forTimeInterval: 0.05) }
            #expect(Self.pictureFiles(cache).isEmpty, "trial \(trial): files of a deleted workout left: \(Self.pictureFiles(cache))")
            // Nothing of it in the index, through either coordinator.
            for system in [first, second] {
                let name = system.configuration.coordinatorID
                var client = try system.client()
                do {
                    let shown: ShowReply = try client.request(.show, ShowRequest(id: id))
                    Issue.record("trial \(trial): the \(name) coordinator still shows the deleted workout: \(shown.item.pictures)")
                } catch {
                    #expect(error.code == .notFound, "trial \(trial): \(error)")
                }
                let status: StatusReply = try client.request(.status, StatusRequest(owner: owner))
                #expect(status.workouts == 0 && status.counts.allSatisfy { $0.count == 0 }, "trial \(trial), \(name): \(status.counts)")
                let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10, owner: owner))
                #expect(feed.items.isEmpty, "trial \(trial), \(name): the feed still lists it")
            }
        }
        print("delete race: \(trials) trials; when the delete came, \(drawnBeforeDelete) pictures were drawn and \(inFlightAtDelete) leased")
        #expect(inFlightAtDelete > 0, "no picture was being drawn when a delete came: the trials never hit the window")
        #expect(drawnBeforeDelete > 0, "no picture was drawn before a delete: the deletes never removed a drawn picture")
    }
}
