import Foundation
import GRDB
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 28's "Done means": a generated owner with 5,000 workouts over three years, recorded in
/// two time zones, imported through the index's import path (the coordinator's IMPORT calls the
/// same ``IndexTransaction/importWorkout(_:owner:allowDuplicates:originalKept:now:replacedFile:)``;
/// going through ZeroMQ as well would only make this slower), compared bucket by bucket with an
/// independent reference in Python (Tests/Reference/summaries_reference.py, zoneinfo), in
/// Europe/Berlin weeks from Monday and, after a rebuild, in America/New_York weeks from Sunday;
/// then deletions and replacements bring every bucket back exactly.
@Suite(.serialized) struct SummaryReferenceTests {
    static let owner = "generated-owner"

    @Test func fiveThousandWorkoutsMatchThePythonReferenceAndComeBackExactly() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["WORKFEED_SUMMARY_SEED"] ?? "") ?? 20_261_128
        print("summary reference: seed \(seed) (WORKFEED_SUMMARY_SEED to replay)")
        var generator = GeneratedWorkouts(seed: seed)
        let workouts = generator.workouts(count: 5000)
        let temporary = try TemporaryIndex()
        let index = temporary.index
        try index.write { try $0.setOwnerSettings(OwnerSettings(timeZone: "Europe/Berlin", firstWeekday: .monday), owner: Self.owner) }
        var ids: [WorkoutID] = []
        for chunk in stride(from: 0, to: workouts.count, by: 500) {
            let replies = try index.write { transaction in
                try workouts[chunk..<min(chunk + 500, workouts.count)].map {
                    try transaction.importWorkout($0, owner: Self.owner, allowDuplicates: true)
                }
            }
            #expect(replies.allSatisfy { $0.result == .imported })
            ids += replies.map(\.id)
        }
        var samples = Dictionary(uniqueKeysWithValues: zip(ids, workouts.map(\.heartRate)))
        var recorded = Dictionary(uniqueKeysWithValues: zip(ids, workouts.map(\.device)))
        try compareWithReference(index, samples: samples, recorded: recorded, label: "Berlin, Monday")

        // A new time zone and first weekday: the owner's summaries are built again, in steps.
        try index.write { try $0.setOwnerSettings(OwnerSettings(timeZone: "America/New_York", firstWeekday: .sunday), owner: Self.owner) }
        #expect(try index.read { try $0.summaryRebuilds()[Self.owner] } != nil)
        var steps = 0
        while try index.write({ try $0.rebuildSummariesStep(limit: 700) }) != nil { steps += 1 }
        #expect(steps >= 8)
        #expect(try index.read { try $0.summaryRebuilds() }.isEmpty)
        try compareWithReference(index, samples: samples, recorded: recorded, label: "New York, Sunday")
        let before = try bucketRows(index)

        // Deleted and imported again: every bucket as it was.
        let gone = Array(ids.shuffled(using: &generator.random).prefix(500))
        _ = try index.write { try $0.delete(gone, owner: Self.owner) }
        #expect(try bucketRows(index) != before)
        let byID = Dictionary(uniqueKeysWithValues: zip(ids, workouts))
        let again = try index.write { transaction in
            try gone.map { try transaction.importWorkout(byID[$0]!, owner: Self.owner, allowDuplicates: true) }
        }
        #expect(again.allSatisfy { $0.result == .imported })
        #expect(try bucketRows(index) == before)

        // Replaced by other copies (other heart rate, other figures), checked against the
        // reference, then replaced by the first copies again: every bucket as it was.
        let changed = Array(ids.shuffled(using: &generator.random).prefix(300))
        var altered: [WorkoutID: ImportedWorkout] = [:]
        for id in changed { altered[id] = generator.altered(byID[id]!) }
        let replaced = try index.write { transaction in try changed.map { try transaction.importWorkout(altered[$0]!, owner: Self.owner) } }
        // Updated where the heart rate differs, refreshed where only the figures do (no samples).
        #expect(replaced.allSatisfy { $0.result == .updated || $0.result == .refreshed })
        #expect(replaced.filter { $0.result == .updated }.count > 200)
        for id in changed {
            samples[id] = altered[id]!.heartRate
            recorded[id] = altered[id]!.device
        }
        try compareWithReference(
            index, samples: samples, recorded: recorded, label: "New York, Sunday, 300 replaced, 500 deleted and imported again")
        let back = try index.write { transaction in try changed.map { try transaction.importWorkout(byID[$0]!, owner: Self.owner) } }
        #expect(back.allSatisfy { $0.result == .updated || $0.result == .refreshed })
        #expect(try bucketRows(index) == before)
    }

    /// Every bucket row of the index, as text: what "exactly as it was" compares.
    private func bucketRows(_ index: WorkoutIndex) throws -> [String] {
        try index.read { reader in
            try Row.fetchAll(reader.db, sql: "SELECT * FROM summary_bucket ORDER BY owner, period, start_day, activity").map(\.description)
        }
    }

    /// Writes the owner's feed (with each workout's heart-rate samples, and its heart rate as the
    /// generated device recorded it, before the feed rounds it, under `recorded`) and their day,
    /// week, month and year summaries over the generated years, and runs the Python reference on
    /// them.
    private func compareWithReference(
        _ index: WorkoutIndex, samples: [WorkoutID: [HeartRateSample]], recorded: [WorkoutID: DeviceSummary?], label: String
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var feed: [Any] = []
        var cursor: String?
        repeat {
            let page = try index.read { try $0.feed(limit: 1000, cursor: cursor, owner: Self.owner) }
            for record in page.workouts {
                let item = FeedItem(record: record, pictures: [], units: .metric, pictureSize: nil)
                var object = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(item)) as? [String: Any])
                object["samples"] = (samples[record.id] ?? []).map { [$0.time.timeIntervalSince1970, $0.bpm] }
                let device = recorded[record.id] ?? nil
                var figures: [String: Double] = [:]
                figures["heartRateAverage"] = device?.heartRateAverage
                figures["heartRateMax"] = device?.heartRateMax
                object["recorded"] = figures
                feed.append(object)
            }
            cursor = page.next
        } while cursor != nil
        #expect(feed.count == 5000)
        let feedPath = directory.appendingPathComponent("feed.json")
        try JSONSerialization.data(withJSONObject: feed).write(to: feedPath)
        var reports: [String] = []
        for period in SummaryPeriod.allCases {
            let report = try index.read {
                try $0.summaries(
                    owner: Self.owner, period: period, from: SummaryCalendar.day(year: 2022, month: 12, day: 31),
                    to: SummaryCalendar.day(year: 2026, month: 1, day: 1), activity: nil, defaults: .standard)
            }
            #expect(report.rebuilding == nil)
            let path = directory.appendingPathComponent("\(period.rawValue).json")
            try JSONEncoder().encode(report).write(to: path)
            reports.append(path.path)
        }
        let result = try ReferenceScript.run([feedPath.path] + reports)
        print("summary reference (\(label)):\n\(result.output)")
        #expect(result.status == 0, "the Python reference differs (\(label)):\n\(result.output)")
    }
}

