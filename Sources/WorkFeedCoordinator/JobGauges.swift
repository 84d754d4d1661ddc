import Foundation
import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel

/// The job gauges (jobs by status, queue depth, the oldest pending job's age), read from the index
/// when Prometheus scrapes, through a read-only connection of their own: the counts scan the job table, which at a
/// million jobs is too slow to repeat on the index thread between batches.
final class JobGauges<Connection: IndexReadConnection>: Sendable {
    private let index: Mutex<Connection>
    private let metrics: CoordinatorMetrics
    private let logger: Logger
    /// The configured themes, written on every scrape (0 where none): with any other theme the
    /// index still holds jobs of.
    private let themes: [Theme]

    /// - Parameter connection: a read-only connection (``IndexBackend/openReader(logger:)``), the gauges' alone.
    init(reading connection: sending Connection, themes: [Theme], metrics: CoordinatorMetrics, logger: Logger) {
        index = Mutex(connection)
        self.themes = themes
        self.metrics = metrics
        self.logger = logger
    }

    func refresh() {
        do {
            try index.withLock { index in
                try index.read { reader in
                    // Every label set is written on every scrape, 0 where the index has none: a
                    // count that drops to nothing must read 0, not keep its last value (an alert on
                    // pending jobs would never clear).
                    var jobs: [String: Int] = [:]
                    let counts = try reader.statusCounts(owner: nil)
                    let themes = themes + Set(counts.map(\.theme)).subtracting(themes).sorted()
                    for count in counts {
                        jobs["\(count.kind.rawValue) \(count.theme.rawValue) \(count.status.rawValue)", default: 0] += count.count
                    }
                    var pictures: [String: Int] = [:]
                    for count in try reader.mapCoverageCounts() {
                        pictures["\(count.kind.rawValue) \(count.theme.rawValue) \(count.map)", default: 0] += count.count
                    }
                    for kind in PictureKind.allCases {
                        for theme in themes {
                            for status in JobStatus.allCases {
                                let count = jobs["\(kind.rawValue) \(theme.rawValue) \(status.rawValue)"] ?? 0
                                metrics.jobs(kind: kind.rawValue, theme: theme.rawValue, status: status.rawValue, count: count)
                            }
                            // "unknown": pictures drawn before maps existed.
                            for map in MapCoverage.allCases.map(\.rawValue) + ["unknown"] {
                                let count = pictures["\(kind.rawValue) \(theme.rawValue) \(map)"] ?? 0
                                metrics.pictures(kind: kind.rawValue, theme: theme.rawValue, map: map, count: count)
                            }
                        }
                    }
                    metrics.queue(pendingReady: try reader.pendingReadyCount(now: Date()))
                    // updated_at is when the job became pending (or was last retried), in seconds
                    // since 1970 on this host's clock: a job waiting for a worker, or held by one
                    // that never answers, grows older here until it is generated or fails.
                    let oldest = try reader.oldestPending()
                    metrics.oldestPending(ageSeconds: oldest.map { Date().timeIntervalSince($0) } ?? 0)
                    let removals = try reader.keptRemovalCount()
                    metrics.removals(waiting: removals.count, oldestAgeSeconds: removals.oldest.map { Date().timeIntervalSince($0) } ?? 0)
                }
            }
        } catch {
            logger.warning("job gauges not refreshed", metadata: ["error": "\(error)"])
        }
    }
}
