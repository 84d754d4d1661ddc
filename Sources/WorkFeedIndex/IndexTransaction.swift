import GRDB

/// The index operations of one transaction (see ``WorkoutIndex/write(_:)``).
///
/// By concern, each in its own file:
/// - workouts: importing, updating and deleting them (`IndexTransaction+Workouts.swift`);
/// - enqueue: making sure pictures exist and are current (`IndexTransaction+Enqueue.swift`);
/// - leasing: handing ready jobs to workers and taking leases back (`IndexTransaction+Leasing.swift`);
/// - reports: what a worker's report, a retry or a failure does to a job (`IndexTransaction+Reports.swift`);
/// - privacy zones and the privacy secret (`IndexTransaction+Privacy.swift`).
///
/// Reads inside the transaction go through ``reader``.
public struct IndexTransaction {
    let db: Database
    /// The last anchor handed out in this transaction.
    var anchor: Int64
    /// The leases, as this transaction has left them so far.
    public internal(set) var leases: LeaseTable
    /// Cache keys no job refers to any more after this transaction (a picture drawn again under a
    /// new key, a workout deleted): their by-content files (``CacheLayout/relativePath(forKey:)``)
    /// can go once it has committed.
    public internal(set) var releasedKeys: [String] = []

    init(db: Database, anchor: Int64, leases: LeaseTable) {
        self.db = db
        self.anchor = anchor
        self.leases = leases
    }

    mutating func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    /// The last anchor handed out, including this transaction's changes so far.
    public var anchorSoFar: Int64 { anchor }

    /// Read queries inside this transaction.
    public var reader: IndexReader { IndexReader(db: db) }

    /// Runs `body` inside a savepoint of this transaction: when it throws, everything it changed
    /// is undone (its rows, and this transaction's anchors, leases and released keys as they were
    /// before it) and the error is thrown again; the rest of the transaction goes on and commits
    /// without it. The coordinator runs each control request of a batch this way (issue 23,
    /// finding 9): a request that fails half way leaves no trace, and its neighbours commit.
    public mutating func savepoint<T>(_ body: (inout IndexTransaction) throws -> T) throws -> T {
        let before = self
        var result: T?
        do {
            try db.inSavepoint {
                result = try body(&self)
                return .commit
            }
        } catch {
            self = before
            throw error
        }
        guard let result else { throw IndexError("a savepoint ended without a result") }
        return result
    }

    /// Notes `key` in ``releasedKeys`` when no job refers to it any more.
    mutating func release(_ key: String) throws {
        let used = try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM job WHERE cache_key = ? LIMIT 1"), arguments: [key])
        if used == nil { releasedKeys.append(key) }
    }
}