/// The Python reference script, run with the test venv's Python (var/test-python) or the system's.
enum ReferenceScript {
    static var root: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let venv = root.appendingPathComponent("var/test-python/bin/python3").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent("Tests/Reference/summaries_reference.py").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// Workouts of one owner from a seed: whole metres and seconds (so that the reference's floats
/// and the index's whole units agree exactly on ties), recorded in Europe/Berlin or
/// America/New_York by turns of a few months, with the awkward ones on purpose: across local
/// midnight, at local midnight, a second before it, and on both daylight-saving days of each zone.
struct GeneratedWorkouts {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int(random.next() % UInt64(range.count)) + range.lowerBound }

    mutating func workouts(count: Int) -> [ImportedWorkout] {
        let first = 1_672_617_600  // 2023-01-02T00:00:00Z
        let last = 1_767_052_800  // 2025-12-30T00:00:00Z
        var starts: [(Int, TimeZone)] = []
        // Local times that test the boundaries, in the zone they are local to.
        let awkward: [(String, TimeZone)] = [
            ("2024-03-30T23:30:00", Self.berlin), ("2024-03-31T00:00:00", Self.berlin), ("2024-03-31T03:30:00", Self.berlin),
            ("2024-03-31T23:59:59", Self.berlin), ("2024-10-27T02:30:00", Self.berlin), ("2024-10-27T23:45:00", Self.berlin),
            ("2024-10-26T23:59:59", Self.berlin), ("2025-03-30T00:00:00", Self.berlin), ("2025-10-26T00:00:00", Self.berlin),
            ("2024-03-09T23:30:00", Self.newYork), ("2024-03-10T00:00:00", Self.newYork), ("2024-03-10T03:30:00", Self.newYork),
            ("2024-11-03T00:00:00", Self.newYork), ("2024-11-03T01:30:00", Self.newYork), ("2024-11-02T23:59:59", Self.newYork),
            ("2025-03-09T23:59:59", Self.newYork), ("2025-11-02T23:00:00", Self.newYork), ("2023-12-31T23:30:00", Self.berlin),
            ("2024-12-31T23:59:59", Self.newYork), ("2024-02-29T23:30:00", Self.berlin),
        ]
        for (text, zone) in awkward { starts.append((Self.instant(local: text, zone), zone)) }
        while starts.count < count {
            let start = int(first...last)
            // Four months in one zone, then four in the other.
            let zone = (start - first) / (86_400 * 122) % 2 == 0 ? Self.berlin : Self.newYork
            starts.append((start, zone))
        }
        return starts.enumerated().map { number, start in workout(number: number, start: start.0, zone: start.1) }
    }

