public import Foundation

/// What importing one workout did to the index.
public enum ImportResult: String, Codable, Sendable, Hashable, CaseIterable {
    /// New to the index.
    case imported
    /// Known, and nothing changed.
    case unchanged
    /// Known, and its route or heart-rate series changed: its pictures are pending again.
    case updated
    /// Known, same series, but its figures or file details changed (a better reader, or the
    /// file's details recorded for the first time): stored, without a new route version.
    case refreshed
    /// Known, and this copy has less than the stored one (no heart rate, fewer points): the stored
    /// copy was kept and nothing changed ("kept the richer stored copy").
    case keptRicher = "kept-richer"
    /// Another workout in the index is the same activity from another file (it starts within a
    /// minute and their tracks overlap): not imported (``ImportReply/duplicateOf``).
    case duplicate
    /// Another workout in the index is the same activity from another file, and this copy is
    /// clearly richer (heart rate where it had none, or at least twice the points): this copy
    /// took its place, under its id, with a new route version (``ImportReply/duplicateOf``).
    case replacedDuplicate = "replaced-duplicate"
}

public struct ImportReply: Codable, Sendable, Hashable {
    /// The workout imported, updated or kept; for ``ImportResult/duplicate``, the id this one
    /// would have had.
    public var id: WorkoutID
    public var result: ImportResult
    public var routeVersion: Int
    /// For ``ImportResult/duplicate`` and ``ImportResult/replacedDuplicate``: the workout it
    /// duplicates, and the file that one came from.
    public var duplicateOf: WorkoutID?
    public var duplicateFile: String?
    /// For ``ImportResult/keptRicher``: what the stored copy has that this one lacks; for
    /// ``ImportResult/replacedDuplicate``: what this copy has more.
    public var reason: String?
    /// The owner the workout was filed under: the request's, or the coordinator's
    /// `owners.default` when the request named none (`nil` from coordinators before it was sent).
    public var owner: String?

    public init(
        id: WorkoutID, result: ImportResult, routeVersion: Int, duplicateOf: WorkoutID? = nil, duplicateFile: String? = nil,
        reason: String? = nil
    ) {
        self.id = id
        self.result = result
        self.routeVersion = routeVersion
        self.duplicateOf = duplicateOf
        self.duplicateFile = duplicateFile
        self.reason = reason
    }
}

/// Make sure these pictures exist and are current (`workctl enqueue`).
public struct EnqueueRequest: Codable, Sendable, Hashable {
    /// The workouts; `nil` means all of them.
    public var ids: [WorkoutID]?
    public var kinds: [PictureKind]
    /// Empty: every theme the coordinator draws (its `themes` setting); a theme it does not draw
    /// is refused `not-found`.
    public var themes: [Theme]
    /// `nil`: the scales the coordinator is configured with.
    public var scales: [Int]?
    /// Also make `failed-no-retry` jobs `pending` again (`workctl retry`, `enqueue --failed`).
    public var includeFailed: Bool?
    /// Only workouts of these activities.
    public var activities: [ActivityType]?
    /// Only workouts that started at or after this.
    public var since: Date?
    /// Only workouts that started before this.
    public var until: Date?
    /// Touch only existing jobs (stale ones, and failed ones with `includeFailed`): create none.
    public var existingOnly: Bool?
    /// Higher goes first. Bulk regeneration is 0; an interactive request (a feed row became
    /// visible) is ``interactivePriority``.
    public var priority: Int?
    /// With `includeFailed`: revive only `failed-no-retry` jobs whose failure has one of these
    /// codes (``FailureCode``); `nil`: any.
    public var reasonCodes: [String]?
    /// Only this owner's workouts (another owner's ids are left alone, as if absent).
    public var owner: String?

    public static let interactivePriority = 100
    /// Pictures drawn again because their owner's privacy zones changed: the old ones show what
    /// the owner now wants hidden, so they go ahead of bulk work, though behind a feed row that
    /// just scrolled into view.
    public static let privacyPriority = 50
    /// How many of an owner's pending pictures may wait at a priority above 0 by default
    /// (`jobs.interactive_per_owner`): the rest of what the owner asks for waits as bulk work
    /// (issue 23, finding 6).
    public static let defaultInteractivePerOwner = 100

    public init(
        ids: [WorkoutID]?, kinds: [PictureKind], themes: [Theme], scales: [Int]? = nil, priority: Int? = nil, includeFailed: Bool? = nil
    ) {
        self.includeFailed = includeFailed
        self.ids = ids
        self.kinds = kinds
        self.themes = themes
        self.scales = scales
        self.priority = priority
    }
}

public struct EnqueueReply: Codable, Sendable, Hashable {
    /// Jobs that did not exist and were created `pending`.
    public var created: Int
    /// `generated` jobs whose cache key no longer matched their inputs, made `pending` again.
    public var stale: Int
    /// Jobs already `pending`.
    public var alreadyPending: Int
    /// `generated` jobs that are current: nothing to do.
    public var current: Int
    /// `failed-no-retry` jobs left as they are (see `workctl retry`).
    public var failed: Int
    /// `failed-no-retry` jobs made `pending` again, when asked to.
    public var revived: Int
    /// Workouts whose heatmaps were asked for but not queued because they have no heart-rate
    /// samples (a heatmap of them cannot exist; this is not a failure). A re-import that brings
    /// heart rate queues them.
    public var skippedNoHeartRate: Int?
    /// Pictures asked for above priority 0 that wait as bulk work instead, because their owner
    /// already had as many interactive pictures waiting as one owner may (`nil`: none).
    public var queuedAsBulk: Int?

    public init(
        created: Int = 0, stale: Int = 0, alreadyPending: Int = 0, current: Int = 0, failed: Int = 0, revived: Int = 0,
        skippedNoHeartRate: Int? = nil
    ) {
        self.skippedNoHeartRate = skippedNoHeartRate
        self.revived = revived
        self.created = created
        self.stale = stale
        self.alreadyPending = alreadyPending
        self.current = current
        self.failed = failed
    }
}

/// One entry of the change log: what changed about a workout at an anchor.
public struct WorkoutChange: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        /// The workout was imported or updated.
        case workout
        /// One or more of its pictures changed status.
        case pictures
        /// The workout and its pictures were deleted.
        case deleted
    }

    public var anchor: Int64
    public var id: WorkoutID
    public var change: Kind
    /// The workout as the feed shows it now, when it was asked for (CHANGES with `workouts`,
    /// `/v1/changes?include=workout`); never for `deleted`.
    public var workout: FeedItem?

    public init(anchor: Int64, id: WorkoutID, change: Kind, workout: FeedItem? = nil) {
        self.anchor = anchor
        self.id = id
        self.change = change
        self.workout = workout
    }
}
