public import Foundation
public import Logging
public import WorkFeedModel
public import WorkFeedPrivacy

// The contract between the coordinator and its index, and the semantics the coordinator relies
// on. The coordinator is generic over it (``IndexBackend``, ``WorkoutIndexStore``), specialized
// for each backend it is built with, so that nothing on its hot paths goes through a witness
// table; the SQLite index (``SQLiteIndexBackend``, ``WorkoutIndex``, ``IndexTransaction``,
// ``IndexReader``) is the embedded one. docs/architecture.md, "The index behind its contract",
// says what a second backend provides and which tests it passes.

/// The current cache key of a picture, given what the index holds of its workout (``PictureInputs``).
/// The coordinator supplies it: it knows what else the key is made of (the styles, the owners'
/// privacy policies and settings), the index does not.
public typealias CacheKeyFunction = (PictureID, PictureInputs) -> String

/// What the index holds of a workout that its pictures' cache keys are made of, read with the job
/// wherever a key is compared or recorded.
public struct PictureInputs: Sendable, Hashable {
    public var routeHash: String
    public var heartRateHash: String
    /// Whose privacy zones and settings apply.
    public var owner: String
    /// The route's box, which says which of the owner's zones can change the picture; `nil` when
    /// the route has no valid point (no zone can) or the row does not say (every zone counts).
    public var routeBounds: RouteBounds?
    /// The workout's activity, which decides whether a pace picture shows a pace or a speed
    /// (``PictureKind/rampMeasure(for:)``).
    public var activity: ActivityType
    /// The figures a share card shows (its title, date and figures): part of its spec.
    public var figures: WorkoutFigures

    /// The columns of workout `w` they are read from, in order (``selection``).
    public static let columnNames = ["route_hash", "hr_hash", "owner"] + RouteBounds.columnNames + ["activity"] + WorkoutFigures.columnNames

    /// ``columnNames`` of workout `w`: the hashes, the owner, the box (``RouteBounds/columnNames``),
    /// the activity, the card's figures (``WorkoutFigures/columnNames``). Every backend names them so.
    public static let selection = columnNames.map { "w.\($0)" }.joined(separator: ", ")

    public init(
        routeHash: String, heartRateHash: String, owner: String, routeBounds: RouteBounds?, activity: ActivityType,
        figures: WorkoutFigures = WorkoutFigures()
    ) {
        self.routeHash = routeHash
        self.heartRateHash = heartRateHash
        self.owner = owner
        self.routeBounds = routeBounds
        self.activity = activity
        self.figures = figures
    }
}

/// Called by an index of several writers with an owner's policy version, locked for the
/// transaction (``LeasedJob/policyVersion``): the coordinator reads that owner's zones and
/// settings again with the reader given when its copy is of another version, before a cache key
/// of theirs is computed.
public typealias PolicyRefresh<Reader: IndexReading> = (_ owner: String, _ version: Int64, _ reader: Reader) throws -> Void

/// A worker's report with the worker it came from (its lease key, ``LeasedJob/worker``).
public struct WorkerReport: Sendable, Hashable {
    public var report: JobReportRecord
    public var worker: String

    public init(_ report: JobReportRecord, from worker: String) {
        self.report = report
        self.worker = worker
    }
}

/// Bounds every index keeps, whatever its backend.
public enum IndexLimits {
    /// Withdrawn picture keys kept per owner (``IndexWriting/rememberWithdrawnPictures(owner:now:keeping:)``):
    /// the newest, so that an owner who changes zones often cannot grow the index without bound.
    public static let withdrawnPerOwner = 20_000
}

/// Where an index is and how to open it. Every connection the coordinator has to its index (the
/// writer on its index thread, the read service's and the metrics' readers, the start sweeps')
/// is opened through one, never by a path: the coordinator's configuration names the backend in
/// one place, and everything else is generic over it.
///
/// A backend value is cheap and `Sendable`: each thread opens its own connection from it.
public protocol IndexBackend: Sendable {
    associatedtype Store: WorkoutIndexStore
    associatedtype ReadConnection: IndexReadConnection where ReadConnection.Reader == Store.Reader

