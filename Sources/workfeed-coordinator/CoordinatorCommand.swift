import ArgumentParser
import WorkFeedThreads
import WorkFeedModel
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedWire

/// `workfeed-coordinator`: owns the index and dispatches picture jobs to workers.
@main
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workfeed-coordinator",
        abstract: "Owns the WorkFeed index and dispatches picture jobs to workers over ZeroMQ.",
        discussion: """
            Settings come from flags, then WORKFEED_* environment variables, then --config, then the \
            embedded defaults (index and cache under ./var, workers on tcp://127.0.0.1:5555, \
            workctl on tcp://127.0.0.1:5556). Stops cleanly on SIGTERM or SIGINT.
            """,
        version: BuildInfo.description)

    @OptionGroup var daemon: DaemonOptions

    @Option(name: .long, help: "The index file (index.path).")
    var index: String?

    @Option(name: .long, help: "The picture cache directory (cache.directory).")
    var cache: String?

    @Option(name: .long, help: "Where workers connect, e.g. tcp://0.0.0.0:5555 (listen.workers).")
    var listenWorkers: String?

    @Option(name: .long, help: "Where workctl connects (listen.control).")
    var listenControl: String?

    @Option(name: .long, help: "Where `workctl watch` and gateways subscribe to events (listen.events).")
    var listenEvents: String?

    @Option(name: .long, help: "HOST:PORT for Prometheus' GET /metrics; empty turns it off (metrics.listen).")
    var listenMetrics: String?

    func run() async throws {
        let configuration = try await daemon.load(
            "workfeed-coordinator",
            overrides: [
                "index.path": index, "cache.directory": cache, "listen.workers": listenWorkers, "listen.control": listenControl,
                "listen.events": listenEvents, "metrics.listen": listenMetrics,
            ],
            CoordinatorConfiguration.load)
        LogSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "workfeed.coordinator")
        let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: logger)
        do {
            // Its start waits for the bucket, the index and the threads: off the cooperative pool.
            _ = try await BlockingWork.shared.run { try coordinator.start() }
        } catch let error as CoordinatorError {
            logger.critical("coordinator cannot start", metadata: ["error": "\(error)", "code": "\(error.detailedCode)"])
            throw ExitCode(error.exitCode)  // CoordinatorError.exitCode: the store 73, the index 65/74/75, else 69
        } catch {
            logger.critical("coordinator cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(69)
        }
        // SIGTERM and SIGINT become a graceful shutdown of the group: the coordinator stops as tested
        // (docs/operations.md, "Stopping") and the process exits 0.
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: coordinator)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
