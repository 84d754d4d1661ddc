import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

/// One picture store, one index (issue 37, item 6): a coordinator with an empty index pointed at
/// another deployment's store removed at its start every picture it did not know. Now the store's
/// owner marker names its index, and a coordinator refuses a store that is another's, before any
/// sweep (docs/operations.md, "One store, one index").
@Suite struct StoreOwnershipTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-ownership-\(UUID().uuidString)")
    var cache: String { directory.appendingPathComponent("cache").path }
    var store: DirectoryPictureStore { DirectoryPictureStore(root: cache) }

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.appendingPathComponent("cache").path, withIntermediateDirectories: true)
    }

    func index(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

    /// Starts a coordinator on `index` and the cache, and stops it again.
    func startAndStop(_ index: String) throws(CoordinatorError) {
        var configuration = CoordinatorConfiguration.defaults
        configuration.indexPath = index
        configuration.cacheDirectory = cache
        for key in [\CoordinatorConfiguration.workerEndpoint, \.controlEndpoint, \.eventsEndpoint] {
            configuration[keyPath: key] = "tcp://127.0.0.1:*"
        }
        configuration.metricsListen = ""
        let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: Logger(label: "test"))
        _ = try coordinator.start()
        coordinator.stop()
    }

    func refusal(_ index: String) -> CoordinatorError? {
        #expect(throws: CoordinatorError.self) { try startAndStop(index) }
    }

    @Test func aStoreHoldsTheIndexsPicturesWhichAnotherIndexNeverRemoves() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first start marks the empty store as its index's.
        try startAndStop(index("a"))
        let marker = try #require(try store.ownerMarker())
        #expect(marker.hasPrefix("workfeed-index ") && marker.count == "workfeed-index ".count + 37, "\(marker)")
        let key = String(repeating: "7f", count: 32)
        let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .light, scale: 1)
        // The store does not read what it is given: the bytes stand for a picture of index a's.
        try store.put(Array("a picture of a's".utf8), for: picture, key: key)

        // Another index on that store: refused, naming the index it belongs to; nothing removed.
        let foreign = try #require(refusal(index("b")))
        #expect(foreign.code == .foreignStore && foreign.exitCode == 78)
        #expect(foreign.message.contains("holds the pictures of index \(marker.dropFirst("workfeed-index ".count).dropLast())"), "\(foreign)")
        #expect(store.contains(key: key) && store.contains(picture))
        // Its own index starts on it.
        try startAndStop(index("a"))

        // A store from before markers: an index without workouts is refused, and marks nothing.
        try FileManager.default.removeItem(atPath: cache + "/" + CacheLayout.ownerMarkerName)
        let unmarked = try #require(refusal(index("c")))
        #expect(unmarked.code == .foreignStore && unmarked.message.contains("holds pictures but no owner marker"), "\(unmarked)")
        #expect(try store.ownerMarker() == nil)
        #expect(store.contains(key: key) && store.contains(picture))
        // The index with workouts that used it adopts it, under its own name as before.
        do {
            let a = try WorkoutIndex(path: index("a"), logger: Logger(label: "test"))
            _ = try a.write { transaction in
                let points = (0..<10).map { i in
                    RoutePoint(latitude: 52.5 + Double(i) * 0.001, longitude: 13.4, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
                }
                return try transaction.importWorkout(
                    ImportedWorkout(
                        source: .gpx, sourceID: "adopting", activity: .running, route: Route(segments: [points]), heartRate: [],
                        origin: "adopting.gpx"),
                    owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(), replacedFile: { _ in })
            }
        }
        try startAndStop(index("a"))
        #expect(try store.ownerMarker() == marker)
    }

    @Test func aMarkerThatNamesNoIndexIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.writeOwnerMarker("not a marker at all\n")
        let refused = try #require(refusal(index("a")))
        #expect(refused.code == .foreignStore && refused.message.contains("names no index"), "\(refused)")
        #expect(try store.ownerMarker() == "not a marker at all\n")
    }
}