    /// Where the index is, for logs and errors (a file's path, a server's URL without its
    /// password).
    var location: String { get }

    /// Opens the index for writing, creating it or bringing its schema up to date first.
    /// - Throws: ``IndexError``: ``IndexError/Code/unavailable`` when it cannot be reached or
    ///   made, ``IndexError/Code/locked`` when it admits one writer and another holds it,
    ///   ``IndexError/Code/notAnIndex``, ``IndexError/Code/damaged``, ``IndexError/Code/migration``.
    func openWriter(logger: Logger) throws(IndexError) -> Store
    /// Opens a read-only connection beside the writer, for one thread; it sees every committed
    /// transaction.
    func openReader(logger: Logger) throws(IndexError) -> ReadConnection
}

/// Read transactions on a connection of one thread's.
public protocol IndexReadConnection: AnyObject {
    associatedtype Reader: IndexReading

    /// Runs `body` in one read transaction: it sees one committed state throughout.
    func read<T>(_ body: (Reader) throws -> T) throws(IndexError) -> T
}

/// An index the coordinator writes: transactions it batches a turn's work into, and read
/// transactions beside them. Opened by an ``IndexBackend``.
///
/// Semantics the coordinator relies on:
/// - **Atomic transactions.** Everything one ``write(_:)`` did is committed together or not at all,
///   its leases and released keys included; when `body` throws, nothing it did is kept and
///   ``anchor`` and ``leases`` are as before.
/// - **Committed means durable** to the degree configured (`index.durability`; a server's own
///   settings): the coordinator replies, publishes events and hands out jobs only after
///   ``write(_:)`` has returned.
/// - **Writers.** An index that admits one writer (SQLite) refuses a second when it opens
///   (``IndexError/Code/locked``), not later. An index several coordinators write at once
///   (PostgreSQL) makes each of them see the others' commits, and holds every rule below across
///   them, as one writer would.
/// - **Leases.** A lease says which writer's worker holds a job, with the job's anchor when it was
///   leased and a deadline. A job is never leased twice while a lease on it lives, whichever
///   writer asks; a lease ends when it is reported on, returned, released with its worker or past
///   its deadline (``IndexWriting/expireLeases(now:retry:)``), and its job is ready again.
///   An index shared by several writers keeps leases in its storage, so that when a writer dies,
///   the others lease its jobs again once their deadlines pass. An index of one writer may keep
///   them in memory (``LeaseTable``): they end with the writer, and after a restart every
///   `pending` job is ready again.
/// - **Reports against current inputs.** A report is checked against the job's current key in
///   the transaction that stores it (``IndexWriting/complete(_:from:retry:now:cacheKey:)``), so
///   that a change committed by any writer since the lease (a privacy zone, a new route) refuses
///   the outdated picture.
/// - **Anchors.** Every change to a workout, a job or a deletion takes a new anchor above every
///   anchor handed out before, across restarts; a rolled-back transaction may leave a gap. A reader
///   of CHANGES never skips a committed change nor sees one twice: with several writers, anchors
///   are read only below the point where every smaller one is committed or abandoned.
/// - **Periodic work** (the start sweeps, summary rebuild steps, pruning) is done by one writer at
///   a time: the one ``IndexWriting/lead(now:)`` last gave a term to. An index of one writer gives
///   it one term from open to close; an index of several keeps the term in its storage, renewed by
///   its holder, taken over by another when it runs out, and fences each periodic step with it, so
///   that a writer that stalled past its term does no periodic work beside the next one.
/// - **Reads see committed transactions only**, and may run beside a write (the read service and
///   the metrics read while the index thread writes).
public protocol WorkoutIndexStore: IndexReadConnection {
    associatedtype Transaction: IndexWriting where Transaction.Reader == Reader

