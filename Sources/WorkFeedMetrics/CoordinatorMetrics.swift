public import Prometheus
import Synchronization
public import WorkFeedModel

/// The coordinator's metrics. Safe to update from the index thread while the HTTP thread scrapes.
///
/// Every label takes its values from a closed set (a kind, a status, a failure code this version
/// knows, an import result, a ``LeaseLoss``), and every series of those sets is registered at 0
/// when the metrics are made: a rate over a counter that has not moved yet is 0, not "no data",
/// and no value a worker or a client sends can add a series.
public final class CoordinatorMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let renderDuration: [PictureKind: DurationHistogram]
    private let workersConnected: Gauge
    private let workerSlots: Gauge
    private let workerSlotsBusy: Gauge
    private let queueReady: Gauge
    private let leased: Gauge
    private let oldestPendingAge: Gauge
    private let removalsWaiting: Gauge
    private let oldestRemovalAge: Gauge
    private let results: [PictureKind: [JobStatus: Counter]]
    private let failures: [String: Counter]
    private let imports: [ImportResult: Counter]
    private let deletes: Counter
    private let leaseLosses: [LeaseLoss: Counter]
    private let repliesDropped: [ReplyDrop: Counter]
    private let replyBytesQueued: Gauge
    private let controlClients: Gauge
    private let clientsRefused: Counter
    /// Jobs leased now, as the dispatcher last set it (leases live in its memory, not in the index).
    private let leasedNow = Atomic<Int>(0)

    /// Why leases were taken back from a worker (`workfeed_leases_expired_total{cause}`).
    public enum LeaseLoss: String, Sendable, Hashable, CaseIterable {
        /// The job was not reported within `jobs.deadline_seconds`.
        case deadline
        /// The worker sent nothing for `heartbeat.liveness` intervals.
        case silent
        /// The worker said DISCONNECT (its jobs go back without an attempt counted).
        case disconnected
        /// The worker said READY again: it restarted.
        case restarted
        /// A JOB could not be sent to the worker.
        case unreachable
        /// The worker was set aside for failing where others succeeded.
        case setAside = "set-aside"
    }

    /// Why a control reply was dropped (`workfeed_control_replies_dropped_total{reason}`).
    public enum ReplyDrop: String, Sendable, Hashable, CaseIterable {
        /// The replies waiting over all clients would pass `control.max_queued_replies_mb`.
        case budget
        /// The client has as many replies waiting as one client may (twice `control.max_in_flight`).
        case client
        /// The client is gone.
        case gone
    }

    /// The label of failures whose code this version does not know (``FailureCode/known``).
    public static let otherFailureCode = "other"

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        registry.registerBuildInfo()
        renderDuration = eachOf(PictureKind.allCases) { kind in
            registry.histogram(
                "workfeed_render_duration_seconds", labels: [("kind", kind.rawValue)], buckets: renderBuckets,
                help: "Time workers spent drawing and encoding each generated picture, as they report it, by kind.")
        }
        workersConnected = registry.gauge("workfeed_workers_connected", help: "Workers connected now.")
        workerSlots = registry.gauge(
            "workfeed_worker_slots", help: "Jobs the connected workers can hold at once: the sum of their capacities.")
        workerSlotsBusy = registry.gauge(
            "workfeed_worker_slots_busy", help: "Jobs the connected workers hold now (leased to them and not yet reported).")
        queueReady = registry.gauge("workfeed_queue_ready", help: "Pending jobs ready to be leased (not leased, not backing off).")
        leased = registry.gauge("workfeed_jobs_leased", help: "Jobs leased to workers now.")
        oldestPendingAge = registry.gauge(
            "workfeed_oldest_pending_age_seconds",
            help: "Seconds since the longest-waiting pending job became pending or was last retried; 0 when none is pending.")
        removalsWaiting = registry.gauge(
            "workfeed_removals_waiting", help: "Removals the picture store refused, kept in the index and tried again until done.")
        oldestRemovalAge = registry.gauge(
            "workfeed_oldest_removal_waiting_age_seconds", help: "Seconds since the oldest removal that waits first failed; 0 when none waits.")
        results = eachOf(PictureKind.allCases) { kind in
            eachOf(JobStatus.allCases) { status in
                registry.counter(
                    "workfeed_job_results_total", labels: [("kind", kind.rawValue), ("status", status.rawValue)],
                    help: "Jobs that reached a status after a report, a retry or an expiry (pending: retried).")
            }
        }
        failures = eachOf(FailureCode.known.map(\.rawValue) + [Self.otherFailureCode]) { code in
            registry.counter(
                "workfeed_failures_total", labels: [("code", code)],
                help: "Job failures (and retries) by code; codes this version does not know are counted as other.")
        }
        imports = eachOf(ImportResult.allCases) { result in
            registry.counter(
                "workfeed_imports_total", labels: [("result", result.rawValue)],
                help: "Workouts sent to IMPORT, by what became of them, counted once the import has committed.")
        }
        deletes = registry.counter(
            "workfeed_deletes_total", help: "Workouts deleted (with their pictures), counted once the deletion has committed.")
        leaseLosses = eachOf(LeaseLoss.allCases) { cause in
            registry.counter("workfeed_leases_expired_total", labels: [("cause", cause.rawValue)], help: "Leases taken back from workers.")
        }
        repliesDropped = eachOf(ReplyDrop.allCases) { reason in
            registry.counter(
                "workfeed_control_replies_dropped_total", labels: [("reason", reason.rawValue)],
                help:
                    "Control replies dropped unsent: past the bytes all clients may have waiting, past one client's bound, or to a client that is gone."
            )
        }
        replyBytesQueued = registry.gauge(
            "workfeed_control_reply_bytes_queued",
            help: "Bytes of control replies waiting for clients that do not read them fast enough, held by the coordinator or its socket.")
        controlClients = registry.gauge(
            "workfeed_control_clients", help: "Control clients with requests in flight or replies waiting (counted against control.max_clients).")
        clientsRefused = registry.counter(
            "workfeed_control_clients_refused_total", help: "Requests of new control clients refused because control.max_clients were in flight.")
    }

    /// Control replies were dropped unsent.
    public func repliesDropped(_ count: Int, reason: ReplyDrop) {
        repliesDropped[reason]?.increment(by: Int64(count))
    }

    /// The bytes of control replies waiting now, and the control clients counted against the bound.
    public func controlQueue(replyBytes: Int, clients: Int) {
        replyBytesQueued.set(Double(replyBytes))
        controlClients.set(Double(clients))
    }

    /// A new control client's request was refused: too many clients.
    public func clientRefused() {
        clientsRefused.increment()
    }

    /// `count` jobs reached `status` (after a worker's report, a retry or an expiry).
    public func completed(kind: PictureKind, status: JobStatus, count: Int = 1) {
        results[kind]?[status]?.increment(by: Int64(count))
    }

    /// A generated picture's render time, as its worker reported it.
    public func rendered(kind: PictureKind, microseconds: UInt64) {
        renderDuration[kind]?.recordNanoseconds(Int64(clamping: microseconds.multipliedReportingOverflow(by: 1000).partialValue))
    }

    /// A failure (or a retry), by its code: one this version knows, or `other`. The reason, which
    /// may name a path, an errno or a worker, is never a label.
    public func failed(code: FailureCode) {
        failures[Self.label(for: code)]?.increment()
    }

    /// The `code` label a failure is counted under.
    public static func label(for code: FailureCode) -> String {
        FailureCode.known.contains(code) ? code.rawValue : otherFailureCode
    }

    /// Leases taken back from a worker.
    public func leasesExpired(_ count: Int, cause: LeaseLoss) {
        guard count > 0 else { return }
        leaseLosses[cause]?.increment(by: Int64(count))
    }

    /// `count` IMPORTs whose transaction committed with `result`.
    public func imported(_ result: ImportResult, count: Int = 1) {
        imports[result]?.increment(by: Int64(count))
    }

    /// `count` workouts deleted by a committed DELETE.
    public func deleted(workouts count: Int) {
        guard count > 0 else { return }
        deletes.increment(by: Int64(count))
    }

    /// Jobs by status, kind and theme, from the index.
    public func jobs(kind: String, theme: String, status: String, count: Int) {
        registry.gauge("workfeed_jobs", labels: [("kind", kind), ("theme", theme), ("status", status)], help: "Jobs by status, from the index.")
            .set(Double(count))
    }

    /// Generated pictures by how much of them the basemap covered (`none`: no tileset covers the
    /// picture, so it shows the plain background), from the index.
    public func pictures(kind: String, theme: String, map: String, count: Int) {
        registry.gauge(
            "workfeed_pictures_generated", labels: [("kind", kind), ("theme", theme), ("map", map)],
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

    /// The removals that wait in the index (docs/operations.md, "Removals that wait").
    public func removals(waiting: Int, oldestAgeSeconds: Double) {
        removalsWaiting.set(Double(waiting))
        oldestRemovalAge.set(max(0, oldestAgeSeconds))
    }

    /// How long the longest-waiting pending job has waited, in seconds (0 when none is pending).
    public func oldestPending(ageSeconds: Double) {
        oldestPendingAge.set(max(0, ageSeconds))
    }

    /// The connected workers, the jobs they can hold at once, and the jobs they hold.
    public func workers(connected: Int, slots: Int, busy: Int) {
        workersConnected.set(Double(connected))
        workerSlots.set(Double(slots))
        workerSlotsBusy.set(Double(busy))
    }
}
