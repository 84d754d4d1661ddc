import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel

/// The job gauges (jobs by status, queue depth), read from the index when Prometheus
/// scrapes, through a read-only connection of their own: the counts scan the job table, which at a
/// million jobs is too slow to repeat on the loop thread.
final class JobGauges: Sendable {
    private let index: Mutex<WorkoutIndex>
    private let metrics: CoordinatorMetrics
    private let logger: Logger

    init(indexPath: String, metrics: CoordinatorMetrics, logger: Logger) throws(IndexError) {
        index = Mutex(try WorkoutIndex(readingFrom: indexPath, logger: logger))
        self.metrics = metrics
        self.logger = logger
    }

    func refresh() {
        do {
            try index.withLock { index in
                try index.read { reader in
                    for count in try reader.statusCounts() {
                        metrics.jobs(kind: count.kind.rawValue, theme: count.theme.rawValue, status: count.status.rawValue, count: count.count)
                    }
                    metrics.queue(pendingReady: try reader.pendingReadyCount())
                    for count in try reader.mapCoverageCounts() {
                        metrics.pictures(kind: count.kind.rawValue, theme: count.theme.rawValue, map: count.map, count: count.count)
                    }
                }
            }
        } catch {
            logger.warning("job gauges not refreshed", metadata: ["error": "\(error)"])
        }
    }
}