    /// The last anchor this writer committed (or saw committed when it opened).
    var anchor: Int64 { get }
    /// How many jobs are out with this writer's workers, as of its last committed transaction
    /// (SQLite: its ``LeaseTable``; PostgreSQL: the job rows this coordinator leased).
    var leasedCount: Int { get }
    /// The heart-rate zones of owners who set none, for summaries' time in zones: set by the
    /// coordinator (its configured zones) before its first write.
    var summaryZoneDefaults: SummaryZoneDefaults { get set }

    /// Runs `body` in one transaction: committed whole when it returns, rolled back whole when it
    /// throws. What `body` throws comes back as an ``IndexError`` (itself, or with it as the cause).
    /// An index of several writers may refuse a transaction that got in another's way
    /// (``IndexError/Code/conflict``, nothing kept): `body` is never run twice by the index; the
    /// caller runs it again.
    func write<T>(_ body: (inout Transaction) throws -> T) throws(IndexError) -> T
    /// ``write(_:)``, also returning the pictures the committed transaction left for nobody (their
    /// files can go): keys neither a job nor a lease refers to at its end, and the leftovers of
    /// refused and late reports.
    func writeReleasingKeys<T>(_ body: (inout Transaction) throws -> T) throws(IndexError) -> (result: T, released: ReleasedPictures)
    /// Makes what has been committed durable in the index's main storage (SQLite: a WAL
    /// checkpoint); the coordinator calls it when idle and at shutdown. May do nothing.
    func checkpoint() throws(IndexError)
    /// The writer stops for good (a clean shutdown, after its last write): it gives back what the
    /// other writers would otherwise wait for (PostgreSQL: its leases, at once instead of when
    /// they lapse, and its term, so that another leads now). An index of one writer has nothing
    /// to give back.
    func leave() throws(IndexError)
}

/// A writer's term as the one that does the periodic work (``IndexWriting/lead(now:)``): who
/// holds it and its number, which only goes up, so that a writer sees when it leads again.
public struct LeadershipTerm: Sendable, Hashable, CustomStringConvertible {
    public var holder: String
    public var number: Int64

    public init(holder: String, number: Int64) {
        self.holder = holder
        self.number = number
    }

    public var description: String { "term \(number) of \(holder)" }
}

/// The operations of one write transaction (``WorkoutIndexStore/write(_:)``), in the coordinator's
/// words. Every change takes the transaction's next anchor; every job change that makes a worker's
/// report on older inputs meaningless changes the job's anchor, which ends the lease's claim.
public protocol IndexWriting {
    associatedtype Reader: IndexReading

    /// Reads inside this transaction: they see its changes so far.
    var reader: Reader { get }
    /// Cache keys no job refers to any more after this transaction.
    var releasedKeys: [String] { get }
    /// Pictures workers wrote that no job stores: refused and late reports' (``LeftoverPicture``).
    var leftovers: [LeftoverPicture] { get }
    /// Notes a picture no job stores (a late report's, an orphan the start sweep found).
    mutating func discard(_ leftover: LeftoverPicture)
    /// Runs `body` so that it is all or nothing inside this transaction: when it throws, its
    /// changes (rows, anchors, leases, released keys) are undone and the error thrown again, and
    /// the transaction goes on without them (SQLite: a SAVEPOINT).
    mutating func savepoint<T>(_ body: (inout Self) throws -> T) throws -> T

    // MARK: Workouts

    /// Stores an imported workout by the rules of docs/import.md ("Identity and re-import"), per
    /// owner: new, unchanged, refreshed, kept-richer, updated (every picture `pending` again), a
    /// duplicate of another file's copy, or that copy replaced by a clearly richer one.
    /// `replacedFile` is called with the SHA-256 of a file whose copy this import replaced.
    mutating func importWorkout(
        _ workout: ImportedWorkout, owner: String, allowDuplicates: Bool, originalKept: Bool, now: Date, replacedFile: (String) -> Void
    ) throws -> ImportReply
    /// Deletes workouts (only `owner`'s when given) with their series and jobs, leaves a tombstone
    /// for CHANGES, ends their leases, and returns the pictures each had.
    mutating func delete(_ ids: [WorkoutID], owner: String?) throws -> [WorkoutID: [PictureID]]

