import Foundation
import GRDB
public import Logging
public import WorkFeedModel

/// The workout index: one SQLite file (WAL) holding workouts, their series, picture jobs and the
/// change anchors. Only the coordinator opens it, from its event-loop thread.
///
/// Writes go through ``write(_:)``, which runs one transaction: the coordinator gathers everything
/// a loop turn changed (statuses, imports, leases) into a single call.
public final class WorkoutIndex {
    let queue: DatabaseQueue
    let logger: Logger
    /// The last anchor handed out. Anchors only go up; a rolled-back transaction leaves a gap.
    var lastAnchor: Int64
    /// The jobs out with workers, as of the last committed transaction.
    public private(set) var leases = LeaseTable()

    /// How durable each transaction is.
    public enum Durability: String, Sendable, CaseIterable {
        /// Every committed transaction survives a power loss (fsync at each commit).
        case full
        /// Committed transactions survive a process crash; the last ones may be lost on power loss.
        case normal
    }

    /// Opens (creating if needed) the index at `path` and brings its schema up to date.
    /// - Parameter defaultOwner: the owner the "v6: owners" migration gives workouts stored before
    ///   owners existed (configuration's `owners.default`); used once, when that migration runs.
    /// - Throws: ``IndexError`` when the file cannot be opened, is not a WorkFeed index, or a
    ///   migration fails (nothing is changed then).
    public init(path: String, durability: Durability = .full, defaultOwner: String = Owner.defaultName, logger: Logger) throws(IndexError) {
        self.logger = logger
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
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator(defaultOwner: defaultOwner).migrate(queue)
            lastAnchor = try queue.read { db in
                try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'anchor'") ?? 0
            }
        } catch {
            throw IndexError("cannot open the index at \(path)", cause: error)
        }
        logger.debug("index opened", metadata: ["path": "\(path)", "anchor": "\(lastAnchor)"])
    }

    /// Opens an existing index for reading only, beside the coordinator's own connection (WAL lets
    /// readers run while the loop writes). For work that must stay off the loop thread, such as
    /// the metrics a Prometheus scrape asks for.
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
            throw IndexError("cannot open the index at \(path) for reading", cause: error)
        }
        lastAnchor = 0
    }

    /// Runs `body` in one transaction; everything it did is committed together or not at all,
    /// its leases included.
    public func write<T>(_ body: (inout IndexTransaction) throws -> T) throws(IndexError) -> T {
        try writeReleasingKeys(body).result
    }

    /// ``write(_:)``, also returning the cache keys the transaction left unreferenced
    /// (``IndexTransaction/releasedKeys``), once it has committed.
    public func writeReleasingKeys<T>(_ body: (inout IndexTransaction) throws -> T) throws(IndexError) -> (result: T, releasedKeys: [String]) {
        do {
            let (result, anchor, leasesAfter, released) = try queue.write { db in
                var transaction = IndexTransaction(db: db, anchor: lastAnchor, leases: self.leases)
                let result = try body(&transaction)
                if transaction.anchor != lastAnchor {
                    try db.cachedStatement(
                        sql: "INSERT INTO meta(key, value) VALUES('anchor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                    ).execute(arguments: [transaction.anchor])
                }
                return (result, transaction.anchor, transaction.leases, transaction.releasedKeys)
            }
            // Committed: only now does memory follow.
            lastAnchor = anchor
            leases = leasesAfter
            return (result, released)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError("index write failed", cause: error)
        }
    }

    /// Runs read-only queries.
    public func read<T>(_ body: (IndexReader) throws -> T) throws(IndexError) -> T {
        do {
            return try queue.read { db in try body(IndexReader(db: db)) }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError("index read failed", cause: error)
        }
    }
}

/// An index operation failed: what we were doing and the SQLite (or other) cause.
public struct IndexError: Error, CustomStringConvertible {
    public var message: String
    public var cause: (any Error)?

    public init(_ message: String, cause: (any Error)? = nil) {
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }
}
