public import Prometheus
import Synchronization
public import WorkFeedModel

/// A worker's metrics. Safe to update from its render threads and socket thread while the HTTP
/// thread scrapes.
public final class WorkerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let renderDuration: DurationHistogram
    private let busy: Gauge
    private let pictures: [MapCoverage: Counter]
    private let tileCacheBytes: Gauge
    private let tileCacheTiles: Gauge
    private let tileCacheHits: Counter
    private let tileCacheMisses: Counter
    private let tileCacheEvictions: Counter
    private let mapTilesBroken: Counter
    private let mapTilesUnavailable: Counter
    /// The tile cache's counts as last added to the counters. The render threads share one cache
    /// and report its counts since start, each when it finishes a picture, in any order: only what
    /// a report has beyond the last one counted is added, so a counter never goes back.
    private let tileCacheCounted = Mutex(TileCacheCounts())

    private struct TileCacheCounts {
        var hits = 0
        var misses = 0
        var evictions = 0
        var broken = 0
        var unavailable = 0
    }

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        registry.registerBuildInfo()
        renderDuration = registry.histogram(
            "workfeed_worker_render_duration_seconds", buckets: renderBuckets, help: "Time spent on each job: decode, draw, encode, write.")
        busy = registry.gauge("workfeed_worker_jobs_in_hand", help: "Jobs this worker holds now.")
        pictures = eachOf(MapCoverage.allCases) { map in
            registry.counter(
                "workfeed_worker_pictures_total", labels: [("map", map.rawValue)],
                help: "Pictures drawn, by map coverage (full, partial, none: the plain background).")
        }
        tileCacheBytes = registry.gauge("workfeed_worker_tile_cache_bytes", help: "Memory held by decoded map tiles.")
        tileCacheTiles = registry.gauge("workfeed_worker_tile_cache_tiles", help: "Map tiles held (found, absent or broken).")
        tileCacheHits = registry.counter("workfeed_worker_tile_cache_hits_total", help: "Map tile look-ups answered from memory.")
        tileCacheMisses = registry.counter("workfeed_worker_tile_cache_misses_total", help: "Map tile look-ups that read a tileset.")
        tileCacheEvictions = registry.counter(
            "workfeed_worker_tile_cache_evictions_total", help: "Map tiles dropped from memory to stay within basemap.cache_mb.")
        mapTilesBroken = registry.counter(
            "workfeed_worker_map_tiles_broken_total", help: "Map tiles found broken (bad gzip, protobuf or geometry) and left out.")
        mapTilesUnavailable = registry.counter(
            "workfeed_worker_map_tiles_unavailable_total",
            help: "Map tiles a tileset by URL could not give (no answer, a timeout, HTTP 5xx); their pictures wait, not drawn without them.")
    }

    /// A job finished: `outcome` is one of the protocol's few outcomes (generated, failed-retry,
    /// failed-no-retry).
    public func finished(outcome: String, microseconds: UInt64) {
        registry.counter("workfeed_worker_jobs_total", labels: [("outcome", outcome)], help: "Jobs finished, by outcome.").increment()
        renderDuration.recordNanoseconds(Int64(clamping: microseconds.multipliedReportingOverflow(by: 1000).partialValue))
    }

    public func inHand(_ count: Int) {
        busy.set(Double(count))
    }

    /// A generated picture and how much of it the basemap covered.
    public func drew(map: MapCoverage) {
        pictures[map]?.increment()
    }

    /// The map tile cache's state, and its counts since the worker started.
    public func tileCache(
        residentBytes: Int, residentTiles: Int, hits: Int, misses: Int, evictions: Int, broken: Int, unavailable: Int = 0
    ) {
        tileCacheCounted.withLock { counted in
            // Under the lock, so that two threads' reports are added one after the other.
            func add(_ total: Int, _ last: inout Int, to counter: Counter) {
                guard total > last else { return }
                counter.increment(by: Int64(total - last))
                last = total
            }
            add(hits, &counted.hits, to: tileCacheHits)
            add(misses, &counted.misses, to: tileCacheMisses)
            add(evictions, &counted.evictions, to: tileCacheEvictions)
            add(broken, &counted.broken, to: mapTilesBroken)
            add(unavailable, &counted.unavailable, to: mapTilesUnavailable)
            tileCacheBytes.set(Double(residentBytes))
            tileCacheTiles.set(Double(residentTiles))
        }
    }
}