    // MARK: Enqueue

    /// Creates missing jobs `pending`, makes generated jobs whose cache key is no longer current
    /// `pending` again, leaves failures alone unless asked to revive them, remembers heatmaps of
    /// workouts without heart rate instead of queueing them, and raises waiting jobs to a positive
    /// priority, at most `interactivePerOwner` of one owner's pending jobs above priority 0 (the rest
    /// become bulk work, priority 0). Jobs it creates or changes take an anchor of this transaction.
    mutating func enqueue(
        _ request: EnqueueRequest, scales: [Int], now: Date, interactivePerOwner: Int,
        cacheKey: CacheKeyFunction
    ) throws -> EnqueueReply

    // MARK: Leasing

    /// The jobs leased as this transaction stands.
    var leasedCount: Int { get }
    /// Pending jobs past any back-off and not leased.
    func readyCount(now: Date) throws -> Int
    /// Leases ready jobs, highest priority first; within a priority, owners in turn (so that one
    /// owner's flood shares the workers with the others), each owner's oldest first; dealt one at a
    /// time over the workers' free slots in the order given; each lease records the job's anchor
    /// and a deadline.
    mutating func lease(_ slots: [(worker: String, count: Int)], now: Date, deadline: Double, nextLease: () -> UInt64) throws -> [LeasedJob]
    /// The cache key sent with a lease's JOB, which a `generated` report must quote.
    mutating func recordCacheKey(_ key: String, for lease: UInt64) throws
    /// The cache keys sent with several leases' JOBs, as ``recordCacheKey(_:for:)`` records each
    /// (an index of several writers in one statement).
    mutating func recordCacheKeys(_ keys: [(key: String, lease: UInt64)]) throws
    /// Ends a lease whose JOB never reached its worker, counting no attempt; whether it was current.
    @discardableResult mutating func returnLease(_ lease: UInt64) throws -> Bool
    /// Takes back a gone worker's leases, counting an attempt against each job when asked (stored
    /// with `reason` for people and `code`, what the loss was).
    mutating func releaseLeases(
        of worker: String, reason: String, code: FailureCode, countAttempt: Bool, retry: RetryPolicy, now: Date
    ) throws -> [CompletionEffect]
    /// Takes back leases past their deadline, counting an attempt. The coordinator calls it about
    /// every second; an index that keeps leases in its storage renews this writer's living ones
    /// here too, so that only a dead writer's lapse.
    mutating func expireLeases(now: Date, retry: RetryPolicy) throws -> [CompletionEffect]
    /// Whether this writer does the periodic work now: its term when it does, `nil` while another
    /// writer's term lives. The coordinator asks about every second (with ``expireLeases(now:retry:)``);
    /// an index of several writers renews its holder's term here, gives a term that ran out to the
    /// first to ask, and does its own periodic upkeep for its holder (pruning what it keeps for
    /// a while). Like every change, a term taken or renewed is kept only if the transaction commits.
    mutating func lead(now: Date) throws -> LeadershipTerm?
    /// Whether periodic work may be done in this transaction: under this writer's current term,
    /// held to the transaction's end (with one writer, always).
    mutating func fencePeriodicWork() throws -> Bool

    // MARK: Reports

    /// Records a worker's report on a current lease of that worker (anything else is
    /// ``CompletionEffect/staleLease`` and changes nothing): generated, failed for good, retried
    /// after a back-off, or put off without an attempt for a failure of the worker's surroundings.
    /// A report on a lease whose key is no longer `cacheKey`'s for the job (its inputs changed
    /// since) is ``CompletionEffect/outdated(_:)``: nothing stored, the job ready again. What a
    /// refused or late `generated` report wrote is noted in ``leftovers``.
    mutating func complete(
        _ report: JobReportRecord, from worker: String, retry: RetryPolicy, now: Date, cacheKey: CacheKeyFunction
    ) throws -> CompletionEffect
    /// Records reports in their order, each as ``complete(_:from:retry:now:cacheKey:)`` records
    /// one, and returns their effects in that order (an index of several writers checks and stores
    /// them together).
    ///
    /// Another writer may have changed an owner's zones or settings since this writer read them:
    /// an index of several writers locks each reported owner's policy version for the transaction
    /// and calls `policyAt` with it before any key is compared, so that the coordinator brings its
    /// copy of that owner's zones and settings up to that version (reading them with the reader
    /// given). An index of one writer, whose coordinator's copy is the only one, never calls it.
    mutating func complete(
        _ reports: [WorkerReport], retry: RetryPolicy, now: Date, policyAt: PolicyRefresh<Reader>, cacheKey: CacheKeyFunction
    ) throws -> [CompletionEffect]

