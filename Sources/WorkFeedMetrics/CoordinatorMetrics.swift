public import Prometheus
import Synchronization

/// The coordinator's metrics. Safe to update from the loop thread while the HTTP thread scrapes.
public final class CoordinatorMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let renderDuration: DurationHistogram
    let workersConnected: Gauge
    let queueReady: Gauge
    let leased: Gauge
    /// Counters by kind and status, made once: the registry's lookup takes a lock and builds a key.
    private let results = Mutex<[String: Counter]>([:])
    /// Jobs leased now, as the loop last set it (leases live in its memory, not in the index).
    private let leasedNow = Atomic<Int>(0)

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        renderDuration = registry.makeDurationHistogram(
            name: "workfeed_render_duration_seconds",
            buckets: [.milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .seconds(1), .seconds(5)],
            help: "Time workers spent drawing and encoding each generated picture, as they report it.")
        workersConnected = registry.makeGauge(name: "workfeed_workers_connected", help: "Workers connected now.")
        queueReady = registry.makeGauge(name: "workfeed_queue_ready", help: "Pending jobs ready to be leased (not leased, not backing off).")
        leased = registry.makeGauge(name: "workfeed_jobs_leased", help: "Jobs leased to workers now.")
    }

    /// `count` jobs reached `status` (after a worker's report, a retry or an expiry).
    public func completed(kind: String, status: String, count: Int = 1) {
        let counter = results.withLock { counters in
            if let counter = counters[kind + "/" + status] { return counter }
            let counter = registry.makeCounter(
                name: "workfeed_job_results_total", labels: [("kind", kind), ("status", status)],
                help: "Jobs that reached a status after a report, a retry or an expiry.")
            counters[kind + "/" + status] = counter
            return counter
        }
        counter.increment(by: Int64(count))
    }

    /// A generated picture's render time, as its worker reported it.
    public func rendered(microseconds: UInt64) {
        renderDuration.recordNanoseconds(Int64(clamping: microseconds.multipliedReportingOverflow(by: 1000).partialValue))
    }

    /// A failure, by its stable code (`no-route`, `cache-full`, ...: a short word, never a path,
    /// so that each code is one series).
    public func failed(code: String) {
        let label = code.utf8.count <= 64 ? code : "other"
        registry.makeCounter(name: "workfeed_failures_total", labels: [("code", label)], help: "Job failures (and retries) by code.").increment()
    }

    /// Leases taken back from a worker: `silent`, `deadline`, `disconnected`, `restarted`.
    public func leasesExpired(_ count: Int, cause: String) {
        guard count > 0 else { return }
        registry.makeCounter(name: "workfeed_leases_expired_total", labels: [("cause", cause)], help: "Leases taken back from workers.")
            .increment(by: Int64(count))
    }

    /// Jobs by status, kind and theme, from the index.
    public func jobs(kind: String, theme: String, status: String, count: Int) {
        registry.makeGauge(
            name: "workfeed_jobs", labels: [("kind", kind), ("theme", theme), ("status", status)], help: "Jobs by status, from the index."
        ).set(Double(count))
    }

    /// Generated pictures by how much of them the basemap covered (`none`: no tileset covers the
    /// picture, so it shows the plain background), from the index.
    public func pictures(kind: String, theme: String, map: String, count: Int) {
        registry.makeGauge(
            name: "workfeed_pictures_generated", labels: [("kind", kind), ("theme", theme), ("map", map)],
            help: "Generated pictures by map coverage (full, partial, none), from the index."
        ).set(Double(count))
    }

    /// Jobs leased to workers now; the coordinator's loop sets it every turn.
    public func leased(_ count: Int) {
        leasedNow.store(count, ordering: .relaxed)
        leased.set(Double(count))
    }

    /// The queue's depth, from the index's count of pending jobs past any back-off, which includes
    /// the leased ones.
    public func queue(pendingReady: Int) {
        queueReady.set(Double(max(0, pendingReady - leasedNow.load(ordering: .relaxed))))
    }

    public func workers(_ count: Int) {
        workersConnected.set(Double(count))
    }
}
