import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedRender
import WorkFeedStore
import WorkFeedWire
import WorkFeedStyle

/// Issue 23, findings 1 and 4: what a worker draws while its job's inputs change (an owner adds a
/// privacy zone, a workout is deleted) is never stored as current, and its files do not stay
/// behind; a sweep at start removes what a worker wrote that nothing refers to. The worker is
/// played by hand (``FakeWorker``) so that each race happens every time, in the order that broke:
/// JOB received, inputs changed, picture written, report sent. It draws and writes exactly as a
/// real worker does (``Renderer``, ``DirectoryPictureStore``).
@Suite(.serialized) struct LatePictureTests {
    /// Draws a JOB as a worker would and writes it into the cache under both its names.
    static func drawAndWrite(_ job: JobAssignment, cache: String) throws -> PictureID {
        let spec = try JSONDecoder().decode(PictureSpec.self, from: Data(job.spec))
        let png = try Renderer().render(
            spec: spec, route: try SeriesCodec.decodeRoute(job.route), heartRate: try SeriesCodec.decodeHeartRate(job.heartRate),
            cacheKey: job.cacheKey)
        let picture = PictureID(workoutID: job.workoutID, kind: spec.kind, theme: spec.theme, scale: spec.scale)
        try DirectoryPictureStore(root: cache).put(png, for: picture, key: job.cacheKey)
        return picture
    }

    static func report(_ job: JobAssignment, by worker: borrowing FakeWorker) throws {
        try worker.socket.send(
            WorkerMessage.status(JobReport(lease: job.lease, outcome: .generated, detail: job.cacheKey, renderMicroseconds: 1)).frames)
    }

