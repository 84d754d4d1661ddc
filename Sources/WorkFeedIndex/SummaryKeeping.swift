public import Foundation
public import WorkFeedModel

// The rules of keeping summaries (docs/summaries.md), written once over the rows every index
// stores them in: ``SummaryStorage`` is what a backend provides (SQLite's ``IndexTransaction``,
// the PostgreSQL index's transaction), its extension the counting, uncounting and rebuilds.

/// A summary bucket's key: whose, which period, its first local day, and its activity (`all`).
public struct SummaryBucketKey: Hashable, Sendable {
    public var owner: String
    public var period: SummaryPeriod
    public var start: Int
    public var activity: String

    public init(owner: String, period: SummaryPeriod, start: Int, activity: String) {
        self.owner = owner
        self.period = period
        self.start = start
        self.activity = activity
    }

    /// The `activity` of a bucket that counts every activity.
    public static let allActivities = "all"
}

/// A workout as its owner's summaries counted it (`workout_summary`).
public struct CountedWorkout: Sendable, Hashable {
    public var owner: String
    public var activity: String
    /// The local day it started on, in the calendar of the owner's summaries.
    public var day: Int
    public var contribution: SummaryContribution

    public init(owner: String, activity: String, day: Int, contribution: SummaryContribution) {
        self.owner = owner
        self.activity = activity
        self.day = day
        self.contribution = contribution
    }
}

/// What a transaction keeps of summaries between its statements: the buckets it changed, written
/// once at its end (a batch of imports touches the same week, month and year buckets again and
/// again; a count of 0 is a bucket to delete), and the owners' states it read and did not change.
public struct SummaryWork: Sendable {
    public fileprivate(set) var buckets: [SummaryBucketKey: SummaryTotals] = [:]
    fileprivate var owners: [String: SummaryOwnerState] = [:]

    public init() {}

    /// The changed buckets, to be written; forgotten here.
    public mutating func takeBuckets() -> [SummaryBucketKey: SummaryTotals] {
        defer { buckets = [:] }
        return buckets
    }
}

/// The summary calendar and zones `owner` should have now: their settings, else the zone of
/// their latest workout (UTC without one), Monday, and the configured zones.
public func wantedSummaryCalendar(
    settings: OwnerSettings, latestZone: () throws -> String?, defaults: SummaryZoneDefaults
) rethrows -> (timeZone: String, firstWeekday: Weekday, bounds: [Double]) {
    var zone = settings.timeZone
    if zone == nil { zone = try latestZone() }
    if let known = zone, TimeZone(identifier: known) == nil { zone = nil }
    return (zone ?? "UTC", settings.firstWeekday ?? .monday, defaults.bounds(settings.heartRateZones))
}

/// The rows an index keeps summaries in (docs/summaries.md), read and written inside one of its
/// transactions. Nothing here decides anything: the protocol's extension does.
public protocol SummaryStorage {
    /// A stored workout (``IndexReading/workout(_:owner:)``).
    func summaryWorkout(_ id: WorkoutID) throws -> WorkoutRecord?
    /// An owner's settings (``IndexReading/ownerSettings(owner:)``).
    func summarySettings(owner: String) throws -> OwnerSettings
    /// How many workouts an owner has.
    func summaryWorkoutCount(owner: String) throws -> Int
    /// The zones owners without their own get.
    var summaryZoneDefaults: SummaryZoneDefaults { get }
    /// Whether imports count summaries (benchmarks measure without).
    var countsSummaries: Bool { get }
    var summaryWork: SummaryWork { get set }

