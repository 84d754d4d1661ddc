import Foundation
import Testing
import WorkFeedModel
import WorkFeedWire

/// The coordinator program and its index file, as an operator would meet them (issue 13,
/// finding 6): a second coordinator on the same index, an empty file, a damaged one.
@Suite(.serialized) struct IndexGuardTests {
    @Test func aSecondCoordinatorOnTheSameIndexRefusesToStart() throws {
        let system = try ChaosSystem(ChaosSystem.Settings(), label: "second-coordinator")
        defer { system.tearDown() }
        try system.startCoordinator()
        let ports = try (0..<4).map { _ in try freeLoopbackPort() }
        let second = try runToCompletion(
            try Binaries.url("workfeed-coordinator"),
            ["--index", system.indexPath, "--listen-workers", "tcp://127.0.0.1:\(ports[0])", "--listen-control", "tcp://127.0.0.1:\(ports[1])"],
            environment: ["WORKFEED_LISTEN_EVENTS": "tcp://127.0.0.1:\(ports[2])", "WORKFEED_METRICS_LISTEN": "127.0.0.1:\(ports[3])"], timeout: 60)
        // 75 (EX_TEMPFAIL): the index is locked, which may pass; not 69, a port taken.
        #expect(second.status == 75, "exit \(second.status): \(second.output)")
        #expect(second.output.contains("another coordinator (process \(system.coordinator.pid ?? 0))"), "\(second.output)")
        // The first one is unharmed.
        #expect(system.coordinator.isRunning)
        #expect(try system.ping())
        // Killed, it leaves no stale lock: a new coordinator starts on the index at once.
        system.coordinator.kill9()
        try system.startCoordinator()
        #expect(try system.ping())
    }

    @Test func anEmptyIndexFileStopsTheStartWithWhatToDo() throws {
        let system = try ChaosSystem(ChaosSystem.Settings(), label: "empty-index")
        defer { system.tearDown() }
        try FileManager.default.createDirectory(atPath: (system.indexPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: system.indexPath, contents: Data()))
        try system.coordinator.start()
        let deadline = Date().addingTimeInterval(30)
        while system.coordinator.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!system.coordinator.isRunning)
        // 65 (EX_DATAERR): no index there; restarting would not help.
        #expect(system.coordinator.terminationDescription == "exit 65", "\(system.coordinator.terminationDescription)")
        #expect(system.coordinator.log().contains("is empty (0 bytes)"), "\(system.coordinator.logTail())")
    }

    /// A clean stop leaves the index as one file, even with the read thread's connection open
    /// until the end (docs/operations.md, "Moving the coordinator").
    @Test func aCleanStopLeavesTheIndexAsOneFile() throws {
        let system = try ChaosSystem(ChaosSystem.Settings(), label: "clean-stop")
        defer { system.tearDown() }
        try system.startCoordinator()
        let workout = ImportedWorkout.twoPoint(3)
        let _: ImportReply = try system.request(
            .importWorkout, ImportRequest(workout), attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        _ = try system.status()
        #expect(system.coordinator.terminate(timeout: 30))
        let wal = (try? FileManager.default.attributesOfItem(atPath: system.indexPath + "-wal"))?[.size] as? Int ?? 0
        #expect(wal == 0, "\(wal) bytes left in the write-ahead log")
    }
}
