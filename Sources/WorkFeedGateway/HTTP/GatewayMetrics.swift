import Hummingbird
import Prometheus
import Synchronization
import WorkFeedStore

/// The gateway's Prometheus metrics, served at `GET /metrics`: requests by route, method and status
/// code, latency by route, bytes of response bodies by route, and the picture memory cache.
final class GatewayMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let requests = Mutex<[String: Counter]>([:])
    private let latencies = Mutex<[String: DurationHistogram]>([:])
    private let bytes = Mutex<[String: Counter]>([:])
    let memoryHits: Counter
    let memoryMisses: Counter
    let coordinatorFailures: Counter
    /// Picture reads that asked the index whether the key is current (not known so lately).
    let pictureQuestions: Counter
    /// Picture reads answered 429: their client had `pictures.reads_per_client` under way.
    let pictureReadsRefused: Counter
    /// Picture reads answered 503 because the picture store could not be read.
    let pictureReadFailures: Counter
    /// Names under `keys/` whose file was not served (a link, not a PNG, another key), by reason.
    let picturesRefused: [PictureStoreError.Refusal: Counter]

    init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        picturesRefused = Dictionary(
            uniqueKeysWithValues: PictureStoreError.Refusal.allCases.map { reason in
                (
                    reason,
                    registry.makeCounter(
                        descriptor: MetricNameDescriptor(
                            metricName: "workfeed_gateway_pictures_refused", unitName: "total",
                            helpText: "Picture requests answered 404 because what the cache holds under the key is not that picture."),
                        labels: [("reason", reason.rawValue)])
                )
            })
        memoryHits = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_picture_memory_hits", unitName: "total", helpText: "Pictures served from the gateway's memory."))
        memoryMisses = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_picture_memory_misses", unitName: "total", helpText: "Pictures read from the cache directory."))
        coordinatorFailures = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_coordinator_unavailable", unitName: "total",
                helpText: "Requests answered 503 because the coordinator did not answer."))
        pictureQuestions = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_picture_questions", unitName: "total",
                helpText: "Picture reads that asked the coordinator whether the key names a current picture before reading the store."))
        pictureReadsRefused = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_picture_reads_refused", unitName: "total",
                helpText: "Picture reads answered 429 because their client had pictures.reads_per_client reads under way."))
        pictureReadFailures = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "workfeed_gateway_picture_store_unavailable", unitName: "total",
                helpText: "Picture requests answered 503 because the picture store could not be read."))
    }

    static let buckets: [Duration] = [
        .microseconds(250), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    func record(route: String, method: String, status: Int, duration: Duration, bodyBytes: Int) {
        let key = "\(route)\u{0}\(method)\u{0}\(status)"
        let counter = requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    metricName: "workfeed_gateway_requests", unitName: "total", helpText: "HTTP requests answered, by route, method and status code."),
                labels: [("route", route), ("method", method), ("status", String(status))])
            counters[key] = counter
            return counter
        }
        counter.increment()
        let histogram = latencies.withLock { histograms in
            if let histogram = histograms[route] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: MetricNameDescriptor(
                    metricName: "workfeed_gateway_request_duration", unitName: "seconds",
                    helpText: "Time from a request's head to its response's head, by route."),
                labels: [("route", route)], buckets: Self.buckets)
            histograms[route] = histogram
            return histogram
        }
        histogram.record(duration)
        guard bodyBytes > 0 else { return }
        let byteCounter = bytes.withLock { counters in
            if let counter = counters[route] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    metricName: "workfeed_gateway_response_bytes", unitName: "total", helpText: "Bytes of response bodies, by route."),
                labels: [("route", route)])
            counters[route] = counter
            return counter
        }
        byteCounter.increment(by: Int64(bodyBytes))
    }
}

/// Records every request in ``GatewayMetrics``, after ``ProblemMiddleware`` has turned errors into
/// responses, so the status counted is the status sent.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: GatewayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let route = context.endpointPath ?? "unmatched"
        let size = response.body.contentLength ?? 0
        metrics.record(
            route: route == "NotFound" ? "unmatched" : route, method: request.method.rawValue, status: Int(response.status.code),
            duration: ContinuousClock.now - start, bodyBytes: size)
        return response
    }
}