    /// `summary_owner`'s row of `owner`.
    func summaryOwnerRow(_ owner: String) throws -> SummaryOwnerState?
    /// A bucket as stored (not as this transaction changed it).
    func summaryBucketRow(_ key: SummaryBucketKey) throws -> SummaryTotals?
    /// How a workout is counted, if it is.
    func countedWorkout(_ id: WorkoutID) throws -> CountedWorkout?
    /// Records how a workout is counted; `nil` removes the record.
    mutating func setCountedWorkout(_ id: WorkoutID, _ counted: CountedWorkout?) throws
    /// The counted workouts of an owner that started on local days `days`.
    func countedWorkouts(owner: String, days: Range<Int>) throws -> [(id: WorkoutID, activity: ActivityType?, contribution: SummaryContribution)]
    /// Whether the owner has a workout with a time zone that starts after `start`.
    func hasZonedWorkout(owner: String, after start: Date) throws -> Bool
    /// The zone of the owner's latest dated workout that has one.
    func latestTimeZone(owner: String) throws -> String?
    /// A stored workout's heart-rate samples (none when it has no series).
    func storedHeartRate(of id: WorkoutID) throws -> [HeartRateSample]
    /// Makes or resets `owner`'s row: this calendar and these zones, no rebuild waiting or running.
    mutating func startSummaryOwnerRow(_ owner: String, timeZone: String, firstWeekday: Weekday, bounds: [Double]) throws
    /// Marks `owner`'s summaries to be rebuilt (making the row when there is none), with `total` workouts to count.
    mutating func markSummaryRebuild(owner: String, total: Int) throws
    /// The owners with summaries whose rebuild is not waiting, in order.
    func summaryOwnersNotWaiting() throws -> [String]
    /// The next owner after `owner`, in order, whose rebuild waits or runs, wrapping round to the
    /// first (`nil`: the first): rebuilds take owners in turn.
    func firstRebuildingOwner(after owner: String?) throws -> String?
    /// Removes an owner's buckets and counted workouts (a rebuild starts from nothing).
    mutating func removeSummaries(owner: String) throws
    /// Where a running rebuild is: after which workout id (`""` before the first; `nil`: finished), how many counted, of how many.
    mutating func setRebuildProgress(owner: String, after: String?, done: Int, total: Int?) throws
    /// The owner's workouts after `after` (an id, or `""` for the first), in id order, at most `limit`.
    func workoutIDs(owner: String, after: String, limit: Int) throws -> [WorkoutID]
    /// Makes the rest of the transaction the only writer of `owner`'s summaries, before their
    /// state is read for a rebuild or a schedule (an index of one writer: nothing to do; several:
    /// two coordinators' rebuild steps would count the same workouts twice).
    mutating func lockSummaries(owner: String) throws
    /// Whether this transaction may do periodic work (a rebuild step): with several writers, only
    /// under the leader's current term, held until the transaction ends (the fence of
    /// ``IndexWriting/lead(now:)``); with one writer, always.
    mutating func fencePeriodicWork() throws -> Bool
}

extension SummaryStorage {
    /// Counts a workout in its owner's summaries as it is stored now, after taking out what it
    /// counted before (if anything): called in the transaction of every change to a workout
    /// (import, re-import, replacement), so that the summaries never differ from the feed.
    /// - Parameters:
    ///   - record: the workout as its row now holds it when the caller has it (an import); read
    ///     back otherwise.
    ///   - heartRate: the workout's heart-rate samples when the caller has them; read from its
    ///     stored series otherwise.
    public mutating func recountSummary(of id: WorkoutID, as record: WorkoutRecord? = nil, heartRate: [HeartRateSample]? = nil) throws {
        guard countsSummaries else { return }
        try uncountSummary(of: id)
        try countSummary(of: id, as: record, heartRate: heartRate, fromRebuild: false)
    }

    /// Takes a workout out of its owner's buckets (before it is deleted or changed). Sums are
    /// subtracted; where the workout held an extreme (maximum heart rate, longest, fastest), the
    /// bucket's extremes are found again among its other workouts.
    public mutating func uncountSummary(of id: WorkoutID) throws {
        guard let counted = try countedWorkout(id) else { return }
        try setCountedWorkout(id, nil)
        guard let state = try summaryOwner(counted.owner) else { return }
        let calendar = try SummaryCalendar.of(state, owner: counted.owner)
        let activity = ActivityType(rawValue: counted.activity)
        for period in SummaryPeriod.allCases {
            let start = calendar.bucketStart(period, containing: counted.day)
            for bucketActivity in [activity, nil] {
                let key = SummaryBucketKey(
                    owner: counted.owner, period: period, start: start, activity: bucketActivity?.rawValue ?? SummaryBucketKey.allActivities)
                guard var totals = try bucket(key) else { continue }
                totals.subtract(counted.contribution)
                if totals.count <= 0 {
                    summaryWork.buckets[key] = SummaryTotals()
                    continue
                }
                if totals.holdsExtreme(counted.contribution, id: id) {
                    totals.clearExtremes()
                    let end = calendar.bucketEnd(period, start: start)
                    for (other, otherActivity, figures) in try countedWorkouts(owner: counted.owner, days: start..<end)
                    where bucketActivity == nil || otherActivity == bucketActivity {
                        totals.considerExtremes(figures, id: other, activity: bucketActivity)
                    }
                }
                summaryWork.buckets[key] = totals
            }
        }
    }

