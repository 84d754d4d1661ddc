public import Foundation
public import WorkFeedModel

// MARK: Status and failures: STATUS, FAILED, RESOLVE (docs/PROTOCOL.md)

/// STATUS: the whole system at a glance.
public struct StatusReply: Codable, Sendable, Hashable {
    public struct Count: Codable, Sendable, Hashable {
        public var kind: PictureKind
        public var theme: Theme
        /// `nil` from a coordinator that counted scales together.
        public var scale: Int?
        public var status: JobStatus
        public var count: Int

        public init(kind: PictureKind, theme: Theme, scale: Int? = nil, status: JobStatus, count: Int) {
            self.kind = kind
            self.theme = theme
            self.scale = scale
            self.status = status
            self.count = count
        }
    }

    public struct Worker: Codable, Sendable, Hashable {
        public var name: String
        public var capacity: Int
        public var busy: Int
        public var done: Int
        /// Seconds since its last message.
        public var silentSeconds: Double?

        public init(name: String, capacity: Int, busy: Int, done: Int, silentSeconds: Double? = nil) {
            self.name = name
            self.capacity = capacity
            self.busy = busy
            self.done = done
            self.silentSeconds = silentSeconds
        }
    }

    public var workouts: Int
    public var counts: [Count]
    /// Jobs leased to workers right now.
    public var leased: Int
    /// Pending jobs ready to be leased now: the queue depth.
    public var ready: Int?
    /// Jobs finished (generated or failed) in the last minute.
    public var finishedLastMinute: Int?
    /// When the longest-waiting pending job was queued.
    public var oldestPending: Date?
    /// The index's current anchor.
    public var anchor: Int64?
    public var workers: [Worker]
    /// Where the coordinator publishes its events (`listen.events`; empty: it publishes none), so
    /// that `workctl watch` needs only the control endpoint.
    public var events: String?
    /// The owners whose summaries wait for a rebuild or are in one (their time zone, first
    /// weekday or heart-rate zones changed: docs/summaries.md), with its progress; with `owner`,
    /// only theirs. `nil` from a coordinator without summaries.
    public var summaryRebuilds: [String: SummaryRebuild]?
    /// The coordinators of an index several share (PostgreSQL), the one that does the periodic
    /// work marked; `nil` for an index of one coordinator's.
    public var coordinators: [RunningCoordinator]?
    /// Removals from the picture store that it refused and that wait in the index to be tried
    /// again (docs/operations.md, "Removals that wait"), and since when the oldest waits; `nil`
    /// from a coordinator without them.
    public var removalsWaiting: Int?
    public var oldestRemovalWaiting: Date?

    public init(
        workouts: Int, counts: [Count], leased: Int, workers: [Worker], ready: Int? = nil,
        finishedLastMinute: Int? = nil, oldestPending: Date? = nil, anchor: Int64? = nil, events: String? = nil,
        summaryRebuilds: [String: SummaryRebuild]? = nil, coordinators: [RunningCoordinator]? = nil, removalsWaiting: Int? = nil,
        oldestRemovalWaiting: Date? = nil
    ) {
        self.coordinators = coordinators
        self.removalsWaiting = removalsWaiting
        self.oldestRemovalWaiting = oldestRemovalWaiting
        self.events = events
        self.summaryRebuilds = summaryRebuilds
        self.workouts = workouts
        self.counts = counts
        self.leased = leased
        self.workers = workers
        self.ready = ready
        self.finishedLastMinute = finishedLastMinute
        self.oldestPending = oldestPending
        self.anchor = anchor
    }

    /// The number of jobs with `status`, over every kind and theme.
    public func total(_ status: JobStatus) -> Int {
        counts.filter { $0.status == status }.reduce(0) { $0 + $1.count }
    }
}

/// STATUS: with `owner`, the workout and picture counts are that owner's; with `pictures`, the
/// picture counts are of the jobs an ENQUEUE of that selection covers (what `enqueue --wait`
/// follows), nothing else.
public struct StatusRequest: Codable, Sendable, Hashable {
    public var owner: String?
    public var pictures: EnqueueRequest?
    public init(owner: String? = nil, pictures: EnqueueRequest? = nil) {
        self.owner = owner
        self.pictures = pictures
    }
}

/// FAILED: failed-no-retry pictures, listed or grouped by reason.
public struct FailedRequest: Codable, Sendable, Hashable {
    public var limit: Int
    public var group: Bool
    public init(limit: Int, group: Bool) {
        self.limit = limit
        self.group = group
    }
}

public struct FailedReply: Codable, Sendable, Hashable {
    public struct Group: Codable, Sendable, Hashable {
        /// The failure's stable code (``FailureCode``): what the group is made by.
        public var code: String
        /// The reason of the group's most recent failure, as an example.
        public var reason: String
        public var count: Int
        public init(code: String, reason: String, count: Int) {
            self.code = code
            self.reason = reason
            self.count = count
        }
    }

    /// With `group`: failures by code, most first.
    public var groups: [Group]
    /// Without `group`: the pictures, most recent first.
    public var pictures: [PictureRecord]
    public var total: Int

    public init(groups: [Group], pictures: [PictureRecord], total: Int) {
        self.groups = groups
        self.pictures = pictures
        self.total = total
    }
}

/// RESOLVE: turn id prefixes (as typed by an operator) into workout ids, as git does with commits.
public struct ResolveRequest: Codable, Sendable, Hashable {
    /// Prefixes of lower-case ids (hyphens included or not), or whole ids.
    public var prefixes: [String]
    public init(prefixes: [String]) { self.prefixes = prefixes }
}

public struct ResolveReply: Codable, Sendable, Hashable {
    public struct Match: Codable, Sendable, Hashable {
        public var prefix: String
        /// Every workout whose id starts with the prefix, up to ``ResolveReply/candidateLimit``
        /// (more than one: ambiguous; none: no such workout).
        public var ids: [WorkoutID]
        public init(prefix: String, ids: [WorkoutID]) {
            self.prefix = prefix
            self.ids = ids
        }
    }

    /// One entry per prefix asked, in order.
    public var matches: [Match]
    public init(matches: [Match]) { self.matches = matches }

    /// At most this many candidates are listed for an ambiguous prefix.
    public static let candidateLimit = 10
}
