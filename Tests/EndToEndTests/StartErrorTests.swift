import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire
import WorkFeedWorker

/// A daemon that cannot start says what failed with a code, and keeps the error underneath whole
/// (issue 11): a caller can tell a store problem from a socket problem without reading text.
@Suite struct StartErrorTests {
    @Test func aWorkerWithoutItsStoreSaysSoWithTheStoresError() throws {
        var configuration = WorkerConfiguration()
        configuration.cacheDirectory = "/nonexistent-\(UUID().uuidString)/cache"
        let worker = Worker(configuration: configuration, context: ZMQContext(), logger: Logger(label: "test"))
        do {
            try worker.start()
            Issue.record("a worker started without its cache")
        } catch {
            #expect(error.code == .store && error.exitCode == 73)
            let cause = try #require(error.cause as? PictureStoreError)
            #expect(cause.step == "stat" && cause.code == .notFound && cause.failureCode == .cacheIO)
            #expect(error.description.contains("cannot take pictures") && error.description.contains("mount it"))
        }
    }

    @Test func aCoordinatorWhoseIndexIsADirectoryKeepsTheIndexError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("index.sqlite"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = CoordinatorConfiguration.defaults
        configuration.indexPath = directory.appendingPathComponent("index.sqlite").path
        configuration.cacheDirectory = directory.path
        for key in [\CoordinatorConfiguration.workerEndpoint, \.controlEndpoint, \.eventsEndpoint] {
            configuration[keyPath: key] = "tcp://127.0.0.1:*"
        }
        configuration.metricsListen = ""
        let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: Logger(label: "test"))
        do {
            _ = try coordinator.start()
            coordinator.stop()
            Issue.record("a coordinator started on a directory as its index")
        } catch {
            // Told apart from a port taken (69): the index's own code picks the exit status.
            #expect(error.code == .index)
            #expect((error.cause as? IndexError)?.code == .notAnIndex, "cause: \(String(describing: error.cause))")
            #expect(error.exitCode == 65)
        }
    }
}
