import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl summary --owner ID --period month`: an owner's totals per bucket, as a table or
    /// as the JSON `GET /v1/summaries` answers.
    struct Summary: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an owner's totals per day, week, month or year, in their own calendar.",
            discussion: """
                Buckets start at local midnight in the owner's time zone (their setting, else that of their \
                latest workout); weeks on their first weekday (Monday unless set). --from and --to are local dates.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Whose workouts.")
        var owner: String

        @Option(name: .long, help: "day, week, month or year.")
        var period: String = "month"

        @Option(name: .long, help: "The first local date (2026-01-01); default: twelve buckets before --to.")
        var from: String?

        @Option(name: .long, help: "The last local date; default: today.")
        var to: String?

        @Option(name: .long, help: "Only this activity: running, walking, cycling or other.")
        var activity: String?

        @Flag(name: .long, help: "Print the JSON the gateway's /v1/summaries answers.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            _ = try request()
        }

        /// The SUMMARY the options ask for, checked.
        func request() throws -> SummaryRequest {
            guard let period = SummaryPeriod(rawValue: period) else {
                throw ValidationError("--period must be one of \(SummaryPeriod.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var kind: ActivityType?
            if let activity {
                guard let known = ActivityType(rawValue: activity) else {
                    throw ValidationError("--activity must be one of \(ActivityType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                kind = known
            }
            let request = SummaryRequest(owner: owner, period: period, from: from, to: to, activity: kind)
            do {
                _ = try request.days()
            } catch {
                throw ValidationError("--\(error.field): \(error.message)")
            }
            return request
        }

        func run() throws {
            var client = try connection.client()
            let request = try request()
            let report: SummaryReport = try talking { () throws(ControlClientError) in try client.request(.summary, request) }
            if json {
                try printJSON(report)
                return
            }
            for line in Self.table(report) { say(line) }
        }

        /// The report as lines: one row per bucket, the total first, then each activity.
        static func table(_ report: SummaryReport) -> [String] {
            var table = TextTable([
                ("start", .left), ("activity", .left), ("count", .right), ("distance", .right), ("moving", .right), ("elapsed", .right),
                ("climb", .right), ("kcal", .right), ("avg hr", .right), ("max hr", .right),
            ])
            func add(_ start: String, _ name: String, _ figures: SummaryFigures) {
                table.append([
                    // In the owner's units, as the report gives them.
                    start, name, String(figures.count), String(format: "%.2f ", figures.distance.value) + figures.distance.unit.rawValue,
                    duration(figures.movingTime), duration(figures.elapsedTime),
                    String(format: "%.0f ", figures.elevationGain.value) + figures.elevationGain.unit.rawValue,
                    figures.calories.map { String(format: "%.0f", $0) } ?? "-",
                    figures.heartRateAverage.map { String(format: "%.0f", $0) } ?? "-",
                    figures.heartRateMax.map { String(format: "%.0f", $0) } ?? "-",
                ])
            }
            for bucket in report.buckets {
                let day = String(bucket.start.prefix(10))
                add(day, "all", bucket.total)
                for name in bucket.activities.keys.sorted() where bucket.activities.count > 1 {
                    add("", name, bucket.activities[name]!)
                }
            }
            var lines = table.lines
            lines.append("time zone: \(report.timeZone), weeks from \(report.firstWeekday.name), anchor: \(report.anchor)")
            if let rebuild = report.rebuilding { lines.append("being built again: \(rebuild.done) of \(rebuild.total) workouts counted") }
            return lines
        }

        static func duration(_ seconds: Double) -> String {
            let whole = Int(seconds.rounded())
            return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
        }
    }
}
