import Foundation
import GRDB
import Logging
import Testing
import WorkFeedIndex
import WorkFeedModel

/// What the coordinator is given as its index is checked before it is used (issue 13, finding 6).
@Suite struct IndexFileTests {
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-indexfile-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        var index: String { url.appendingPathComponent("index.sqlite").path }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    func open(_ path: String) throws(IndexError) -> WorkoutIndex { try WorkoutIndex(path: path, logger: Logger(label: "test")) }

    @Test func aSecondWriterOnTheSameIndexIsRefusedNamingTheFirst() throws {
        let directory = try Directory()
        let first = try open(directory.index)
        do {
            _ = try open(directory.index)
            Issue.record("two writers on one index")
        } catch {
            #expect(error.description.contains("another coordinator (process \(getpid()))"), "\(error)")
            #expect(error.description.contains("index.sqlite.lock"), "\(error)")
        }
        _ = first
    }

    @Test func theLockGoesWithItsHolder() throws {
        let directory = try Directory()
        do { _ = try open(directory.index) }
        #expect(throws: Never.self) { _ = try open(directory.index) }
    }

    @Test func anEmptyFileIsNotSilentlyANewIndex() throws {
        let directory = try Directory()
        #expect(FileManager.default.createFile(atPath: directory.index, contents: Data()))
        do {
            _ = try open(directory.index)
            Issue.record("an empty file was taken as an index")
        } catch {
            #expect(error.description.contains("is empty (0 bytes)"), "\(error)")
            #expect(error.description.contains("restore it from a backup"), "\(error)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: directory.index)[.size] as? Int == 0, "the file was changed")
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        let directory = try Directory()
        try Data("<?xml version=\"1.0\"?><gpx>…</gpx>".utf8).write(to: URL(fileURLWithPath: directory.index))
        #expect {
            _ = try open(directory.index)
        } throws: { error in
            "\(error)".contains("not an SQLite database")
        }
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftAsItWas() throws {
        let directory = try Directory()
        try DatabaseQueue(path: directory.index).write { db in
            try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)")
        }
        do {
            _ = try open(directory.index)
            Issue.record("a foreign database was taken as an index")
        } catch {
            #expect(error.description.contains("an SQLite database of something else"), "\(error)")
            #expect(error.description.contains("invoices"), "\(error)")
        }
        let tables = try DatabaseQueue(path: directory.index).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables == ["invoices"])
    }

    /// Garbage in the middle of a real index: found at start, with what to do, instead of a
    /// coordinator that starts and then answers nothing.
    @Test func aDamagedIndexStopsTheStartWithWhatToDo() throws {
        let directory = try Directory()
        do {
            let index = try open(directory.index)
            try index.write { transaction in
                for number in 0..<400 { _ = try transaction.importWorkout(ImportedWorkout.twoPoint(number)) }
                _ = try transaction.enqueue(EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark]), scales: [1]) { _, _ in
                    "k"
                }
            }
        }
        // Folded into the main file (a clean stop does that too), then damaged in its middle.
        try DatabaseQueue(path: directory.index).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: directory.index))
        let size = try handle.seekToEnd()
        var random = SplitMix64(seed: 0xDA_4A9E)
        for page in stride(from: size / 3, to: size * 2 / 3, by: 4096 * 3) {
            try handle.seek(toOffset: page + 100)
            try handle.write(contentsOf: Data((0..<2000).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
        try handle.close()
        do {
            _ = try open(directory.index)
            Issue.record("a damaged index was opened")
        } catch {
            #expect(error.description.contains("is damaged"), "\(error)")
            #expect(error.description.contains("Restore the last backup"), "\(error)")
        }
    }
}
