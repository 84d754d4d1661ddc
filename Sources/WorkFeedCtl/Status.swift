import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl status`: counts per status, kind, theme and scale; the queue; workers and their
    /// load. `--watch` redraws it.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show picture counts per kind, theme, scale and status, the queue, and the connected workers.",
            discussion: "With --watch, redraws the view every --interval seconds until Ctrl-C.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Count only this owner's workouts and pictures.")
        var owner: String?

        @Flag(name: .shortAndLong, help: "Redraw the view every --interval seconds (Ctrl-C stops).")
        var watch = false

        @Option(name: .long, help: "Seconds between redraws with --watch.")
        var interval: Double = 2

        /// Stops --watch after this many views (for tests).
        @Option(name: .long, help: .hidden)
        var views: Int?

        @Flag(name: .long, help: "Print as JSON (with --watch: one object a line).")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            guard interval >= 0.1, interval <= 3600 else { throw ValidationError("--interval must be 0.1 to 3600 seconds") }
        }

        func run() throws {
            var client = try connection.client()
            let terminal = isatty(STDOUT_FILENO) != 0
            var shown = 0
            repeat {
                if shown > 0 { Thread.sleep(forTimeInterval: interval) }
                let status: StatusReply = try talking { () throws(ControlClientError) in
                    try client.request(.status, StatusRequest(owner: owner))
                }
                shown += 1
                if json {
                    try printJSON(status, compact: watch)
                    continue
                }
                var lines = Self.view(status, now: Date())
                if watch {
                    let heading = "every \(String(format: "%g", interval))s: workctl status, coordinator \(connection.coordinator) (Ctrl-C stops)"
                    lines = [heading, ""] + lines
                    // On a terminal the view replaces the last one; in a file, views follow each other.
                    if terminal { FileHandle.standardOutput.write(Data("\u{1B}[H\u{1B}[2J".utf8)) } else if shown > 1 { lines.insert("", at: 0) }
                }
                for line in lines { say(line) }
            } while watch && views.map({ shown < $0 }) ?? true
        }

        /// The whole view, as lines.
        static func view(_ status: StatusReply, now: Date) -> [String] {
            func number(_ value: Int) -> String { ProgressMeter.grouped(value) }
            var lines: [String] = []
            var summary = ["workouts \(number(status.workouts))"]
            summary.append(JobStatus.allCases.map { "\($0.rawValue) \(number(status.total($0)))" }.joined(separator: ", "))
            lines.append(summary.joined(separator: "; "))
            var queue = ["leased \(number(status.leased))"]
            if let ready = status.ready { queue.append("ready \(number(ready))") }
            if let finished = status.finishedLastMinute {
                queue.append(
                    "finished in the last minute \(number(finished))" + (finished > 0 ? String(format: " (%.1f/s)", Double(finished) / 60) : ""))
            }
            if let oldest = status.oldestPending {
                queue.append("oldest pending \(ProgressMeter.format(seconds: max(0, now.timeIntervalSince(oldest))))")
            }
            lines.append("queue: " + queue.joined(separator: ", "))
            if let rebuilds = status.summaryRebuilds, !rebuilds.isEmpty {
                let owners = rebuilds.keys.sorted().map { owner in
                    let progress = rebuilds[owner]!
                    return "\(owner) \(number(progress.done))/\(number(progress.total)) workouts"
                }
                lines.append("summaries rebuilding: " + owners.joined(separator: ", "))
            }
            if let waiting = status.removalsWaiting, waiting > 0 {
                let since =
                    status.oldestRemovalWaiting.map { " (the oldest for \(ProgressMeter.format(seconds: max(0, now.timeIntervalSince($0)))))" } ?? ""
                lines.append(
                    "removals waiting: \(number(waiting)) the picture store refused\(since), tried again until done "
                        + "(docs/operations.md, \"Removals that wait\")")
            }
            if let coordinators = status.coordinators, !coordinators.isEmpty {
                let listed = coordinators.map { coordinator in
                    coordinator.id + " (" + (coordinator.leads ? "periodic work, " : "")
                        + "seen \(ProgressMeter.format(seconds: coordinator.silentSeconds)) ago)"
                }
                lines.append("coordinators: " + listed.joined(separator: ", "))
            }
            lines.append("")

            var pictures = TextTable([
                ("KIND", .left), ("THEME", .left), ("SCALE", .left), ("PENDING", .right), ("GENERATED", .right), ("FAILED", .right),
            ])
            struct Key: Hashable, Comparable {
                var kind: String, theme: String, scale: Int
                static func < (a: Key, b: Key) -> Bool { (a.kind, a.theme, a.scale) < (b.kind, b.theme, b.scale) }
            }
            let groups = Dictionary(grouping: status.counts) { Key(kind: $0.kind.rawValue, theme: $0.theme.rawValue, scale: $0.scale ?? 0) }
            for key in groups.keys.sorted() {
                let counts = groups[key]!
                func total(_ state: JobStatus) -> String { number(counts.filter { $0.status == state }.reduce(0) { $0 + $1.count }) }
                pictures.append([
                    key.kind, key.theme, key.scale == 0 ? "all" : "\(key.scale)x", total(.pending), total(.generated), total(.failedNoRetry),
                ])
            }
            if groups.isEmpty { lines.append("no pictures yet: workctl enqueue --all queues them") } else { lines += pictures.lines }
            lines.append("")

            let slots = status.workers.reduce(0) { $0 + $1.capacity }, busy = status.workers.reduce(0) { $0 + $1.busy }
            if status.workers.isEmpty {
                lines.append("no workers connected: pictures wait until a workfeed-worker connects")
            } else {
                lines.append("workers \(status.workers.count), slots \(busy)/\(slots) busy")
                lines += workerTable(status.workers).lines
            }
            return lines
        }

        static func workerTable(_ workers: [StatusReply.Worker]) -> TextTable {
            var table = TextTable([("WORKER", .left), ("BUSY", .right), ("SLOTS", .right), ("DONE", .right), ("LAST HEARD", .right)])
            for worker in workers.sorted(by: { $0.name < $1.name }) {
                table.append([
                    worker.name, "\(worker.busy)", "\(worker.capacity)", ProgressMeter.grouped(worker.done),
                    worker.silentSeconds.map { String(format: "%.1fs ago", $0) } ?? "-",
                ])
            }
            return table
        }
    }
}
