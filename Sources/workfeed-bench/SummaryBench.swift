import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel

/// What keeping summaries costs an import (docs/summaries.md; issue 28: at most 10 % more), and
/// how long the index takes to read a year of weekly buckets of an owner with 20,000 workouts
/// (the gateway's part is deploy/bench-summaries.sh).
enum SummaryBench {
    static func run(_ options: BenchOptions) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-summary-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("summaries: imports with and without counting, and reads of weekly buckets, in \(directory.path)")
        try imports(directory: directory, runs: min(3, max(1, options.runs)))
        try reads(directory: directory)
    }

    /// 1,000 workouts of 1,000 points (heart rate every 5 s) imported 100 a transaction into a
    /// fresh index, with summaries and without, in turns; the best of each, in wall time and in
    /// the process's CPU time (user and system: on a machine shared with other builds the wall
    /// time also holds the time waited for a core).
    static func imports(directory: URL, runs: Int) throws {
        let workouts = (0..<1_000).map { IndexBench.workout($0, points: 1_000) }
        var best: [Bool: Double] = [:]
        var bestCPU: [Bool: Double] = [:]
        for run in 0..<(runs * 2) {
            let counting = run % 2 == 0
            let path = directory.appendingPathComponent("imports-\(run).sqlite").path
            let index = try WorkoutIndex(path: path, durability: .full, logger: Logger(label: "bench"))
            index.countsSummaries = counting
            let started = ContinuousClock.now
            let cpuStarted = processCPUSeconds()
            for first in stride(from: 0, to: workouts.count, by: 100) {
                _ = try index.write { transaction in
                    for number in first..<(first + 100) { _ = try transaction.importWorkout(workouts[number], owner: "bench") }
                }
            }
            let took = IndexBench.seconds(since: started)
            best[counting] = min(best[counting] ?? .infinity, took)
            bestCPU[counting] = min(bestCPU[counting] ?? .infinity, processCPUSeconds() - cpuStarted)
        }
        let with = best[true]!, without = best[false]!
        let cpuWith = bestCPU[true]!, cpuWithout = bestCPU[false]!
        print(
            String(
                format: "  import 1000 workouts of 1000 points, 100 a transaction (best of %d): %.3f s without summaries, %.3f s with (%+.1f %%)",
                runs, without, with, (with / without - 1) * 100))
        print(
            String(
                format: "  the same, process CPU time (best of %d): %.3f s without summaries, %.3f s with (%+.1f %%)", runs, cpuWithout, cpuWith,
                (cpuWith / cpuWithout - 1) * 100))
    }

    /// The process's CPU time so far, user and system, in seconds.
    static func processCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// A year of weekly buckets (53) for an owner with 20,000 workouts, from a read-only
    /// connection, as the read service answers SUMMARY: p50 and p99 of 500 reads.
    static func reads(directory: URL) throws {
        let path = directory.appendingPathComponent("reads.sqlite").path
        try IndexBench.makeIndex(at: path, workouts: 20_000, owner: "bench")
        let reader = try WorkoutIndex(readingFrom: path, logger: Logger(label: "bench"))
        var times: [Double] = []
        var buckets = 0
        for _ in 0..<500 {
            let started = ContinuousClock.now
            let report = try reader.read {
                try $0.summaries(
                    owner: "bench", period: .week, from: SummaryCalendar.day(year: 2021, month: 1, day: 1),
                    to: SummaryCalendar.day(year: 2021, month: 12, day: 31), activity: nil, defaults: .standard)
            }
            times.append(IndexBench.seconds(since: started) * 1000)
            buckets = report.buckets.count
        }
        times.sort()
        print(
            String(
                format: "  a year of weekly buckets (%d) of an owner with 20000 workouts, index read: p50 %.2f ms, p99 %.2f ms", buckets,
                times[times.count / 2], times[times.count * 99 / 100]))
    }
}
