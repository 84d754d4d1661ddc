import Foundation
import GRDB
public import Logging
public import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// The workout index: one SQLite file (WAL) holding workouts, their series, picture jobs and the
/// change anchors. Only the coordinator writes it, from its index thread; its read service and
/// metrics read it through read-only connections (``init(readingFrom:logger:)``).
///
/// Writes go through ``write(_:)``, which runs one transaction: the coordinator gathers everything
/// one batch of messages changed (statuses, imports, leases) into a single call.
public final class WorkoutIndex {
    let queue: DatabaseQueue
    let logger: Logger
    /// The last anchor handed out. Anchors only go up; a rolled-back transaction leaves a gap.
    var lastAnchor: Int64
    /// The last anchor committed.
    public var anchor: Int64 { lastAnchor }
    /// The jobs out with workers, as of the last committed transaction.
    public private(set) var leases = LeaseTable()
    /// The heart-rate zones of owners who set none, for summaries' time in zones (the
    /// coordinator sets its configured ones before its first write).
    public var summaryZoneDefaults = SummaryZoneDefaults.standard
    /// Whether workouts' changes are counted in summaries. Always, but for workfeed-bench's
    /// measure of what counting costs (`summaries` group); an index written without is wrong.
    public var countsSummaries = true

    /// How durable each transaction is.
    public enum Durability: String, Sendable, CaseIterable {
        /// Every committed transaction survives a power loss (fsync at each commit).
        case full
        /// Committed transactions survive a process crash; the last ones may be lost on power loss.
        case normal
    }

    /// The lock file beside the index that only one writer holds (see ``IndexLock``); `nil` for
    /// a read-only connection.
    private let lock: IndexLock?