    /// Counts a stored workout in its owner's buckets, unless a rebuild of the owner's summaries
    /// will count it (it is waiting to start, or has not reached this workout yet). An undated
    /// workout belongs to no bucket.
    /// - Parameter given: the workout as its row holds it, when the caller has it; read back otherwise.
    /// - Returns: whether it was counted.
    @discardableResult
    public mutating func countSummary(of id: WorkoutID, as given: WorkoutRecord?, heartRate: [HeartRateSample]?, fromRebuild: Bool) throws -> Bool {
        guard let record = try given ?? summaryWorkout(id), let start = record.start, start.timeIntervalSince1970.isFinite else {
            return false
        }
        var state = try summaryOwner(record.owner)
        if state == nil {
            state = try startSummaries(owner: record.owner)
        } else if !fromRebuild, try defaultZoneMoved(record, state: state!) {
            try scheduleSummaryRebuild(owner: record.owner)
            return false
        }
        guard let state else { return false }
        if !fromRebuild {
            if state.rebuildPending { return false }
            if let after = state.rebuildAfter, id.description > after { return false }
        }
        let samples = try heartRate ?? storedHeartRate(of: id)
        let contribution = SummaryContribution(record: record, heartRate: samples, zoneBounds: state.zoneBounds)
        let calendar = try SummaryCalendar.of(state, owner: record.owner)
        let day = calendar.day(of: start)
        try setCountedWorkout(id, CountedWorkout(owner: record.owner, activity: record.activity.rawValue, day: day, contribution: contribution))
        for period in SummaryPeriod.allCases {
            let bucketStart = calendar.bucketStart(period, containing: day)
            for bucketActivity in [record.activity, nil] {
                let key = SummaryBucketKey(
                    owner: record.owner, period: period, start: bucketStart, activity: bucketActivity?.rawValue ?? SummaryBucketKey.allActivities)
                var totals = try bucket(key) ?? SummaryTotals()
                totals.add(contribution, id: id, activity: bucketActivity)
                summaryWork.buckets[key] = totals
            }
        }
        return true
    }

    /// Whether an owner without a time zone of their own has a new latest workout in another zone
    /// than their summaries' (the default follows the latest workout: docs/summaries.md).
    private func defaultZoneMoved(_ record: WorkoutRecord, state: SummaryOwnerState) throws -> Bool {
        guard let zone = record.timeZone, zone != state.timeZone, !state.rebuildPending, TimeZone(identifier: zone) != nil,
            let start = record.start
        else { return false }
        guard try summarySettings(owner: record.owner).timeZone == nil else { return false }
        return try !hasZonedWorkout(owner: record.owner, after: start)
    }

    /// The first summaries of an owner: their calendar and zones as they are now, nothing counted.
    private mutating func startSummaries(owner: String) throws -> SummaryOwnerState {
        summaryWork.owners[owner] = nil
        let wanted = try wantedCalendar(owner: owner)
        try startSummaryOwnerRow(owner, timeZone: wanted.timeZone, firstWeekday: wanted.firstWeekday, bounds: wanted.bounds)
        return SummaryOwnerState(
            timeZone: wanted.timeZone, firstWeekday: wanted.firstWeekday, zoneBounds: wanted.bounds, rebuildPending: false, rebuildAfter: nil,
            rebuildDone: 0, rebuildTotal: 0)
    }

    /// The calendar and zones `owner`'s summaries should be counted with now.
    public func wantedCalendar(owner: String) throws -> (timeZone: String, firstWeekday: Weekday, bounds: [Double]) {
        try wantedSummaryCalendar(
            settings: summarySettings(owner: owner), latestZone: { try latestTimeZone(owner: owner) }, defaults: summaryZoneDefaults)
    }