    static func instant(local text: String, _ zone: TimeZone) -> Int {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return Int(formatter.date(from: text)!.timeIntervalSince1970)
    }

    mutating func workout(number: Int, start: Int, zone: TimeZone) -> ImportedWorkout {
        let activity = ActivityType.allCases[int(0...3)]
        let elapsed = int(600...10_800)
        let distance = activity == .other && int(0...1) == 0 ? 0 : int(0...42_000)
        let moving = int(0...9) < 6 ? elapsed - int(0...300) : nil
        // Averages and maxima to a tenth, as Apple Health and some exports give them: the feed
        // rounds each to whole beats, the summaries their weighted average once (docs/summaries.md).
        let bpm = int(0...9) < 8 ? Double(int(1000...1700)) / 10 : nil
        let step = [5, 30, 90][int(0...2)]
        let heartRate = (0..<int(0...20)).map { k in
            HeartRateSample(time: Date(timeIntervalSince1970: Double(start + k * step)), bpm: Double(int(90...190)))
        }
        let startDate = Date(timeIntervalSince1970: Double(start))
        return ImportedWorkout(
            source: .fit, sourceID: "generated-\(number)", activity: activity, heartRate: heartRate, start: startDate,
            end: Date(timeIntervalSince1970: Double(start + elapsed)), timeZoneOffset: zone.secondsFromGMT(for: startDate),
            timeZone: zone.identifier, timeZoneSource: .file, origin: "generated \(number)",
            device: DeviceSummary(
                source: "generated", distance: Double(distance), duration: moving.map(Double.init), calories: Double(int(50...1500)),
                heartRateAverage: bpm, heartRateMax: bpm.map { $0 + Double(int(50...300)) / 10 }, elevationGain: Double(int(1...900))))
    }

    /// Another copy of a workout: the same number of samples with other readings, other figures.
    mutating func altered(_ workout: ImportedWorkout) -> ImportedWorkout {
        var copy = workout
        // As many samples (a copy with fewer would be refused as poorer: docs/import.md).
        copy.heartRate = workout.heartRate.map { HeartRateSample(time: $0.time, bpm: Double(int(90...190))) }
        copy.device?.distance = Double(int(1000...30_000))
        copy.device?.calories = Double(int(50...1500))
        copy.device?.heartRateMax = Double(int(1500...2000)) / 10
        return copy
    }
}