    /// Opens (creating if needed) the index at `path` and brings its schema up to date.
    ///
    /// Before anything is written: takes the index's lock (a second coordinator on the same index
    /// stops here), refuses a file that is empty, not SQLite, or an SQLite database of something
    /// else, and checks the file with `PRAGMA quick_check` (a damaged index stops here, with what
    /// to do, instead of starting and then failing every request).
    /// - Throws: ``IndexError`` when the file cannot be opened, is locked by another process, is not
    ///   a WorkFeed index, is damaged, or a migration fails (nothing is changed then).
    /// - Parameter defaultOwner: the owner the "v7: owners" migration gives workouts stored before
    ///   owners existed (configuration's `owners.default`); used once, when that migration runs.
    public init(path: String, durability: Durability = .full, defaultOwner: String = Owner.defaultName, logger: Logger) throws(IndexError) {
        self.logger = logger
        do {
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw IndexError(.unavailable, "cannot make the index's directory for \(path)", cause: error)
        }
        lock = try IndexLock(indexPath: path)
        try Self.refuseWhatIsNotAnIndexFile(path)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            // 64 MiB of page cache (SQLite's default is 2 MiB): the job queue, the jobs being
            // recorded and the workouts being leased stay in memory instead of being read again
            // from the file system for every job.
            try db.execute(sql: "PRAGMA cache_size = -65536")
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw IndexError.damaged(path, detail: "\(error)")
        } catch {
            throw IndexError(.unavailable, "cannot open the index at \(path)", cause: error)
        }
        self.queue = queue
        try Self.check(queue, path: path, logger: logger)
        do {
            try Self.migrator(defaultOwner: defaultOwner).migrate(queue)
            try queue.write { db in try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)") }
            lastAnchor = try queue.read { db in
                try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'anchor'") ?? 0
            }
        } catch {
            throw IndexError(.migration, "cannot open the index at \(path)", cause: error)
        }
        logger.debug("index opened", metadata: ["path": "\(path)", "anchor": "\(lastAnchor)"])
    }

    /// Written into every WorkFeed index's header (`PRAGMA application_id`): "WFIX".
    static let applicationID: Int32 = 0x5746_4958

    /// A file that cannot be an index: empty (SQLite would silently make a new, empty index of
    /// it: the start looks fine and every workout is gone), or not SQLite at all.
    static func refuseWhatIsNotAnIndexFile(_ path: String) throws(IndexError) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return }  // a new index
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw IndexError(.notAnIndex, "the index at \(path) is not a regular file: point index.path at the index file")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let wal = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 && wal == 0 {
            throw IndexError(
                .notAnIndex,
                "the index file \(path) is empty (0 bytes), so it holds no index: if it should hold your workouts, restore it from a "
                    + "backup (docs/operations.md, \"Backups of the index\"); to start a new, empty index, remove the file")
        }
        guard size > 0, let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header == Data("SQLite format 3\u{0}".utf8) else {
            let shown = String(decoding: header.prefix(16), as: UTF8.self).escapedForDisplay
            throw IndexError(
                .notAnIndex,
                "the file \(path) is not a WorkFeed index: it is not an SQLite database (it starts with '\(shown)'); point index.path at the index, "
                    + "or restore the index from a backup")
        }
    }

    /// An SQLite file that is not WorkFeed's, or is damaged. Checked before anything is written.
    static func check(_ queue: DatabaseQueue, path: String, logger: Logger) throws(IndexError) {
        let started = ContinuousClock.now
        let problems: [String]
        let (applicationID, tables, migrations): (Int32, [String], [String])
        do {
            (applicationID, tables, migrations) = try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                let migrations = tables.contains("grdb_migrations") ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
                return (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0, tables, migrations)
            }
            problems = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(20)") }
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw IndexError.damaged(path, detail: "\(error)")
        } catch {
            throw IndexError(.unavailable, "cannot read the index at \(path)", cause: error)
        }
        guard problems == ["ok"] else { throw IndexError.damaged(path, detail: problems.prefix(5).joined(separator: "; ")) }
        let ours = applicationID == Self.applicationID || migrations.contains("v1: workouts, series, jobs, anchors")
        guard ours || tables.isEmpty else {
            throw IndexError(
                .notAnIndex,
                "the file \(path) is an SQLite database of something else, not a WorkFeed index (application id \(applicationID), tables: "
                    + "\(tables.prefix(8).joined(separator: ", "))): point index.path at the index; WorkFeed changes no other database")
        }
        logger.debug(
            "index checked",
            metadata: [
                "path": "\(path)",
                "quick_check_ms":
                    "\((ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000 + (ContinuousClock.now - started).components.seconds * 1000)",
            ])
    }

    /// Opens an existing index for reading only, beside the coordinator's writing connection (WAL
    /// lets readers run while the index thread writes). For reads that must not wait for a write
    /// batch: the read service's answers, the metrics a Prometheus scrape asks for.
    public init(readingFrom path: String, logger: Logger) throws(IndexError) {
        self.logger = logger
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in
            // 32 MiB of page cache (SQLite's default is 2 MiB): feed pages all over a large index
            // stay in memory.
            try db.execute(sql: "PRAGMA cache_size = -32768")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw IndexError(.unavailable, "cannot open the index at \(path) for reading", cause: error)
        }
        lastAnchor = 0
        lock = nil
    }

    /// Runs `body` in one transaction; everything it did is committed together or not at all,
    /// its leases included.
    public func write<T>(_ body: (inout IndexTransaction) throws -> T) throws(IndexError) -> T {
        try writeReleasingKeys(body).result
    }

    /// ``write(_:)``, also returning the pictures the transaction left for nobody
    /// (``IndexTransaction/releasedPictures()``: released keys and leftovers that neither a job nor
    /// a lease refers to at its end), once it has committed.
    public func writeReleasingKeys<T>(_ body: (inout IndexTransaction) throws -> T) throws(IndexError) -> (result: T, released: ReleasedPictures) {
        do {
            let (result, anchor, leasesAfter, released) = try queue.write { db in
                var transaction = IndexTransaction(
                    db: db, anchor: lastAnchor, leases: self.leases, zoneDefaults: summaryZoneDefaults, countsSummaries: countsSummaries)
                let result = try body(&transaction)
                try transaction.flushSummaryBuckets()
                if transaction.anchor != lastAnchor {
                    try db.cachedStatement(
                        sql: "INSERT INTO meta(key, value) VALUES('anchor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                    ).execute(arguments: [transaction.anchor])
                }
                return (result, transaction.anchor, transaction.leases, try transaction.releasedPictures())
            }
            // Committed: only now does memory follow.
            lastAnchor = anchor
            leases = leasesAfter
            return (result, released)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "index write failed", cause: error)
        }
    }

    /// Copies every committed transaction from the write-ahead log into the index file and
    /// empties the log (`PRAGMA wal_checkpoint(TRUNCATE)`).
    public func checkpoint() throws(IndexError) {
        do {
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        } catch {
            throw IndexError(.failed, "checkpoint failed", cause: error)
        }
    }

    /// The only writer gives nothing back: its leases end with it (``LeaseTable``), and the lock
    /// file is released by the kernel.
    public func leave() {}

    /// Runs read-only queries.
    public func read<T>(_ body: (IndexReader) throws -> T) throws(IndexError) -> T {
        do {
            return try queue.read { db in try body(IndexReader(db: db)) }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "index read failed", cause: error)
        }
    }
}