    // MARK: Privacy

    /// Adds a validated zone to an owner's (at most ``PrivacyZone/maximumPerOwner``).
    mutating func addPrivacyZone(owner: String, latitude: Double, longitude: Double, radius: Double, now: Date) throws -> PrivacyZone
    /// Removes one of an owner's zones; whether one was removed.
    mutating func removePrivacyZone(owner: String, id: Int64) throws -> Bool
    /// Removes every zone of an owner; how many.
    mutating func removePrivacyZones(owner: String) throws -> Int
    /// The secret that jitters privacy cuts: made once, then the same for the index's lifetime.
    mutating func privacySecret() throws -> [UInt8]
    /// Keeps removals from the picture store that failed and are tried again until they are done
    /// (docs/operations.md, "Removals that wait"): names the coordinator's removal thread gives;
    /// one kept already keeps its first time.
    mutating func keepRemovals(_ names: [String], now: Date) throws
    /// Forgets kept removals that are done.
    mutating func forgetRemovals(_ names: [String]) throws
    /// Keeps the reply to a change sent with an idempotency key (docs/gateway.md,
    /// "Idempotency-Key"); a key already kept for the owner keeps its first reply.
    /// - Parameter digest: what the request said (its command and body), to tell a key sent again
    ///   with another request.
    mutating func keepReply(_ reply: [UInt8], owner: String, key: String, digest: String, now: Date) throws
    /// Forgets the replies kept before `before`; how many.
    mutating func forgetReplies(before: Date) throws -> Int
    /// The index's own name, for the picture store's owner marker (docs/operations.md, "One
    /// store, one index"): 16 random bytes made once, kept in `meta` as `index_id` (a copy of the
    /// index, `workctl index copy`, carries it), as a UUID's text.
    mutating func indexIdentity() throws -> String
    /// Remembers as withdrawn the keys of the owner's generated pictures that a change of the
    /// owner's zones moves (their stored key is not `cacheKey`'s, made of the new zones), before
    /// they are queued again, so that their URLs answer 410 Gone (``IndexReading/isWithdrawn(key:)``);
    /// a key another owner's picture shares is not remembered. Keeps the owner's newest `limit`.
    /// The keys remembered.
    mutating func rememberWithdrawnPictures(owner: String, now: Date, keeping limit: Int, cacheKey: CacheKeyFunction) throws -> [String]
    /// Forgets an owner's withdrawn picture keys (the owner is leaving).
    mutating func forgetWithdrawnPictures(owner: String) throws

    // MARK: Owner settings

    /// Replaces an owner's settings, checked first (``OwnerSettings/validate(zoneCount:)``);
    /// empty settings remove the owner's.
    mutating func setOwnerSettings(_ settings: OwnerSettings, owner: String, now: Date) throws
    /// Removes an owner's settings (the owner is leaving); whether there were any.
    mutating func removeOwnerSettings(owner: String) throws -> Bool

    // MARK: Summaries (docs/summaries.md)
    // Every change to a workout above also keeps its owner's summary buckets, in the same
    // transaction; a change of an owner's time zone, first weekday or zones schedules a rebuild.

