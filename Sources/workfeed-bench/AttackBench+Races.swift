import Foundation
import Logging
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire
import WorkFeedWorker

/// Issue 23, findings 1 and 4: races between a worker drawing and the inputs changing, tried
/// `Settings.raceTrials` times each against a real coordinator and a real worker on loopback.
extension AttackBench {
    /// A run of 200 points 10 m apart going north from Heidelberg, with heart rate: long enough
    /// that a zone of 200 m at its start hides its first few hundred metres and leaves the rest.
    static func raceWorkout(_ number: Int) -> ImportedWorkout {
        let start = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 3600)
        let points = (0..<200).map { i in
            RoutePoint(
                latitude: 49.40 + Double(i) * 0.00009, longitude: 8.69 + Double(i % 7) * 0.00002, elevation: 110,
                time: start.addingTimeInterval(Double(i) * 3))
        }
        let heartRate = (0..<200).map { i in HeartRateSample(time: start.addingTimeInterval(Double(i) * 3), bpm: 120 + Double(i % 50)) }
        return ImportedWorkout(
            source: .gpx, sourceID: "race-\(number)", activity: .running, name: nil, route: Route(segments: [points]), heartRate: heartRate,
            start: start, end: start.addingTimeInterval(600), timeZoneOffset: 0, origin: "made up race \(number)")
    }

    /// A worker of this process on the target's coordinator and cache.
    static func raceWorker(_ target: Target, threads: Int = 2) throws -> Worker {
        // The shared directory is there before its workers, as an operator mounts it.
        try FileManager.default.createDirectory(atPath: target.configuration.cacheDirectory, withIntermediateDirectories: true)
        var configuration = WorkerConfiguration()
        configuration.coordinatorEndpoints = [target.endpoints.workers]
        configuration.cacheDirectory = target.configuration.cacheDirectory
        configuration.renderThreads = threads
        configuration.name = "race-worker"
        var logger = Logger(label: "workfeed.attack.worker")
        logger.logLevel = .error
        let worker = Worker(configuration: configuration, context: target.context, logger: logger)
        try worker.start()
        return worker
    }

    /// Imports trial `number`'s workout for its own owner and queues its four pictures.
    static func importAndQueue(_ number: Int, owner: String, client: inout ControlClient) throws -> (WorkoutID, ImportedWorkout) {
        let workout = raceWorkout(number)
        let reply: ImportReply = try client.request(
            .importWorkout, ImportRequest(workout, owner: owner),
            attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        var request = EnqueueRequest(ids: [reply.id], kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1])
        request.owner = owner
        let _: EnqueueReply = try client.request(.enqueue, request)
        return (reply.id, workout)
    }

    /// Waits (30 s at most) until no picture of `id` is pending.
    static func settled(_ id: WorkoutID, client: inout ControlClient) throws -> [PictureRecord] {
        var pictures: [PictureRecord] = []
        for _ in 0..<600 {
            let show: ShowReply = try client.request(.show, ShowRequest(id: id))
            pictures = show.item.pictures
            if !pictures.isEmpty && pictures.allSatisfy({ $0.status != .pending }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return pictures
    }

    /// Waits (30 s at most) until no job is out with a worker.
    static func idle(client: inout ControlClient) throws {
        for _ in 0..<600 {
            let status: StatusReply = try client.request(.status, [String: String]())
            if status.leased == 0 && status.total(.pending) == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Every picture file in `cache`: by-content names (keys) and by-picture names (with the key
    /// embedded in each).
    static func pictureFiles(_ cache: String) -> (keys: Set<String>, pictures: [String: String?]) {
        var keys = Set<String>()
        var pictures: [String: String?] = [:]
        guard let walker = FileManager.default.enumerator(atPath: cache) else { return (keys, pictures) }
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".png"), !(relative as NSString).lastPathComponent.hasPrefix(".") else { continue }
            if relative.hasPrefix(CacheLayout.keysFolder + "/") {
                keys.insert(String((relative as NSString).lastPathComponent.dropLast(4)))
            } else {
                let head = FileManager.default.contents(atPath: cache + "/" + relative).map { Array($0.prefix(4096)) } ?? []
                pictures[relative] = PNGText.value(of: "workfeed:cache-key", in: head)
            }
        }
        return (keys, pictures)
    }

    static func zoneRace(_ settings: Settings) throws -> Outcome {
        let target = try Target()
        defer { target.stop() }
        let worker = try raceWorker(target)
        defer { worker.stop() }
        var client = try target.client(timeoutMilliseconds: 30_000)
        var stored: [String: String] = [:]  // relative picture path: its stored key
        var unsettled = 0
        var stale = 0
        for trial in 0..<settings.raceTrials {
            let owner = "zone-race-\(trial)"
            let (id, workout) = try importAndQueue(trial, owner: owner, client: &client)
            let home = workout.route.segments[0][0]
            // At once, while the worker draws.
            let _: ZonesReply = try client.request(
                .zones, ZonesRequest(owner: owner, add: .init(latitude: home.latitude, longitude: home.longitude, radius: 200)))
            let pictures = try settled(id, client: &client)
            if pictures.count != 4 || pictures.contains(where: { $0.status != .generated }) { unsettled += 1 }
            // A picture stored with a key that is not its current one was drawn before the zone.
            var check = EnqueueRequest(ids: [id], kinds: [.route, .heatmap], themes: [.light, .dark], scales: [1])
            check.owner = owner
            check.existingOnly = true
            let reply: EnqueueReply = try client.request(.enqueue, check)
            stale += reply.stale
            for picture in pictures { if let key = picture.cacheKey { stored[picture.relativePath] = key } }
            if reply.stale > 0 { _ = try settled(id, client: &client) }
        }
        try idle(client: &client)
        Thread.sleep(forTimeInterval: 0.3)
        let files = pictureFiles(target.configuration.cacheDirectory)
        let referenced = Set(stored.values)
        let strayKeys = files.keys.subtracting(referenced).count
        let wrongPictures = files.pictures.filter { path, key in stored[path] == nil || key != stored[path] }.count
        let refused = target.logLines.all.filter { $0.contains("report on inputs that changed since the job was leased") }.count
        let wrong = stale + strayKeys + wrongPictures
        return Outcome(
            name: "zone-race", held: wrong == 0 && unsettled == 0,
            happened:
                "\(settings.raceTrials) trials, \(settings.raceTrials * 4) pictures: \(stale) stored with a pre-zone key, \(strayKeys) by-content "
                + "files and \(wrongPictures) by-picture files nothing refers to, \(unsettled) trials not settled; \(refused) reports on pre-zone "
                + "inputs refused and drawn again")
    }

    static func deleteRace(_ settings: Settings) throws -> Outcome {
        let target = try Target()
        defer { target.stop() }
        let worker = try raceWorker(target)
        defer { worker.stop() }
        var client = try target.client(timeoutMilliseconds: 30_000)
        for trial in 0..<settings.raceTrials {
            let owner = "delete-race-\(trial)"
            let (id, _) = try importAndQueue(trial, owner: owner, client: &client)
            // At once, while the worker draws.
            let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: [id], owner: owner))
        }
        try idle(client: &client)
        Thread.sleep(forTimeInterval: 0.5)
        let files = pictureFiles(target.configuration.cacheDirectory)
        let late = target.logLines.all.filter { $0.contains("late report") }.count
        return Outcome(
            name: "delete-race", held: files.keys.isEmpty && files.pictures.isEmpty,
            happened: "\(settings.raceTrials) workouts deleted while their \(settings.raceTrials * 4) pictures were drawn: \(files.keys.count) "
                + "by-content and \(files.pictures.count) by-picture files left; \(late) late reports whose pictures were removed")
    }
}
