import Logging
public import ServiceLifecycle
import WorkFeedConfig
import WorkFeedThreads

/// The coordinator as a swift-service-lifecycle `Service`: the daemon runs it in a
/// `ServiceGroup`, which turns SIGTERM and SIGINT into a graceful shutdown.
///
/// Its parts (the loop thread and its sockets, the index thread, the read threads, the metrics
/// server) start in ``start()``, in the order they depend on each other,
/// before the group runs: a part that cannot start ends the process with its exit code before
/// anything is served. ``run()`` then waits for the shutdown and stops them in reverse, off the
/// cooperative pool: the last batch is committed and the loop ends.
extension Coordinator: Service {
    public func run() async throws {
        // Cancelled or shut down, the parts stop the same way.
        try? await gracefulShutdown()
        logger.info("stopping: finishing the current batch")
        await BlockingWork.shared.runToEnd { self.stop() }
    }
}