    /// Schedules a rebuild for owners whose summaries were counted with another calendar or zones
    /// than they have now (all who have summaries when `owners` is `nil`); the owners scheduled.
    mutating func checkSummaryCalendars(owners: [String]?) throws -> [String]
    /// One step of a waiting rebuild, at most `limit` workouts, of the next owner after `previous`
    /// in turn; `nil` when none waits.
    mutating func rebuildSummariesStep(limit: Int, after previous: String?) throws -> (owner: String, progress: SummaryRebuild, finished: Bool)?
}

/// The read queries the coordinator asks (its read service, its metrics, its index thread inside
/// a write). Each answer is of one committed state (or of the enclosing transaction). A stored
/// value an implementation cannot read is an ``IndexError`` naming where it is, never a default
/// and never a row left out.
public protocol IndexReading {
    /// Jobs per kind, theme, scale and status.
    typealias StatusCount = (kind: PictureKind, theme: Theme, scale: Int, status: JobStatus, count: Int)

    // MARK: Workouts and their files

    func workoutCount(owner: String?) throws -> Int
    /// Every workout id of an owner, in id order.
    func workoutIDs(owner: String) throws -> [WorkoutID]
    /// Workout ids starting with a prefix of hex digits (hyphens optional), in id order.
    func workouts(withPrefix prefix: String, limit: Int) throws -> [WorkoutID]
    /// A workout; another owner's is `nil`, as if absent.
    func workout(_ id: WorkoutID, owner: String?) throws -> WorkoutRecord?
    func file(of id: WorkoutID) throws -> (file: WorkoutFile, positionInFile: Int, originalKept: Bool)?
    func fileHashes(of ids: [WorkoutID]) throws -> Set<String>
    /// Of the files of these workouts, those whose original one of them keeps (one query, not
    /// one a workout: a long DELETE asks it at every step).
    func keptOriginals(of ids: [WorkoutID]) throws -> Set<String>
    /// Of these files, those no workout refers to any more.
    func unreferencedFiles(_ hashes: Set<String>) throws -> [String]

    // MARK: Status and the queue

    func statusCounts(owner: String?) throws -> [StatusCount]
    /// The counts among the pictures an ENQUEUE of `selection` covers.
    func statusCounts(of selection: EnqueueRequest, scales: [Int]) throws -> [StatusCount]
    func mapCoverageCounts() throws -> [(kind: PictureKind, theme: Theme, map: String, count: Int)]
    /// Pending jobs past any back-off, leased ones included (whoever holds them): STATUS takes the
    /// coordinator's own leases off.
    func pendingReadyCount(now: Date) throws -> Int
    func oldestPending() throws -> Date?

    // MARK: Pictures and failures

    func pictures(of id: WorkoutID) throws -> [PictureRecord]
    /// The pictures of a feed page's workouts in one query.
    func pictures(of ids: [WorkoutID]) throws -> [WorkoutID: [PictureRecord]]
    /// Every generated picture with its cache key, while `body` returns `true`.
    func generatedPictures(_ body: (PictureID, String) throws -> Bool) throws
    /// Whether some job stores `key` as its picture's (a by-content name in use).
    func isStored(key: String) throws -> Bool
    /// Whether a generated picture's job stores `key`: the key names a picture that is current now
    /// (not one queued again after a change, nor one of a deleted workout). What the gateway asks
    /// before it sends a client to the bucket (PICTURE's `generated`).
    func isGenerated(key: String) throws -> Bool
    /// The key `picture`'s job stores; `nil` when it has none or there is no such job.
    func storedKey(of picture: PictureID) throws -> String?
    func failureGroups(limit: Int) throws -> [(code: String, count: Int, example: String)]
    func failedPictures(limit: Int) throws -> [PictureRecord]
    func failedCount() throws -> Int

    // MARK: Feed, changes, anchors

    /// Workouts newest first (undated last), keyset-paged by an opaque cursor that stays valid
    /// while workouts come and go.
    func feed(limit: Int, cursor: String?, owner: String?) throws -> (workouts: [WorkoutRecord], next: String?)
    /// The cursor of the page that follows `workout` (FEED's `next` when a reply is cut short to
    /// fit its budget).
    static func feedCursor(after workout: WorkoutRecord) -> String
    /// What changed after `anchor`, oldest first, each workout once per kind of change at its latest anchor.
    func changes(since anchor: Int64, limit: Int, owner: String?) throws -> (changes: [WorkoutChange], more: Bool)
    /// The last anchor committed.
    func currentAnchor() throws -> Int64

