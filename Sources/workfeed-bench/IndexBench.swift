import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel

/// The index's own speed: how fast workouts go in, and how long a bulk enqueue of a million jobs
/// takes (the operator's `workctl enqueue --all` after a style change).
enum IndexBench {
    static func run(_ options: BenchOptions) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-index-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("index: inserts and bulk enqueue on a SQLite file in \(directory.path)")
        try inserts(directory: directory)
        try bulkEnqueue(directory: directory)
        try feedPages(directory: directory)
    }

    /// A distinct synthetic workout of `points` points, one segment, 1 Hz, with heart rate.
    static func workout(_ number: Int, points: Int) -> ImportedWorkout {
        let start = 1_600_000_000.0 + Double(number) * 3_600
        var route: [RoutePoint] = []
        route.reserveCapacity(points)
        var heartRate: [HeartRateSample] = []
        for i in 0..<points {
            let t = Double(i)
            route.append(
                RoutePoint(
                    latitude: 47 + Double(number % 100) * 0.01 + sin(t / 50) * 0.002, longitude: 8 + t * 0.00003,
                    elevation: 400 + sin(t / 30) * 5, time: Date(timeIntervalSince1970: start + t)))
            if i % 5 == 0 { heartRate.append(HeartRateSample(time: Date(timeIntervalSince1970: start + t), bpm: 120 + Double(i % 60))) }
        }
        return ImportedWorkout(
            source: .gpx, sourceID: "bench-\(number)", activity: .running, route: Route(segments: [route]), heartRate: heartRate,
            origin: "bench")
    }

    static func inserts(directory: URL) throws {
        let index = try WorkoutIndex(path: directory.appendingPathComponent("inserts.sqlite").path, durability: .full, logger: Logger(label: "bench"))
        let count = 2_000
        let points = 1_000
        let batch = 100
        let workouts = (0..<count).map { workout($0, points: points) }
        let started = ContinuousClock.now
        for first in stride(from: 0, to: count, by: batch) {
            _ = try index.write { transaction in
                for number in first..<min(count, first + batch) { _ = try transaction.importWorkout(workouts[number]) }
            }
        }
        let took = seconds(since: started)
        let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("inserts.sqlite").path)[.size] as? Int) ?? 0
        print(
            String(
                format:
                    "  insert %d workouts of %d points, %d per transaction (durability full): %.2f s, %.0f workouts/s, %.0f points/s, %.1f bytes/point on disk",
                count, points, batch, took, Double(count) / took, Double(count * points) / took, Double(size) / Double(count * points)))
    }

    static func bulkEnqueue(directory: URL) throws {
        let index = try WorkoutIndex(path: directory.appendingPathComponent("enqueue.sqlite").path, durability: .full, logger: Logger(label: "bench"))
        let workouts = 250_000
        let setup = ContinuousClock.now
        for first in stride(from: 0, to: workouts, by: 5_000) {
            _ = try index.write { transaction in
                for number in first..<min(workouts, first + 5_000) { _ = try transaction.importWorkout(workout(number, points: 2)) }
            }
        }
        print(String(format: "  setup: %d two-point workouts imported in %.1f s", workouts, seconds(since: setup)))
        let request = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark])
        let started = ContinuousClock.now
        let reply = try index.write { transaction in
            try transaction.enqueue(request, scales: [1]) { _, inputs in inputs.routeHash }
        }
        let took = seconds(since: started)
        print(
            String(
                format: "  enqueue --all, 2 kinds x 2 themes: %d jobs created in %.2f s (%.0f jobs/s)", reply.created, took,
                Double(reply.created) / took))
        let again = ContinuousClock.now
        let second = try index.write { transaction in
            try transaction.enqueue(request, scales: [1]) { _, inputs in inputs.routeHash }
        }
        print(String(format: "  the same enqueue again (all %d pending, nothing to create): %.2f s", second.alreadyPending, seconds(since: again)))
    }

    /// Reading the feed as the read service does for FEED: a page of 20 workouts, then their
    /// pictures in one query, page after page through an owner's 20,000 workouts (route and heatmap
    /// pictures queued for each), from a read-only connection. Every row becomes model values.
    static func feedPages(directory: URL) throws {
        let path = directory.appendingPathComponent("feed.sqlite").path
        let writer = try WorkoutIndex(path: path, durability: .normal, logger: Logger(label: "bench"))
        let workouts = 20_000
        for first in stride(from: 0, to: workouts, by: 5_000) {
            _ = try writer.write { transaction in
                for number in first..<min(workouts, first + 5_000) {
                    _ = try transaction.importWorkout(workout(number, points: 40), owner: "bench")
                }
            }
        }
        _ = try writer.write { transaction in
            try transaction.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light]), scales: [1]) { _, inputs in
                inputs.routeHash
            }
        }
        let reader = try WorkoutIndex(readingFrom: path, logger: Logger(label: "bench"))
        var rates: [Double] = []
        var pictures = 0
        for _ in 0..<5 {
            let started = ContinuousClock.now
            var pages = 0
            var cursor: String?
            repeat {
                let page = try reader.read { reader in
                    let page = try reader.feed(limit: 20, cursor: cursor, owner: "bench")
                    pictures = try reader.pictures(of: page.workouts.map(\.id)).count
                    return page
                }
                cursor = page.next
                pages += 1
            } while cursor != nil
            rates.append(Double(pages) / seconds(since: started))
        }
        rates.sort()
        print(
            String(
                format: "  feed pages of 20 (with their pictures) through %d workouts, 5 walks: median %.0f pages/s (%.0f–%.0f)",
                workouts, rates[2], rates[0], rates[4]))
        _ = pictures
    }

    /// Issue 23, finding 10: what a Prometheus scrape and `workctl enqueue --wait` (a STATUS four
    /// times a second) read, on an index of WORKFEED_BENCH_SCALE_JOBS (1,000,000) pending jobs
    /// (a quarter as many two-point workouts x route, heatmap x light, dark, of 100 owners), from a
    /// read-only connection as the read service and the gauges use: the oldest pending job, the
    /// ready count, the counts of all jobs, of one owner's, and of an `enqueue --all` selection,
    /// each as read now (indexes, kept counts) and by scanning every job as before schema v9.
    static func queueAtScale(_ options: BenchOptions) throws {
        let jobs = ProcessInfo.processInfo.environment["WORKFEED_BENCH_SCALE_JOBS"].flatMap { Int($0) } ?? 1_000_000
        let workouts = jobs / 4
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-scale-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("scale.sqlite").path
        print(
            "## scale (\(workouts) two-point workouts of 100 owners x route, heatmap x light, dark: \(workouts * 4) jobs pending; a read-only connection)"
        )
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let index = try WorkoutIndex(path: path, durability: .normal, logger: logger)
        let setup = ContinuousClock.now
        for first in stride(from: 0, to: workouts, by: 5_000) {
            _ = try index.write { transaction in
                for number in first..<min(workouts, first + 5_000) {
                    _ = try transaction.importWorkout(workout(number, points: 2), owner: "owner-\(number % 100)")
                }
            }
        }
        let enqueued = try index.write { transaction in
            try transaction.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]), scales: [1]) { _, inputs in
                inputs.routeHash
            }
        }
        print(String(format: "  setup: %d workouts imported and %d jobs queued in %.1f s", workouts, enqueued.created, seconds(since: setup)))
        let reader = try WorkoutIndex(readingFrom: path, logger: logger)
        let all = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark])
        func time(_ name: String, runs: Int = 9, _ body: (IndexReader) throws -> Void) throws -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                let started = ContinuousClock.now
                try reader.read(body)
                times.append(seconds(since: started) * 1_000)
            }
            times.sort()
            return times[runs / 2]
        }
        let measured: [(String, (IndexReader) throws -> Void, (IndexReader) throws -> Void)] = [
            ("oldest pending job (the gauge)", { _ = try $0.oldestPending() }, { _ = try $0.oldestPendingScanningEveryJob() }),
            ("ready count (STATUS, the gauge)", { _ = try $0.pendingReadyCount() }, { _ = try $0.pendingReadyCountScanningEveryJob() }),
            ("counts of every job (STATUS, the gauges)", { _ = try $0.statusCounts() }, { _ = try $0.statusCountsCountingEveryJob() }),
            (
                "counts of one owner's jobs (STATUS --owner)", { _ = try $0.statusCounts(owner: "owner-7") },
                { _ = try $0.statusCountsCountingEveryJob(owner: "owner-7") }
            ),
            (
                "counts of an enqueue --all selection (enqueue --wait, 4 a second)", { _ = try $0.statusCounts(of: all, scales: [1]) },
                { _ = try $0.statusCountsCountingEveryJob() }
            ),
        ]
        for (name, now, before) in measured {
            let after = try time(name, now)
            let scanning = try time(name, runs: 3, before)
            print(String(format: "  %@: %.3f ms (by scanning every job, as before: %.1f ms)", name, after, scanning))
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

extension IndexBench {
    /// An index at `path` holding `workouts` workouts of `owner`, each a short run (40 points with
    /// heart rate), an hour apart: the feed the gateway benchmark pages through.
    static func makeIndex(at path: String, workouts: Int, owner: String) throws {
        var logger = Logger(label: "workfeed.bench.index")
        logger.logLevel = .error
        let index = try WorkoutIndex(path: path, durability: .normal, logger: logger)
        let clock = ContinuousClock()
        let started = clock.now
        var first = 0
        while first < workouts {
            try index.write { transaction in
                for number in first..<min(workouts, first + 5_000) { _ = try transaction.importWorkout(workout(number, points: 40), owner: owner) }
            }
            first += 5_000
        }
        print("index: \(workouts) workouts of \(owner) written to \(path) in \(clock.now - started)")
    }
}
