import ArgumentParser
import WorkFeedThreads
import WorkFeedModel
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import WorkFeedConfig
import WorkFeedWire
import WorkFeedWorker

/// `workfeed-worker`: renders pictures for a coordinator. Start as many as you like, on any host.
@main
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workfeed-worker",
        abstract: "Renders WorkFeed pictures for a coordinator and writes them into the shared cache.",
        discussion: """
            Settings come from flags, then WORKFEED_* environment variables, then --config, then the \
            embedded defaults. On SIGTERM the worker takes no more jobs, finishes those in hand \
            (within shutdown.grace_seconds), reports them and exits 0.
            """,
        version: BuildInfo.description)

    @OptionGroup var daemon: DaemonOptions

    @Option(
        name: .long,
        help: """
            The coordinator's worker endpoint, e.g. tcp://coordinator-host:5555, or several coordinators of one index \
            comma-separated: the worker works for one and moves to the next when it stops answering (coordinator).
            """)
    var connect: String?

    @Option(name: .long, help: "The shared picture cache directory (cache.directory).")
    var cache: String?

    @Option(name: .long, help: "Render threads; 0 for one per core (render_threads).")
    var threads: Int?

    @Option(name: .long, help: "The name shown in workctl status (name).")
    var name: String?

    @Option(name: .long, help: "HOST:PORT for Prometheus' GET /metrics of this worker; empty (default) turns it off (metrics.listen).")
    var listenMetrics: String?

    func run() async throws {
        let configuration = try await daemon.load(
            "workfeed-worker",
            overrides: [
                "coordinator": connect, "cache.directory": cache, "render_threads": threads.map(String.init), "name": name,
                "metrics.listen": listenMetrics,
            ],
            WorkerConfiguration.load)
        LogSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "workfeed.worker")
        let worker = Worker(configuration: configuration, context: ZMQContext(), logger: logger)
        do {
            // Its start probes the picture store (a bucket round trip): off the cooperative pool.
            try await BlockingWork.shared.run { try worker.start() }
        } catch let error as WorkerError {
            logger.critical("worker cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(error.exitCode)
        } catch {
            logger.critical("worker cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(69)
        }
        // SIGTERM and SIGINT become a graceful shutdown of the group: the worker stops as tested
        // (docs/operations.md, "Stopping") and the process exits 0.
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: worker)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as WorkerError {
            logger.critical("worker stopped", metadata: ["error": "\(error)"])
            throw ExitCode(error.exitCode)
        }
    }
}
