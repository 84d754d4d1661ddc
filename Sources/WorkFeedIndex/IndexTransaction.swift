import GRDB
import WorkFeedModel

/// The index operations of one transaction (see ``WorkoutIndex/write(_:)``).
///
/// By concern, each in its own file:
/// - workouts: importing, updating and deleting them (`IndexTransaction+Workouts.swift`);
/// - enqueue: making sure pictures exist and are current (`IndexTransaction+Enqueue.swift`);
/// - leasing: handing ready jobs to workers and taking leases back (`IndexTransaction+Leasing.swift`);
/// - reports: what a worker's report, a retry or a failure does to a job (`IndexTransaction+Reports.swift`);
/// - privacy zones and the privacy secret (`IndexTransaction+Privacy.swift`);
/// - summaries, kept with every change to a workout (`IndexTransaction+Summaries.swift`).
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
    /// Pictures workers wrote that no job stores (``LeftoverPicture``): their files can go once
    /// this transaction has committed, unless something refers to their keys by then.
    public internal(set) var leftovers: [LeftoverPicture] = []
    /// The zones owners without their own get, for the time in zones of summaries.
    let zoneDefaults: SummaryZoneDefaults
    /// ``WorkoutIndex/countsSummaries``.
    public let countsSummaries: Bool
    /// The summary buckets this transaction changed, written once at its end
    /// (``flushSummaryBuckets()``), and the owners' states it read.
    public var summaryWork = SummaryWork()

    init(db: Database, anchor: Int64, leases: LeaseTable, zoneDefaults: SummaryZoneDefaults = .standard, countsSummaries: Bool = true) {
        self.db = db
        self.anchor = anchor
        self.leases = leases
        self.zoneDefaults = zoneDefaults
        self.countsSummaries = countsSummaries
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
        guard let result else { throw IndexError(.failed, "a savepoint ended without a result") }
        return result
    }

    /// Notes `key` in ``releasedKeys`` when no job refers to it any more.
    mutating func release(_ key: String) throws {
        if try !isReferenced(key) { releasedKeys.append(key) }
    }

    /// Notes a picture no job stores as current, whose files go after the commit (see
    /// ``releasedPictures()``). A key that is not a cache key names no file and is not noted.
    public mutating func discard(_ leftover: LeftoverPicture) {
        guard CacheLayout.isCacheKey(leftover.key) else { return }
        leftovers.append(leftover)
    }

    /// Whether a job stores `key` as its picture's, or a worker is drawing a picture under it now.
    func isReferenced(_ key: String) throws -> Bool {
        if leases.isDrawing(key: key) { return true }
        return try reader.isStored(key: key)
    }

    /// Whether `picture`'s by-picture name is spoken for by `key`: its job stores that key, or a
    /// worker is drawing it under that key now.
    func isReferenced(_ picture: PictureID, key: String) throws -> Bool {
        if leases.isDrawing(picture, key: key) { return true }
        return try reader.isStored(picture, key: key)
    }

    /// The files this transaction leaves for nobody, as it stands at its end: the released keys
    /// and the leftovers' keys that neither a job nor a lease refers to now, and the leftovers'
    /// by-picture names whose own job neither stores nor is drawing their key (two workouts with
    /// the same inputs share a key, not a by-picture name). Checked here, at the end, because a
    /// key released early in a transaction may be stored again later in it (a job with the same
    /// inputs generated in the same batch), and a lease taken in it may be drawing it.
    public func releasedPictures() throws -> ReleasedPictures {
        try ReleasedPictures(
            keys: releasedKeys, leftovers: leftovers, isReferenced: isReferenced, isReferencedPicture: isReferenced,
            storedKey: reader.storedKey(of:))
    }
}
