import Foundation
import Logging
import Prometheus

// WorkFeedMetrics' hand-written server (MetricsServer.swift, linked to the real file), serving a registry like a worker's.
let registry = PrometheusCollectorRegistry()
for index in 0..<40 { registry.makeCounter(name: "workfeed_experiment_\(index)_total", labels: [("kind", "route")]).increment() }
let histogram = registry.makeDurationHistogram(name: "workfeed_experiment_seconds", labels: [], buckets: [.milliseconds(1), .milliseconds(10), .milliseconds(100), .seconds(1)])
histogram.recordNanoseconds(5_000_000)
let port = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "9464"
let server = try MetricsServer(listen: "127.0.0.1:\(port)", registry: registry, logger: Logger(label: "hand"))
while true { Thread.sleep(forTimeInterval: 3600) }