    static func nextJob(_ worker: borrowing FakeWorker, within seconds: Double = 5) throws -> JobAssignment? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let message = try worker.next(within: max(0.1, deadline.timeIntervalSinceNow)) {
            if case .job(let job) = message { return job }
        }
        return nil
    }

    /// The cache key embedded in the picture stored under `picture`'s name.
    static func embeddedKey(_ cache: String, _ picture: PictureID) -> String? {
        FileManager.default.contents(atPath: picturePath(cache, picture)).flatMap {
            PNGText.value(of: "workfeed:cache-key", in: Array($0.prefix(4096)))
        }
    }

    static func keyPath(_ cache: String, _ key: String) -> String { cache + "/" + (CacheLayout.relativePath(forKey: key) ?? "") }
    static func picturePath(_ cache: String, _ picture: PictureID) -> String { cache + "/" + CacheLayout.relativePath(for: picture) }

    /// Waits (2 s at most) until none of `paths` exists: files go right after a commit.
    static func waitGone(_ paths: [String]) {
        for _ in 0..<40 where paths.contains(where: FileManager.default.fileExists(atPath:)) { Thread.sleep(forTimeInterval: 0.05) }
    }

    static func show(_ client: inout ControlClient, _ id: WorkoutID) throws -> [PictureRecord] {
        let reply: ShowReply = try client.request(.show, ShowRequest(id: id))
        return reply.item.pictures
    }

    static func enqueueRoute(_ client: inout ControlClient, owner: String) throws {
        var request = EnqueueRequest(ids: nil, kinds: [.route], themes: [.light])
        request.owner = owner
        let _: EnqueueReply = try client.request(.enqueue, request)
    }

    /// Finding 1: a zone added while the picture is drawn. The report on the pre-zone route is
    /// refused, the job is sent again with the new key and the cut route, and the pre-zone picture
    /// is gone from both names.
    @Test func aPictureDrawnBeforeAZoneWasAddedIsRefusedRemovedAndDrawnAgain() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let cache = system.configuration.cacheDirectory
        var client = try system.client()
        let home = try PrivacyZoneTests.start()
        let id = try PrivacyZoneTests.importRun(into: &client, owner: "alice")
        try Self.enqueueRoute(&client, owner: "alice")
        let worker = try FakeWorker(system, capacity: 1, name: "slow")
        let before = try #require(try Self.nextJob(worker))
        let wholeRoute = try SeriesCodec.decodeRoute(before.route)

        let zone: ZonesReply = try client.request(
            .zones, ZonesRequest(owner: "alice", add: .init(latitude: home.latitude, longitude: home.longitude, radius: 250)))
        #expect(zone.added != nil)
        let picture = try Self.drawAndWrite(before, cache: cache)
        try Self.report(before, by: worker)

        // Drawn again, under the new key, from the cut route.
        let again = try #require(try Self.nextJob(worker), "the job was not sent again after its outdated report")
        #expect(again.workoutID == id && again.lease != before.lease)
        #expect(again.cacheKey != before.cacheKey)
        #expect(try SeriesCodec.decodeRoute(again.route).pointCount < wholeRoute.pointCount)
        // Meanwhile nothing is stored as current, and the pre-zone picture is readable under neither name.
        let pictures = try Self.show(&client, id)
        #expect(pictures.allSatisfy { $0.status == .pending && $0.cacheKey != before.cacheKey })
        Self.waitGone([Self.keyPath(cache, before.cacheKey), Self.picturePath(cache, picture)])
        #expect(!FileManager.default.fileExists(atPath: Self.keyPath(cache, before.cacheKey)), "the pre-zone picture is served by its key")
        #expect(!FileManager.default.fileExists(atPath: Self.picturePath(cache, picture)), "the pre-zone picture stays under its name")

        // The new one is stored as current.
        _ = try Self.drawAndWrite(again, cache: cache)
        try Self.report(again, by: worker)
        var stored: [PictureRecord] = []
        for _ in 0..<40 {
            stored = try Self.show(&client, id)
            if stored.first?.status == .generated { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(stored.first?.status == .generated && stored.first?.cacheKey == again.cacheKey)
        #expect(FileManager.default.fileExists(atPath: Self.keyPath(cache, again.cacheKey)))
        #expect(Self.embeddedKey(cache, picture) == again.cacheKey)
    }

    /// Finding 4: a workout deleted while its picture is drawn. The picture written after the
    /// delete, and its by-content name, go when the late report comes.
    @Test func aPictureWrittenAfterItsWorkoutWasDeletedIsRemoved() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let cache = system.configuration.cacheDirectory
        var client = try system.client()
        let id = try PrivacyZoneTests.importRun(into: &client, owner: "dora")
        try Self.enqueueRoute(&client, owner: "dora")
        let worker = try FakeWorker(system, capacity: 1, name: "late")
        let job = try #require(try Self.nextJob(worker))
        let deleted: DeleteReply = try client.request(.delete, DeleteRequest(ids: [id], owner: "dora"))
        #expect(deleted.deleted == [id])
        let picture = try Self.drawAndWrite(job, cache: cache)
        try Self.report(job, by: worker)
        Self.waitGone([Self.keyPath(cache, job.cacheKey), Self.picturePath(cache, picture)])
        #expect(!FileManager.default.fileExists(atPath: Self.keyPath(cache, job.cacheKey)), "a deleted workout's picture is served by its key")
        #expect(!FileManager.default.fileExists(atPath: Self.picturePath(cache, picture)), "a deleted workout's picture stays under its name")
    }

    /// Two copies of one recording an owner keeps on purpose (imported with duplicates allowed),
    /// without zones, have one key and share its by-content file (owners never share one: the
    /// owner is part of the key). Deleting one while its picture is drawn removes that one's
    /// by-picture name, never the file the other's current picture is served from.
    @Test func aLatePictureWhoseKeyAnotherJobStoresKeepsThatFile() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let cache = system.configuration.cacheDirectory
        var client = try system.client()
        let kept = try PrivacyZoneTests.importRun(into: &client, owner: "erin")
        var copy = try PrivacyZoneTests.workout(PrivacyZoneTests.run)
        copy.sourceID = "another-app-copy"
        let imported: ImportReply = try client.request(
            .importWorkout, ImportRequest(copy, owner: "erin", allowDuplicates: true),
            attachments: [SeriesCodec.encode(copy.route), SeriesCodec.encode(copy.heartRate)])
        let gone = imported.id
        #expect(gone != kept)
        // The kept copy's picture first, then the other's, leased while it is deleted.
        func enqueue(_ id: WorkoutID) throws {
            var request = EnqueueRequest(ids: [id], kinds: [.route], themes: [.light])
            request.owner = "erin"
            let _: EnqueueReply = try client.request(.enqueue, request)
        }
        let worker = try FakeWorker(system, capacity: 2, name: "both")
        try enqueue(kept)
        let keptJob = try #require(try Self.nextJob(worker))
        #expect(keptJob.workoutID == kept)
        let keptPicture = try Self.drawAndWrite(keptJob, cache: cache)
        try Self.report(keptJob, by: worker)
        try enqueue(gone)
        let goneJob = try #require(try Self.nextJob(worker))
        #expect(goneJob.workoutID == gone)
        try #require(keptJob.cacheKey == goneJob.cacheKey, "the same recording without zones has one key")
        let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: [gone], owner: "erin"))
        let gonePicture = try Self.drawAndWrite(goneJob, cache: cache)
        try Self.report(goneJob, by: worker)
        Self.waitGone([Self.picturePath(cache, gonePicture)])
        #expect(!FileManager.default.fileExists(atPath: Self.picturePath(cache, gonePicture)))
        // A moment for anything wrongly queued to be removed too.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(FileManager.default.fileExists(atPath: Self.keyPath(cache, keptJob.cacheKey)), "the other owner's current picture was removed")
        #expect(FileManager.default.fileExists(atPath: Self.picturePath(cache, keptPicture)))
        #expect(try Self.show(&client, kept).first?.status == .generated)
    }

    /// Finding 4, after a restart: what a worker wrote and never reported (it died, or its report
    /// was lost with the coordinator) is found by the sweep at start and removed; current pictures
    /// and their names stay.
    @Test func theSweepAtStartRemovesPicturesNothingRefersTo() throws {
        let first = try RunningSystem(workers: 0)
        let cache = first.configuration.cacheDirectory
        var client = try first.client()
        let id = try PrivacyZoneTests.importRun(into: &client, owner: "gina")
        let doomed = try PrivacyZoneTests.importRun(into: &client, owner: "hank", file: PrivacyZoneTests.ride)
        try Self.enqueueRoute(&client, owner: "gina")
        try Self.enqueueRoute(&client, owner: "hank")
        var jobs: [WorkoutID: JobAssignment] = [:]
        do {
            let worker = try FakeWorker(first, capacity: 2, name: "dies")
            while jobs.count < 2, let job = try Self.nextJob(worker) { jobs[job.workoutID] = job }
            let stored = try #require(jobs[id])
            _ = try Self.drawAndWrite(stored, cache: cache)
            try Self.report(stored, by: worker)
            // Hank leaves while his picture is out; the worker writes it after the delete and dies
            // before it reports.
            let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: [doomed], owner: "hank"))
            Thread.sleep(forTimeInterval: 0.2)
            _ = try Self.drawAndWrite(try #require(jobs[doomed]), cache: cache)
        }
        let stored = try #require(jobs[id]), lost = try #require(jobs[doomed])
        let lostPicture = PictureID(workoutID: doomed, kind: .route, theme: .light)
        for _ in 0..<40 where try Self.show(&client, id).first?.status != .generated { Thread.sleep(forTimeInterval: 0.05) }
        first.stop(keepingFiles: true)
        // A by-content name a worker wrote for a key no job has (its report lost in a restart).
        let strayKey = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(atPath: cache + "/keys/ab", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.keyPath(cache, stored.cacheKey), toPath: Self.keyPath(cache, strayKey))
        #expect(FileManager.default.fileExists(atPath: Self.picturePath(cache, lostPicture)))
        #expect(FileManager.default.fileExists(atPath: Self.keyPath(cache, lost.cacheKey)))

        let second = try RunningSystem(workers: 0, directory: first.directory)
        defer { second.stop() }
        let leftovers = [Self.keyPath(cache, lost.cacheKey), Self.picturePath(cache, lostPicture), Self.keyPath(cache, strayKey)]
        Self.waitGone(leftovers)
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "left behind: \(path)") }
        #expect(FileManager.default.fileExists(atPath: Self.keyPath(cache, stored.cacheKey)))
        let kept = PictureID(workoutID: id, kind: .route, theme: .light)
        #expect(Self.embeddedKey(cache, kept) == stored.cacheKey)
    }
}
