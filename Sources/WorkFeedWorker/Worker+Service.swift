import Logging
public import ServiceLifecycle
import WorkFeedConfig
import WorkFeedThreads

/// The worker as a swift-service-lifecycle `Service`: the daemon runs it in a `ServiceGroup`,
/// which turns SIGTERM and SIGINT into a graceful shutdown.
///
/// Its parts (the socket thread, the render threads, the metrics server, the sweep of abandoned
/// writes) start in ``start()``, before the group runs, so that a worker that cannot start exits
/// with its code. ``run()`` waits for the shutdown, then stops them off the cooperative pool: the
/// jobs in hand are finished within the grace period and reported, and the worker says DISCONNECT.
extension Worker: Service {
    /// - Throws: ``WorkerError`` when the worker stopped by itself (``endedBy``): the daemon exits
    ///   with its code.
    public func run() async throws {
        // Until SIGTERM (a graceful shutdown) or cancellation, or the socket thread ending by
        // itself (refused for its configuration): each fires `runWake`, awaited without polling.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await self.runWake.wait()
            } onGracefulShutdown: {
                self.runWake.fire()
            }
        } onCancel: {
            self.runWake.fire()
        }
        if let ended = endedBy {
            await BlockingWork.shared.runToEnd { self.stop() }
            throw ended
        }
        logger.info("stopping: finishing the jobs in hand")
        await BlockingWork.shared.runToEnd { self.stop() }
    }
}
