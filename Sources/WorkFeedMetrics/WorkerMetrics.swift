public import Prometheus

/// A worker's metrics.
public final class WorkerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let renderDuration: DurationHistogram
    let busy: Gauge

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        renderDuration = registry.makeDurationHistogram(
            name: "workfeed_worker_render_duration_seconds",
            buckets: [.milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .seconds(1), .seconds(5)],
            help: "Time spent on each job: decode, draw, encode, write.")
        busy = registry.makeGauge(name: "workfeed_worker_jobs_in_hand", help: "Jobs this worker holds now.")
    }

    public func finished(outcome: String, microseconds: UInt64) {
        registry.makeCounter(name: "workfeed_worker_jobs_total", labels: [("outcome", outcome)], help: "Jobs finished, by outcome.").increment()
        renderDuration.recordNanoseconds(Int64(clamping: microseconds.multipliedReportingOverflow(by: 1000).partialValue))
    }

    public func inHand(_ count: Int) {
        busy.set(Double(count))
    }

    /// A generated picture and how much of it the basemap covered.
    public func drew(map: String) {
        registry.makeCounter(
            name: "workfeed_worker_pictures_total", labels: [("map", map)],
            help: "Pictures drawn, by map coverage (full, partial, none: the plain background)."
        ).increment()
    }

    /// The map tile cache's state, and its counts since the worker started.
    public func tileCache(residentBytes: Int, residentTiles: Int, hits: Int, misses: Int, broken: Int) {
        registry.makeGauge(name: "workfeed_worker_map_tiles_broken", help: "Map tiles found broken (bad gzip, protobuf or geometry) and left out since start.")
            .set(Double(broken))
        registry.makeGauge(name: "workfeed_worker_tile_cache_bytes", help: "Memory held by decoded map tiles.").set(Double(residentBytes))
        registry.makeGauge(name: "workfeed_worker_tile_cache_tiles", help: "Map tiles held (found, absent or broken).").set(Double(residentTiles))
        registry.makeGauge(name: "workfeed_worker_tile_cache_hits", help: "Map tile look-ups answered from memory.").set(Double(hits))
        registry.makeGauge(name: "workfeed_worker_tile_cache_misses", help: "Map tile look-ups that read a tileset.").set(Double(misses))
    }
}