    /// Marks an owner's summaries to be built again from nothing, in the background (their time
    /// zone, first weekday or zones changed). Counting goes on meanwhile for workouts the rebuild
    /// has passed.
    public mutating func scheduleSummaryRebuild(owner: String) throws {
        try lockSummaries(owner: owner)
        summaryWork.owners[owner] = nil
        try markSummaryRebuild(owner: owner, total: summaryWorkoutCount(owner: owner))
    }

    /// Schedules a rebuild for every owner whose summaries were counted with another calendar or
    /// other zones than their settings (and the configured zones) give now.
    /// - Parameter owners: the owners to look at; `nil` for all who have summaries.
    /// - Returns: the owners whose rebuild was scheduled.
    @discardableResult
    public mutating func checkSummaryCalendars(owners: [String]? = nil) throws -> [String] {
        var scheduled: [String] = []
        for owner in try owners ?? summaryOwnersNotWaiting() {
            guard let state = try summaryOwnerRow(owner), !state.rebuildPending else { continue }
            let wanted = try wantedCalendar(owner: owner)
            if wanted.timeZone != state.timeZone || wanted.firstWeekday != state.firstWeekday || wanted.bounds != state.zoneBounds {
                try scheduleSummaryRebuild(owner: owner)
                scheduled.append(owner)
            }
        }
        return scheduled
    }

    /// One step of the rebuilds: starts a waiting one (the owner's buckets and counts go, the
    /// calendar and zones are those of now), or counts up to `limit` more workouts of a running one.
    /// Owners take turns, a step each: an owner whose settings change again and again restarts
    /// only their own rebuild, and another's goes on.
    /// - Parameter previous: the owner the last step worked on; this step takes the next one in order.
    /// - Returns: the owner worked on and how far their rebuild is, or `nil` when none waits.
    public mutating func rebuildSummariesStep(
        limit: Int, after previous: String? = nil
    ) throws
        -> (owner: String, progress: SummaryRebuild, finished: Bool)?
    {
        guard let owner = try firstRebuildingOwner(after: previous), try fencePeriodicWork() else { return nil }
        try lockSummaries(owner: owner)
        summaryWork.owners[owner] = nil
        guard var state = try summaryOwnerRow(owner) else { return nil }
        // Another writer may have finished this rebuild while this one waited for the lock.
        guard state.rebuild != nil else { return try rebuildSummariesStep(limit: limit, after: owner) }
        if state.rebuildPending {
            summaryWork.buckets = summaryWork.buckets.filter { $0.key.owner != owner }
            try removeSummaries(owner: owner)
            _ = try startSummaries(owner: owner)
            try setRebuildProgress(owner: owner, after: "", done: 0, total: summaryWorkoutCount(owner: owner))
            guard let started = try summaryOwnerRow(owner) else { return nil }
            state = started
        }
        let ids = try workoutIDs(owner: owner, after: state.rebuildAfter ?? "", limit: limit)
        for id in ids { try countSummary(of: id, as: nil, heartRate: nil, fromRebuild: true) }
        let done = state.rebuildDone + ids.count
        let finished = ids.count < limit
        try setRebuildProgress(owner: owner, after: finished ? nil : ids.last?.description, done: done, total: nil)
        summaryWork.owners[owner] = nil
        return (owner, SummaryRebuild(done: done, total: max(done, state.rebuildTotal)), finished)
    }

    /// An owner's summary state, read once a transaction: each import of a batch needs it.
    /// Whatever writes `summary_owner` forgets it.
    private mutating func summaryOwner(_ owner: String) throws -> SummaryOwnerState? {
        if let known = summaryWork.owners[owner] { return known }
        let state = try summaryOwnerRow(owner)
        summaryWork.owners[owner] = state
        return state
    }

    /// A bucket as this transaction has left it so far.
    private func bucket(_ key: SummaryBucketKey) throws -> SummaryTotals? {
        if let changed = summaryWork.buckets[key] { return changed.count > 0 ? changed : nil }
        return try summaryBucketRow(key)
    }
}

