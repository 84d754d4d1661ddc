import ArgumentParser
import Foundation
import Logging
import WorkFeedThreads
import WorkFeedConfig
import WorkFeedGateway
import WorkFeedModel
import WorkFeedWire

/// `workfeed-gateway`: the phone app's HTTP door (docs/gateway.md). Run as many as you like
/// behind a load balancer.
@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workfeed-gateway",
        abstract: "Serves the WorkFeed API over HTTP: feed, pictures, uploads, picture requests, with bearer tokens.",
        discussion: """
            Settings come from flags, then WORKFEED_* environment variables, then --config, then the \
            embedded defaults (Config/gateway.yaml documents every key). It talks to the coordinator's \
            control socket and event stream, reads pictures from the picture store read-only (a \
            directory or a bucket), and never opens the index. SIGTERM stops it after the requests in hand. Exit codes: 0 after SIGTERM or \
            SIGINT; 78 bad configuration; 69 cannot start (the listen address taken, say); 73 the \
            picture store cannot be read (a missing bucket, refused credentials); 1 stopped by another \
            failure.
            """,
        version: BuildInfo.description)

    @OptionGroup var daemon: DaemonOptions

    @Option(name: .long, help: "HOST:PORT to listen on (listen).")
    var listen: String?

    @Option(name: .long, help: "The coordinator's control endpoint, or several coordinators' comma-separated (coordinator.control).")
    var coordinator: String?

    @Option(name: .long, help: "The coordinator's event stream, or every coordinator's comma-separated (coordinator.events).")
    var events: String?

    @Option(name: .long, help: "The shared picture cache, read only (cache.directory).")
    var cache: String?

    func run() async throws {
        let configuration = try await daemon.load(
            "workfeed-gateway",
            overrides: ["listen": listen, "coordinator.control": coordinator, "coordinator.events": events, "cache.directory": cache],
            GatewayConfiguration.load)
        LogSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "workfeed.gateway")
        let context = ZMQContext()
        let gateway: Gateway
        do {
            // Its start asks for the bucket (a round trip): off the cooperative pool.
            gateway = try await BlockingWork.shared.run { try Gateway(configuration: configuration, context: context, logger: logger) }
        } catch {
            logger.critical("gateway cannot start", metadata: ["error": "\(error)"])
            throw ExitCode((error as? GatewayError)?.exitCode ?? 69)  // 73: the picture store; else EX_UNAVAILABLE
        }
        do {
            try await gateway.run()
        } catch let error as GatewayError {
            logger.critical("gateway cannot start", metadata: ["error": "\(error)"])
            await gateway.shutdown()
            throw ExitCode(error.exitCode)
        } catch {
            logger.critical("gateway stopped", metadata: ["error": "\(error)"])
            await gateway.shutdown()
            throw ExitCode(1)
        }
        logger.info("gateway stopped")
        withExtendedLifetime(context) {}
    }
}
