import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedWire
import WorkFeedWorker

/// The sample `workctl status` output in docs/operations.md is what the program prints: this runs
/// what the sample says it came from and compares, line by line (times and rates, which vary, are
/// masked).
@Suite(.serialized) struct StatusSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The first fenced block after `workctl status` — in docs/operations.md.
    static func documentedSample() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let heading = try #require(text.range(of: "`workctl status` — counts per status"))
        let open = try #require(text.range(of: "```\n", range: heading.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```\n", range: open.upperBound..<text.endIndex))
        return text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Rates and times vary from run to run: masked on both sides. So does the count of jobs
    /// finished in the last minute, which is all of them only when the run took under a minute
    /// (a loaded machine takes longer): checked on its own, against the jobs done.
    static func masked(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: #"\(\d+(\.\d+)?/s\)"#, with: "(R/s)", options: .regularExpression)
                .replacingOccurrences(of: #"in the last minute \d+"#, with: "in the last minute N", options: .regularExpression)
                .replacingOccurrences(of: #"\d+(\.\d+)?s ago"#, with: "Ts ago", options: .regularExpression)
        }
    }

    @Test func theDocumentedStatusSampleIsWhatStatusPrints() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let worker = try system.startWorker(name: "render-1") { $0.renderThreads = 2 }
        defer { worker.stop() }
        let at = ["--coordinator", system.endpoints.control]
        #expect(try WorkCtlProcess.run(["import", Self.root.appendingPathComponent("deploy/samples").path] + at).status == 0)
        let enqueued = try WorkCtlProcess.run(["enqueue", "--all", "--kind", "route,heatmap", "--theme", "light,dark", "--wait"] + at)
        #expect(enqueued.status == 2, "\(enqueued.output)")
        let status = try WorkCtlProcess.run(["status"] + at)
        #expect(status.status == 0)
        let printed = Self.masked(status.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        let documented = Self.masked(try Self.documentedSample())
        let lastMinute = status.output.firstMatch(of: /finished in the last minute (\d+)/).flatMap { Int($0.1) }
        #expect(lastMinute.map { (1...38).contains($0) } == true, "finished in the last minute: \(String(describing: lastMinute)) of 38 done")
        #expect(
            printed == documented,
            "docs/operations.md shows:\n\(documented.joined(separator: "\n"))\nworkctl status prints:\n\(printed.joined(separator: "\n"))")
    }
}
