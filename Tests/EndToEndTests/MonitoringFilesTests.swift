import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire
import WorkFeedWorker
import Yams

/// The Grafana dashboard and the Prometheus alert rules in deploy/ ask only for metrics a running
/// system serves: a renamed or removed metric fails here, not silently on an operator's screen.
@Suite(.serialized) struct MonitoringFilesTests {
    /// The repository's root, from this file's place in it (Tests/EndToEndTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let dashboard = root.appendingPathComponent("deploy/grafana/workfeed-dashboard.json")
    static let alerts = root.appendingPathComponent("deploy/prometheus/workfeed-alerts.yaml")

    @Test func everyMetricTheDashboardAndTheAlertsUseIsServed() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        let worker = try system.startWorker(name: "scraped") { $0.metricsListen = "127.0.0.1:0" }
        defer { worker.stop() }
        // Some work first, so that what only appears once something happened would have appeared.
        var client = try system.client()
        _ = try importFixture("strava_run_2015_short_gpxtpx-hr.gpx", into: &client)
        let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light]))
        let coordinatorURL = try #require(system.endpoints.metrics)
        for _ in 0..<100 {
            let status: StatusReply = try client.request(.status, [String: String]())
            if status.total(.pending) == 0 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let workerURL = try #require(worker.metricsURL)
        let families = Self.families(try httpGet(coordinatorURL).body).merging(Self.families(try httpGet(workerURL).body)) { first, _ in first }

        let dashboardNames = Self.metricNames(in: try Self.dashboardExpressions())
        let alertNames = Self.metricNames(in: try Self.alertExpressions())
        #expect(dashboardNames.count >= 15, "the dashboard's expressions were not found: \(dashboardNames.sorted())")
        #expect(alertNames.count >= 4, "the alert rules' expressions were not found: \(alertNames.sorted())")
        for name in dashboardNames.union(alertNames).sorted() {
            let served = Self.isServed(name, families: families)
            #expect(served, "\(name) is used in deploy/ but no WorkFeed process serves it; served: \(families.keys.sorted())")
        }
        // What the issue asks the dashboard to show.
        for name in [
            "workfeed_jobs", "workfeed_job_results_total", "workfeed_render_duration_seconds_bucket", "workfeed_oldest_pending_age_seconds",
            "workfeed_workers_connected", "workfeed_worker_slots", "workfeed_worker_slots_busy", "workfeed_failures_total",
            "workfeed_imports_total", "workfeed_worker_tile_cache_hits_total",
        ] {
            #expect(dashboardNames.contains(name), "the dashboard does not show \(name)")
        }
    }

    /// Each alert has what Alertmanager routes and shows by, and a `for` that keeps one bad
    /// scrape from paging anyone.
    @Test func alertRulesAreComplete() throws {
        let rules = try Self.alertRules()
        #expect(
            Set(rules.compactMap { $0["alert"] as? String }) == [
                "WorkFeedQueueStuck", "WorkFeedFailureRateHigh", "WorkFeedNoWorkers", "WorkFeedOldestPendingTooOld",
            ])
        for rule in rules {
            let name = rule["alert"] as? String ?? "?"
            #expect((rule["expr"] as? String)?.isEmpty == false, "\(name): expr")
            #expect(rule["for"] is String, "\(name): for")
            #expect(["critical", "warning"].contains((rule["labels"] as? [String: Any])?["severity"] as? String), "\(name): labels.severity")
            #expect((rule["annotations"] as? [String: Any])?["summary"] is String, "\(name): annotations.summary")
        }
    }

    /// Every panel's query names the Prometheus data source chosen on the dashboard, and ids are unique.
    @Test func dashboardPanelsAreWellFormed() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.dashboard)) as? [String: Any])
        #expect(json["uid"] as? String == "workfeed")
        let panels = try #require(json["panels"] as? [[String: Any]])
        let ids = panels.compactMap { $0["id"] as? Int }
        #expect(ids.count == panels.count && Set(ids).count == ids.count)
        for panel in panels where panel["type"] as? String != "row" {
            let title = panel["title"] as? String ?? "?"
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty, "\(title): no query")
            for target in targets {
                #expect((target["datasource"] as? [String: Any])?["uid"] as? String == "${datasource}", "\(title): data source")
            }
        }
    }

    // MARK: - Reading the files

    /// Every `expr` in the dashboard (panels, rows' panels) and every query of its variables.
    static func dashboardExpressions() throws -> [String] {
        var found: [String] = []
        func walk(_ value: Any, key: String?) {
            if let object = value as? [String: Any] {
                for (key, value) in object { walk(value, key: key) }
            } else if let array = value as? [Any] {
                for item in array { walk(item, key: key) }
            } else if let text = value as? String, ["expr", "query", "definition"].contains(key) {
                found.append(text)
            }
        }
        walk(try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)), key: nil)
        return found
    }

    static func alertRules() throws -> [[String: Any]] {
        let text = try String(contentsOf: alerts, encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let groups = try #require(document["groups"] as? [[String: Any]])
        return groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
    }

    static func alertExpressions() throws -> [String] {
        try alertRules().compactMap { $0["expr"] as? String }
    }

    /// The identifiers in PromQL expressions that start with `workfeed_`.
    static func metricNames(in expressions: [String]) -> Set<String> {
        var names = Set<String>()
        for expression in expressions {
            var rest = Substring(expression)
            while let start = rest.range(of: "workfeed_") {
                // Only a whole identifier: not preceded by a letter, digit, '_' or ':'.
                if start.lowerBound > rest.startIndex, isIdentifier(rest[rest.index(before: start.lowerBound)]) {
                    rest = rest[start.upperBound...]
                    continue
                }
                let name = rest[start.lowerBound...].prefix(while: isIdentifier)
                names.insert(String(name))
                rest = rest[name.endIndex...]
            }
        }
        return names
    }

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == ":")
    }

    /// The metric families in Prometheus text format, by name, with their type (`# TYPE name type`).
    static func families(_ body: String) -> [String: String] {
        var families: [String: String] = [:]
        for line in body.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            if parts.count == 4 { families[String(parts[2])] = String(parts[3]) }
        }
        return families
    }

    /// Whether `name` is a family, or one of a family's series: a histogram's (or summary's)
    /// `_bucket`, `_sum` and `_count`, a counter's `_total` when the family is named without it.
    static func isServed(_ name: String, families: [String: String]) -> Bool {
        if families[name] != nil { return true }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let type = families[String(name.dropLast(suffix.count))]
            if type == "histogram" || (type == "summary" && suffix != "_bucket") { return true }
        }
        if name.hasSuffix("_total"), families[String(name.dropLast("_total".count))] == "counter" { return true }
        return false
    }
}