    // MARK: Privacy

    func privacyZones(owner: String) throws -> [PrivacyZone]
    /// A workout's stored series (route and heart rate, docs/series-format.md), as stored;
    /// `nil` when it has none.
    func series(of id: WorkoutID) throws -> (route: [UInt8], heartRate: [UInt8])?
    func ownersWithPrivacyZones() throws -> [String]
    /// The removals kept (``IndexWriting/keepRemovals(_:now:)``), oldest first, at most `limit`.
    func keptRemovals(limit: Int) throws -> [String]
    /// How many removals are kept, and since when the oldest has waited.
    func keptRemovalCount() throws -> (count: Int, oldest: Date?)
    /// The reply kept for `owner`'s idempotency key (``IndexWriting/keepReply(_:owner:key:digest:now:)``).
    func keptReply(owner: String, key: String) throws -> KeptReply?
    /// Whether `key` named a picture that a change of its owner's zones withdrew.
    func isWithdrawn(key: String) throws -> Bool

    // MARK: Owner settings

    /// An owner's settings; empty when they set none.
    func ownerSettings(owner: String) throws -> OwnerSettings
    /// Every owner's heart-rate zone setting, for the owners that have one.
    func heartRateZoneSettings() throws -> [String: HeartRateZoneSetting]
    /// The settings of every owner who set `units` or `cardFigures` (read at start, for the specs
    /// of their pace and elevation pictures, whose legends are in their units, and of their share
    /// cards, which show the figures they chose in their units).
    func pictureSettings() throws -> [String: OwnerSettings]

    // MARK: Summaries

    /// An owner's buckets of `period` from the one holding local day `from` to the one holding
    /// `to`, empty ones included, with the anchor they are current to.
    func summaries(
        owner: String, period: SummaryPeriod, from: Int?, to: Int?, activity: ActivityType?, defaults: SummaryZoneDefaults, now: Date
    ) throws -> SummaryReport
    /// The owners whose summaries wait for or are in a rebuild, with its progress.
    func summaryRebuilds() throws -> [String: SummaryRebuild]

    /// The coordinators that write this index, as they registered, for `workctl status` (an
    /// index of one writer: none listed, the one asked is it).
    func coordinators() throws -> [RunningCoordinator]
    /// What an owner's summaries were counted with, and their rebuild if one waits; `nil` for an
    /// owner with no summaries.
    func summaryState(owner: String) throws -> SummaryOwnerState?
}

extension WorkoutIndex: WorkoutIndexStore {
    public var leasedCount: Int { leases.count }
}
extension SQLiteIndexBackend: IndexBackend {}
extension IndexTransaction: IndexWriting {}

// An index of one writer takes batches one at a time: its statements are calls in its own
// process, and its coordinator's copy of the owners' policies is the only one.
extension IndexWriting {
    public mutating func recordCacheKeys(_ keys: [(key: String, lease: UInt64)]) throws {
        for (key, lease) in keys { try recordCacheKey(key, for: lease) }
    }

    public mutating func complete(
        _ reports: [WorkerReport], retry: RetryPolicy, now: Date, policyAt: PolicyRefresh<Reader>, cacheKey: CacheKeyFunction
    ) throws -> [CompletionEffect] {
        var effects: [CompletionEffect] = []
        effects.reserveCapacity(reports.count)
        for each in reports { effects.append(try complete(each.report, from: each.worker, retry: retry, now: now, cacheKey: cacheKey)) }
        return effects
    }
}
extension IndexReader: IndexReading {}

/// The reply kept for an idempotency key, and the digest of the request it answered.
public struct KeptReply: Sendable, Hashable {
    public var digest: String
    public var reply: [UInt8]

    public init(digest: String, reply: [UInt8]) {
        self.digest = digest
        self.reply = reply
    }
}
