import Foundation
import Logging
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedStore
import WorkFeedRender
import WorkFeedTiles
import WorkFeedWire
import WorkFeedStyle

/// One render thread: takes jobs from the queue, draws them, writes the PNG and reports the outcome
/// to the socket thread through its own inproc PUSH socket (sockets are not shared between threads).
struct RenderThread {
    let index: Int
    let queue: JobQueue
    let store: any PictureStore
    let basemap: Basemap?
    let context: ZMQContext
    let resultsEndpoint: String
    let metrics: WorkerMetrics
    let logger: Logger

    func run() {
        do {
            let socket = try ZMQSocket(context, type: .push)
            try socket.connect(resultsEndpoint)
            work(reportingTo: socket)
        } catch {
            logger.critical("render thread cannot reach its socket thread", metadata: ["thread": "\(index)", "error": "\(error)"])
        }
    }

    private func work(reportingTo socket: borrowing ZMQSocket) {
        let renderer = Renderer(basemap: basemap)
        var specCache: (bytes: [UInt8], spec: PictureSpec)?
        while let job = queue.pop() {
            let started = ContinuousClock.now
            let result = process(job, renderer: renderer, specCache: &specCache)
            let elapsed = ContinuousClock.now - started
            let micros = UInt64(max(0, elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000))
            let report = JobReport(
                lease: job.lease, outcome: result.outcome, detail: result.detail, renderMicroseconds: micros, map: result.map, code: result.code)
            do {
                try socket.send(WorkerMessage.status(report).frames)
            } catch {
                // The context is shutting down: the coordinator re-leases what was not reported.
                logger.warning("render thread could not hand in a result", metadata: ["lease": "\(job.lease)", "error": "\(error)"])
                return
            }
        }
    }

    /// What became of one job: for failures, the reason and its code.
    struct Result {
        var outcome: JobOutcome
        var detail: String
        var map: MapCoverage = .none
        var code: FailureCode?
    }

    /// The shared tile cache's counts, into the metrics.
    private func reportTileCache() {
        guard let basemap else { return }
        let cache = basemap.statistics
        metrics.tileCache(
            residentBytes: cache.residentBytes, residentTiles: cache.entryCount, hits: cache.hits, misses: cache.misses,
            evictions: cache.evictions, broken: cache.brokenTiles, unavailable: cache.unavailableTiles)
    }

    private func process(_ job: JobAssignment, renderer: Renderer, specCache: inout (bytes: [UInt8], spec: PictureSpec)?) -> Result {
        let spec: PictureSpec
        if let cached = specCache, cached.bytes == job.spec {
            spec = cached.spec
        } else {
            do {
                spec = try JSONDecoder().decode(PictureSpec.self, from: Data(job.spec))
                specCache = (job.spec, spec)
            } catch {
                return Result(outcome: .failedNoRetry, detail: "the job's picture spec cannot be read: \(error)", code: .specUnreadable)
            }
        }
        let route: Route
        let heartRate: [HeartRateSample]
        do {
            route = try SeriesCodec.decodeRoute(job.route)
            heartRate = try SeriesCodec.decodeHeartRate(job.heartRate)
        } catch {
            return Result(outcome: .failedNoRetry, detail: "the job's series cannot be read: \(error)", code: .seriesUnreadable)
        }
        let png: [UInt8]
        do {
            png = try renderer.render(spec: spec, route: route, heartRate: heartRate, cacheKey: job.cacheKey)
        } catch .basemapDiffers {
            // The coordinator refuses workers with another basemap at READY; a job can still
            // arrive here if the coordinator restarted with other tilesets. Another worker may draw it.
            let has = basemap?.identity.hash.prefix(12) ?? "none"
            return Result(
                outcome: .failedRetry, detail: "this worker's basemap (\(has)) differs from the job's (\(spec.basemap?.prefix(12) ?? "none"))",
                code: .basemapDiffers)
        } catch  where error.code.isEnvironmental {
            // A remote tileset that cannot give a tile now: drawn again later, never stored without its map.
            logger.warning("picture not drawn: its map cannot be fetched now", metadata: ["lease": "\(job.lease)", "reason": "\(error.reason)"])
            reportTileCache()
            return Result(outcome: .failedRetry, detail: error.reason, code: error.code)
        } catch {
            return Result(outcome: .failedNoRetry, detail: error.reason, code: error.code)
        }
        let statistics = renderer.lastStatistics
        metrics.drew(map: statistics.mapCoverage)
        reportTileCache()
        let picture = PictureID(workoutID: job.workoutID, kind: spec.kind, theme: spec.theme, scale: spec.scale)
        do {
            try store.put(png, for: picture, key: job.cacheKey)
            logger.debug("picture written", metadata: ["picture": "\(picture)", "bytes": "\(png.count)"])
            return Result(outcome: .generated, detail: job.cacheKey, map: statistics.mapCoverage)
        } catch {
            logger.warning("cache write failed", metadata: ["picture": "\(picture)", "error": "\(error)", "code": "\(error.code)"])
            return Result(outcome: .failedRetry, detail: error.reason, code: error.failureCode)
        }
    }
}
