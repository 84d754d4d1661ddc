import Prometheus
import WorkFeedModel

extension PrometheusCollectorRegistry {
    // WorkFeed's metric names are written whole (`workfeed_jobs_leased`), so each is handed to the
    // registry as a descriptor with the whole name and no unit of its own.

    func counter(_ name: String, labels: [(String, String)] = [], help: String) -> Counter {
        makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    func gauge(_ name: String, labels: [(String, String)] = [], help: String) -> Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    func histogram(_ name: String, labels: [(String, String)] = [], buckets: [Duration], help: String) -> DurationHistogram {
        makeDurationHistogram(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels, buckets: buckets)
    }

    /// `workfeed_build_info{version,build,renderer} 1`: which release runs where, for joins and for
    /// spotting a fleet half-way through an upgrade.
    func registerBuildInfo() {
        gauge(
            "workfeed_build_info",
            labels: [("version", BuildInfo.version), ("build", BuildInfo.configuration), ("renderer", "\(BuildInfo.rendererVersion)")],
            help: "Always 1; its labels say the release (version), debug or release build (build) and the renderer version."
        ).set(1.0)
    }
}

/// The buckets of both render histograms: most pictures take milliseconds, a large map seconds.
let renderBuckets: [Duration] = [
    .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250),
    .seconds(1), .seconds(5),
]

/// One metric for each value of a label, made once (the registry's lookup takes a lock and builds
/// a key): `[value: metric]`.
func eachOf<Value: Hashable, Metric>(_ values: [Value], _ make: (Value) -> Metric) -> [Value: Metric] {
    Dictionary(uniqueKeysWithValues: values.map { ($0, make($0)) })
}