extension SummaryReport {
    /// An owner's summaries (``IndexReading/summaries(owner:period:from:to:activity:defaults:now:)``):
    /// every bucket of `period` from the one holding local day `from` to the one holding `to`
    /// (both in the owner's zone), empty ones included.
    /// - Parameters:
    ///   - from: a local day (``SummaryCalendar``); `nil`: eleven buckets before `to`'s.
    ///   - to: a local day; `nil`: today in the owner's zone (kept within ten years after `from`).
    ///   - activity: only this activity (it is then also the `total`); `nil`: all, each apart too.
    ///   - stored: the owner's summary state as stored; `wanted`, the calendar and zones an owner
    ///     not counted yet would get.
    ///   - buckets: the stored buckets whose first days are in `firstStart...lastStart`, by first
    ///     day and activity (of `activity` only, when given).
    /// - Throws: ``SummaryRangeError`` for `from` after `to` or a range over ten years.
    public static func assemble(
        owner: String, period: SummaryPeriod, from: Int?, to: Int?, activity: ActivityType?, now: Date, stored: SummaryOwnerState?,
        wanted: () throws -> (timeZone: String, firstWeekday: Weekday, bounds: [Double]), anchor: Int64,
        buckets: (_ firstStart: Int, _ lastStart: Int) throws -> [Int: [String: SummaryTotals]]
    ) throws -> SummaryReport {
        let state: SummaryOwnerState
        if let stored, !stored.zoneBounds.isEmpty || !stored.rebuildPending {
            state = stored
        } else {
            let wanted = try wanted()
            state = SummaryOwnerState(
                timeZone: wanted.timeZone, firstWeekday: wanted.firstWeekday, zoneBounds: wanted.bounds, rebuildPending: false, rebuildAfter: nil,
                rebuildDone: 0, rebuildTotal: 0)
        }
        let calendar = try SummaryCalendar.of(state, owner: owner)
        // Without `to`: today, but never before `from` nor more than ten years after it.
        var last = to ?? calendar.day(of: now)
        if to == nil, let from { last = min(max(last, from), from + SummaryPeriod.maximumRangeDays) }
        var first = from ?? calendar.bucketStart(period, containing: last)
        if from == nil {
            // Twelve buckets, as far as ten years go (ten years of years).
            for _ in 0..<11 {
                let previous = calendar.bucketStart(period, containing: first - 1)
                guard last - previous <= SummaryPeriod.maximumRangeDays else { break }
                first = previous
            }
        }
        try SummaryRangeError.check(from: first, to: last)
        let firstStart = calendar.bucketStart(period, containing: first)
        let lastStart = calendar.bucketStart(period, containing: last)
        let rows = try buckets(firstStart, lastStart)
        let zones = state.zoneBounds.count + 1
        var report: [SummaryBucket] = []
        var start = firstStart
        while start <= lastStart {
            let end = calendar.bucketEnd(period, start: start)
            let (startInstant, endInstant) = (calendar.startInstant(ofDay: start), calendar.startInstant(ofDay: end))
            // A day the zone skipped (Samoa's 2011-12-30, Kiritimati's 1994-12-31: the clocks went
            // from the day before to the day after) has no instant, so no bucket: no workout can
            // start on it (docs/summaries.md, "Days that do not exist"). Only a day can be skipped;
            // a longer bucket that starts on one starts at the first instant after it.
            guard endInstant > startInstant else {
                start = end
                continue
            }
            let found = rows[start] ?? [:]
            var activities: [String: SummaryFigures] = [:]
            for (name, totals) in found where name != SummaryBucketKey.allActivities { activities[name] = totals.figures }
            let total = activity.map { activities[$0.rawValue] } ?? found[SummaryBucketKey.allActivities]?.figures
            report.append(
                SummaryBucket(
                    start: calendar.localText(startInstant), end: calendar.localText(endInstant),
                    total: total ?? .empty(zones: zones), activities: activities))
            start = end
        }
        return SummaryReport(
            period: period, timeZone: state.timeZone, firstWeekday: state.firstWeekday, heartRateZones: state.zoneBounds, anchor: anchor,
            rebuilding: stored?.rebuild, buckets: report)
    }
}

extension SummaryCalendar {
    /// The calendar of an owner's summaries.
    public static func of(_ state: SummaryOwnerState, owner: String) throws(IndexError) -> SummaryCalendar {
        guard let calendar = SummaryCalendar.shared(timeZone: state.timeZone, firstWeekday: state.firstWeekday) else {
            throw IndexError.corruptRow(
                table: "summary_owner", row: owner, column: "time_zone", value: "'\(state.timeZone)', a zone this system does not know")
        }
        return calendar
    }
}
