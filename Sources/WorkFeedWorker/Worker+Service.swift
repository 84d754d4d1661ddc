import Logging
public import ServiceLifecycle
import WorkFeedConfig

/// The worker as a swift-service-lifecycle `Service`: the daemon runs it in a `ServiceGroup`,
/// which turns SIGTERM and SIGINT into a graceful shutdown.
///
/// Its parts (the socket thread, the render threads, the metrics server, the sweep of abandoned
/// writes) start in ``start()``, before the group runs, so that a worker that cannot start exits
/// with its code. ``run()`` waits for the shutdown, then stops them off the cooperative pool: the
/// jobs in hand are finished within the grace period and reported, and the worker says DISCONNECT.
extension Worker: Service {
    public func run() async throws {
        try? await gracefulShutdown()
        logger.info("stopping: finishing the jobs in hand")
        await onOwnThread { self.stop() }
    }
}
