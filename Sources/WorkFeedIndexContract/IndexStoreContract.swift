import Foundation
public import Logging
public import WorkFeedIndex
public import WorkFeedModel
import WorkFeedPrivacy

/// The semantics ``WorkoutIndexStore`` promises the coordinator, checked through the protocols
/// alone, so that every backend runs the same checks (SQLite's in `WorkFeedIndexTests`,
/// PostgreSQL's in `WorkFeedIndexPostgresTests`). Each check starts from an empty index and
/// throws a ``Violation`` naming what did not hold.
public enum IndexStoreContract {
    public struct Violation: Error, CustomStringConvertible {
        public let description: String
    }

    struct Refused: Error {}

    static func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
        if !condition { throw Violation(description: what()) }
    }

    /// A kind of picture every workout can have (it needs no input a workout may lack).
    static let everyWorkoutsKind = PictureKind.allCases.first { $0.workoutCondition == nil } ?? PictureKind.allCases[0]

    /// A ten-point run with its own source id, hours from any other.
    public static func workout(_ sourceID: String) -> ImportedWorkout {
        let start = 1_700_000_000 + Double(sourceID.utf8.reduce(0) { $0 + Int($1) }) * 3600
        let points = (0..<10).map { i in
            RoutePoint(
                latitude: 52.5 + Double(i) * 0.001, longitude: 13.4, elevation: 30, time: Date(timeIntervalSince1970: start + Double(i) * 10))
        }
        return ImportedWorkout(
            source: .tcx, sourceID: sourceID, activity: .running, route: Route(segments: [points]), heartRate: [], origin: "\(sourceID).tcx")
    }

    static func importing(_ sourceID: String, into transaction: inout some IndexWriting) throws -> ImportReply {
        try transaction.importWorkout(
            workout(sourceID), owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(), replacedFile: { _ in })
    }

    /// A transaction that throws keeps nothing: no workout, no anchor, no lease.
    public static func transactionsAreAtomic(_ store: some WorkoutIndexStore) throws {
        let anchor = store.anchor
        do {
            try store.write { transaction in
                _ = try importing("atomic", into: &transaction)
                var lease: UInt64 = 100
                _ = try transaction.lease([("w-1", 8)], now: Date(), deadline: 60) {
                    lease += 1
                    return lease
                }
                throw Refused()
            }
            throw Violation(description: "a transaction that threw was committed")
        } catch let error as IndexError {
            try check(error.cause is Refused, "what the transaction threw comes back as the cause, not \(error)")
        }
        try check(store.anchor == anchor, "the anchor moved from \(anchor) to \(store.anchor) with a rolled-back transaction")
        try check(store.leasedCount == 0, "\(store.leasedCount) leases of a rolled-back transaction")
        try check(try store.read { try $0.workoutCount(owner: nil) } == 0, "a rolled-back import was stored")
    }

    /// Every change takes an anchor above the last committed one, and CHANGES lists it.
    public static func anchorsOnlyGoUp(_ store: some WorkoutIndexStore) throws {
        var last = store.anchor
        for number in 0..<3 {
            let reply = try store.write { transaction in try importing("anchor-\(number)", into: &transaction) }
            try check(store.anchor > last, "the anchor \(store.anchor) after a write is not above \(last)")
            let current = try store.read { try $0.currentAnchor() }
            try check(current == store.anchor, "the readers' anchor \(current) is not the writer's \(store.anchor)")
            let changes = try store.read { try $0.changes(since: last, limit: 10, owner: nil) }.changes
            try check(changes.map(\.id) == [reply.id], "CHANGES after \(last) lists \(changes), not the one import")
            last = store.anchor
        }
    }

    /// A zone's id is never given again, not even after the zone with the highest id is removed:
    /// a stale `DELETE /v1/zones/{id}` finds nothing instead of another zone (docs/privacy.md).
    public static func zoneIDsAreNeverReused(_ store: some WorkoutIndexStore) throws {
        let owner = "zone-ids"
        let (first, second) = try store.write { transaction in
            (
                try transaction.addPrivacyZone(owner: owner, latitude: 49.4, longitude: 8.7, radius: 200, now: Date()),
                try transaction.addPrivacyZone(owner: owner, latitude: 49.5, longitude: 8.6, radius: 300, now: Date())
            )
        }
        try check(try store.write { try $0.removePrivacyZone(owner: owner, id: second.id) }, "zone \(second.id) was not removed")
        let third = try store.write { try $0.addPrivacyZone(owner: owner, latitude: 49.6, longitude: 8.5, radius: 400, now: Date()) }
        try check(third.id > second.id, "a zone added after zone \(second.id) was removed got the id \(third.id)")
        try check(
            !(try store.write { try $0.removePrivacyZone(owner: owner, id: second.id) }), "a second removal of zone \(second.id) removed a zone")
        let left = try store.read { try $0.privacyZones(owner: owner) }.map(\.id)
        try check(left == [first.id, third.id], "the zones left are \(left), not \([first.id, third.id])")
    }

    /// Every key is computed from the route's box as stored (``PictureInputs/routeBounds``, the
    /// box of the decoded route): in the job leased, in a report's comparison, in an enqueue's
    /// look at generated pictures and in a zone change's withdrawal; after a re-import with
    /// another route, the new route's box.
    public static func keysAreMadeOfTheStoredRoutesBox(_ store: some WorkoutIndexStore) throws {
        var original = workout("box")
        let expected = RouteBounds(encodedRoute: SeriesCodec.encode(original.route))
        try check(expected != nil, "the test route has a box")
        var seen: [String: [RouteBounds?]] = [:]
        func key(_ step: String) -> CacheKeyFunction {
            { _, inputs in
                seen[step, default: []].append(inputs.routeBounds)
                return "key-\(inputs.routeHash)"
            }
        }
        let id = try store.write { try importing("box", into: &$0) }.id
        let request = EnqueueRequest(ids: [id], kinds: [everyWorkoutsKind], themes: [.light])
        _ = try store.write { try $0.enqueue(request, scales: [1], now: Date(), interactivePerOwner: 100, cacheKey: key("enqueue")) }
        var lease: UInt64 = 0
        func leaseOne() throws -> LeasedJob {
            let jobs = try store.write { transaction in
                try transaction.lease([("w-1", 1)], now: Date(), deadline: 60) {
                    lease += 1
                    return lease
                }
            }
            guard let job = jobs.first else { throw Violation(description: "the box's workout has no job to lease") }
            return job
        }
        let job = try leaseOne()
        try check(job.inputs.routeBounds == expected, "the leased job's box is \(String(describing: job.inputs.routeBounds)), not \(expected!)")
        _ = try store.write { transaction in
            try transaction.recordCacheKeys([("key-\(job.routeHash)", job.lease)])
            return try transaction.complete(
                JobReportRecord(lease: job.lease, outcome: .generated, detail: "key-\(job.routeHash)"), from: "w-1", retry: RetryPolicy(),
                now: Date(), cacheKey: key("report"))
        }
        _ = try store.write { try $0.enqueue(request, scales: [1], now: Date(), interactivePerOwner: 100, cacheKey: key("generated")) }
        _ = try store.write { try $0.rememberWithdrawnPictures(owner: Owner.defaultName, now: Date(), keeping: 10, cacheKey: key("withdrawal")) }
        for step in ["report", "generated", "withdrawal"] {
            try check(seen[step] == [expected], "the key of a \(step) was given the boxes \(seen[step] ?? []), not [\(expected!)]")
        }

        // The same workout with its route a degree east: the new box everywhere.
        original.route.segments = original.route.segments.map {
            $0.map { RoutePoint(latitude: $0.latitude, longitude: $0.longitude + 1, elevation: $0.elevation, time: $0.time) }
        }
        let moved = RouteBounds(encodedRoute: SeriesCodec.encode(original.route))
        _ = try store.write { transaction in
            try transaction.importWorkout(
                original, owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(), replacedFile: { _ in })
        }
        let again = try leaseOne()
        try check(again.inputs.routeBounds == moved, "after a re-import the box is \(String(describing: again.inputs.routeBounds)), not \(moved!)")
    }

    /// Removals that wait (issue 37): kept until forgotten, a name kept twice once with its first
    /// time, listed oldest first, counted with the oldest's time.
    public static func removalsWaitUntilForgotten(_ store: some WorkoutIndexStore) throws {
        let first = Date(timeIntervalSince1970: 1_800_000_000)
        try store.write { try $0.keepRemovals(["key a", "picture b"], now: first) }
        try store.write { try $0.keepRemovals(["key a", "original c"], now: first.addingTimeInterval(60)) }
        let kept = try store.read { try $0.keptRemovals(limit: 10) }
        try check(kept == ["key a", "picture b", "original c"], "the removals kept are \(kept), not a, b, then c")
        try check(try store.read { try $0.keptRemovals(limit: 1) } == ["key a"], "a limit of 1 lists more or another")
        let counted = try store.read { try $0.keptRemovalCount() }
        try check(counted.count == 3 && counted.oldest == first, "the removals kept are counted \(counted), not 3 since \(first)")
        try store.write { try $0.forgetRemovals(["key a", "original c", "never kept"]) }
        try check(try store.read { try $0.keptRemovals(limit: 10) } == ["picture b"], "forgetting left the wrong removals")
        try store.write { try $0.forgetRemovals(["picture b"]) }
        let none = try store.read { try $0.keptRemovalCount() }
        try check(none.count == 0 && none.oldest == nil, "with none kept the count is \(none)")
    }

    /// Replies kept for idempotency keys (issue 37): by owner and key, the first kept for a key
    /// stays, another owner's same key is another, and those older than a time are forgotten.
    public static func repliesAreKeptByOwnerAndKey(_ store: some WorkoutIndexStore) throws {
        let first = Date(timeIntervalSince1970: 1_800_000_000)
        try store.write { try $0.keepReply([1, 2, 0, 255], owner: "alice", key: "k-1", digest: "d1", now: first) }
        try store.write { try $0.keepReply([9], owner: "alice", key: "k-1", digest: "d2", now: first.addingTimeInterval(5)) }
        try store.write { try $0.keepReply([7], owner: "bob", key: "k-1", digest: "d3", now: first.addingTimeInterval(60)) }
        let alice = try store.read { try $0.keptReply(owner: "alice", key: "k-1") }
        try check(alice == KeptReply(digest: "d1", reply: [1, 2, 0, 255]), "alice's k-1 is \(String(describing: alice)), not her first reply")
        let bob = try store.read { try $0.keptReply(owner: "bob", key: "k-1") }
        try check(bob == KeptReply(digest: "d3", reply: [7]), "bob's k-1 is \(String(describing: bob))")
        try check(try store.read { try $0.keptReply(owner: "alice", key: "k-2") } == nil, "a key never kept has a reply")
        let forgotten = try store.write { try $0.forgetReplies(before: first.addingTimeInterval(30)) }
        try check(forgotten == 1, "forgetting before 30 s forgot \(forgotten), not alice's one")
        try check(try store.read { try $0.keptReply(owner: "alice", key: "k-1") } == nil, "alice's old reply is still kept")
        try check(try store.read { try $0.keptReply(owner: "bob", key: "k-1") } != nil, "bob's newer reply was forgotten")
    }

    /// The originals a DELETE removes with its workouts are those kept for their files, read for
    /// all the workouts at once; a leased job carries its workout's activity (which a pace
    /// picture's spec is drawn for).
    public static func keptOriginalsAndActivitiesAreTheWorkouts(_ store: some WorkoutIndexStore) throws {
        func workout(_ sourceID: String, file: String, activity: ActivityType) -> ImportedWorkout {
            var workout = Self.workout(sourceID)
            workout.activity = activity
            workout.file = WorkoutFile(name: file, bytes: Array(file.utf8), format: "tcx")
            return workout
        }
        let imported = try store.write { transaction in
            [
                try transaction.importWorkout(
                    workout("kept", file: "a.tcx", activity: .cycling), owner: Owner.defaultName, allowDuplicates: false, originalKept: true,
                    now: Date(), replacedFile: { _ in }
                ).id,
                try transaction.importWorkout(
                    workout("not-kept", file: "b.tcx", activity: .running), owner: Owner.defaultName, allowDuplicates: false,
                    originalKept: false, now: Date(), replacedFile: { _ in }
                ).id,
            ]
        }
        let files = try store.read { try $0.fileHashes(of: imported) }
        let kept = try store.read { try $0.keptOriginals(of: imported) }
        try check(files.count == 2 && kept.count == 1 && files.isSuperset(of: kept), "files \(files), kept originals \(kept)")
        try check(try store.read { try $0.keptOriginals(of: [imported[1]]) }.isEmpty, "the workout without its original keeps one")
        try check(try store.read { try $0.keptOriginals(of: []) }.isEmpty, "no workouts keep an original")
        let request = EnqueueRequest(ids: imported, kinds: [everyWorkoutsKind], themes: [.light])
        _ = try store.write { try $0.enqueue(request, scales: [1], now: Date(), interactivePerOwner: 1) { _, _ in "key" } }
        var lease: UInt64 = 0
        let leased = try store.write {
            try $0.lease([("w-1", 8)], now: Date(), deadline: 60) {
                lease += 1
                return lease
            }
        }
        let activities = Dictionary(uniqueKeysWithValues: leased.map { ($0.picture.workoutID, $0.inputs.activity) })
        try check(
            activities == [imported[0]: .cycling, imported[1]: .running], "the leased jobs' activities are \(activities)")
    }

    /// Summary rebuilds take owners in turn (issue 37): one owner whose time zone changes before
    /// every step restarts only their own rebuild, and another owner's finishes, its workouts
    /// counted. Before, every step served the owner first in order.
    public static func summaryRebuildsTakeOwnersInTurn(_ store: some WorkoutIndexStore) throws {
        let (restless, patient) = ("anna", "bo")
        for number in 0..<3 {
            for owner in [restless, patient] {
                _ = try store.write { transaction in
                    try transaction.importWorkout(
                        workout("\(owner)-\(number)"), owner: owner, allowDuplicates: false, originalKept: false, now: Date(), replacedFile: { _ in })
                }
            }
        }
        let zones = ["Asia/Tokyo", "America/New_York"]
        for owner in [restless, patient] {
            try store.write { try $0.setOwnerSettings(OwnerSettings(timeZone: zones[0]), owner: owner, now: Date()) }
        }
        try check(try store.read { try $0.summaryRebuilds() }.count == 2, "changing both owners' time zones scheduled no rebuilds")
        // Rebuild steps are periodic work, the leader's.
        try check(try store.write { try $0.lead(now: Date()) } != nil, "the only writer does not lead")
        var previous: String?
        var stepped: [String] = []
        for step in 0..<8 {
            try store.write { try $0.setOwnerSettings(OwnerSettings(timeZone: zones[(step + 1) % 2]), owner: restless, now: Date()) }
            guard let done = try store.write({ try $0.rebuildSummariesStep(limit: 1, after: previous) }) else { break }
            stepped.append(done.owner)
            previous = done.owner
        }
        let waiting = try store.read { try $0.summaryRebuilds() }
        try check(waiting[patient] == nil, "\(patient)'s rebuild never finished while \(restless) kept changing zones; steps went to \(stepped)")
        try check(waiting[restless] != nil, "\(restless)'s rebuild, restarted every step, is not waiting")
        let counted = try store.read {
            try $0.summaries(
                owner: patient, period: .year, from: nil, to: nil, activity: nil, defaults: .standard, now: Date(timeIntervalSince1970: 1_800_000_000)
            )
        }
        let total = counted.buckets.reduce(0) { $0 + $1.total.count }
        try check(total == 3, "\(patient)'s rebuilt summaries count \(total) workouts, not 3")
    }

    /// Leases are the writer's: taken and committed, they are counted in
    /// ``WorkoutIndexStore/leasedCount``, and the leased jobs are still pending in the index.
    public static func leasesAreTheWritersAndTheirJobsPending(_ store: some WorkoutIndexStore) throws {
        for number in 0..<3 { _ = try store.write { transaction in try importing("leased-\(number)", into: &transaction) } }
        _ = try store.write { transaction in
            try transaction.enqueue(
                EnqueueRequest(ids: nil, kinds: [everyWorkoutsKind], themes: [.light]), scales: [1], now: Date(), interactivePerOwner: 100,
                cacheKey: { _, _ in "k" })
        }
        var lease: UInt64 = 0
        let jobs = try store.write { transaction in
            try transaction.lease([("w-1", 8)], now: Date(), deadline: 60) {
                lease += 1
                return lease
            }
        }
        try check(jobs.count == 3, "8 slots leased \(jobs.count) of 3 ready jobs")
        try check(store.leasedCount == jobs.count, "\(store.leasedCount) leases counted, \(jobs.count) taken")
        let pending = try store.read { try $0.statusCounts(owner: nil) }.filter { $0.status == .pending }.map(\.count).reduce(0, +)
        try check(pending == jobs.count, "\(pending) jobs pending, \(jobs.count) leased")
        let again = try store.write { transaction in try transaction.lease([("w-2", 8)], now: Date(), deadline: 60) { 1_000 } }
        try check(again.isEmpty, "a leased job was leased again: \(again)")
    }

    /// Readers opened through the backend see what the writer committed, and only that.
    public static func readersSeeCommittedTransactions<Backend: IndexBackend>(_ backend: Backend) throws {
        let writer = try backend.openWriter(logger: Logger(label: "test"))
        let reader = try backend.openReader(logger: Logger(label: "test"))
        _ = try writer.write { transaction in try importing("seen", into: &transaction) }
        try check(try reader.read { try $0.workoutCount(owner: nil) } == 1, "the reader does not see a committed import")
        _ = try? writer.write { transaction in
            _ = try importing("rolled back", into: &transaction)
            throw Refused()
        }
        try check(try reader.read { try $0.workoutCount(owner: nil) } == 1, "the reader sees a rolled-back import")
        let current = try reader.read { try $0.currentAnchor() }
        try check(current == writer.anchor, "the reader's anchor \(current) is not the writer's \(writer.anchor)")
    }

    /// The only writer of an index leads: it is given a term, the same one at every turn (so the
    /// start sweeps run once), and its periodic work is never fenced off; a term asked for in a
    /// transaction that rolls back is asked for again at the next, and given.
    public static func theOnlyWriterLeadsWithOneTerm(_ store: some WorkoutIndexStore) throws {
        _ = try? store.write { transaction in
            _ = try transaction.lead(now: Date())
            throw Refused()
        }
        let first = try store.write { try $0.lead(now: Date()) }
        try check(first != nil, "the only writer was given no term")
        for _ in 0..<3 {
            let again = try store.write { try $0.lead(now: Date()) }
            try check(again == first, "the only writer's term changed: \(String(describing: first)), then \(String(describing: again))")
        }
        try check(try store.write { try $0.fencePeriodicWork() }, "the only writer's periodic work was fenced off")
    }
}
