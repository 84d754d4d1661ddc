import Foundation
import Hummingbird
import Logging
import Prometheus

// /metrics served by Hummingbird 2, the gateway's HTTP stack, serving the same registry.
let registry = PrometheusCollectorRegistry()
for index in 0..<40 { registry.makeCounter(name: "workfeed_experiment_\(index)_total", labels: [("kind", "route")]).increment() }
let histogram = registry.makeDurationHistogram(name: "workfeed_experiment_seconds", labels: [], buckets: [.milliseconds(1), .milliseconds(10), .milliseconds(100), .seconds(1)])
histogram.recordNanoseconds(5_000_000)
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 9464
let router = Router()
router.get("/metrics") { _, _ -> Response in
    Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: Logger(label: "hb"))
try await app.runService()
