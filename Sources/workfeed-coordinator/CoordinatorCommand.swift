import ArgumentParser
import WorkFeedModel
import Foundation
import Logging
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

    @Option(name: .long, help: "A YAML configuration file (see Config/coordinator.yaml).")
    var config: String?

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

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical (log.level).")
    var logLevel: String?

    @Option(name: .long, help: "text or json (log.format).")
    var logFormat: String?

    func run() async throws {
        var overrides: [String: String] = [:]
        overrides["index.path"] = index
        overrides["cache.directory"] = cache
        overrides["listen.workers"] = listenWorkers
        overrides["listen.control"] = listenControl
        overrides["listen.events"] = listenEvents
        overrides["metrics.listen"] = listenMetrics
        overrides["log.level"] = logLevel
        overrides["log.format"] = logFormat
        let configuration: CoordinatorConfiguration
        do {
            configuration = try await CoordinatorConfiguration.load(
                file: config, environment: ProcessInfo.processInfo.environment, overrides: overrides)
        } catch {
            FileHandle.standardError.write(Data("workfeed-coordinator: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        LogSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "workfeed.coordinator")
        let coordinator = Coordinator(configuration: configuration, context: ZMQContext(), logger: logger)
        do {
            _ = try coordinator.start()
        } catch {
            logger.critical("coordinator cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        await ProcessSignals.runUntilTerminated(logger: logger) { coordinator.stop() }
    }
}
