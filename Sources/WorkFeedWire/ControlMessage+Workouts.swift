public import Foundation
public import WorkFeedModel

// MARK: Workouts: import, show, feed, changes, delete, originals (docs/PROTOCOL.md)

/// IMPORT: one workout; attachments are its route (`WFR1`) and heart-rate (`WFH1`) series, and
/// optionally the original file, gzip-compressed, to keep beside the pictures.
public struct ImportRequest: Codable, Sendable, Hashable {
    public var source: WorkoutSource
    public var sourceID: String?
    public var activity: ActivityType
    public var name: String?
    public var start: Date?
    public var end: Date?
    public var timeZoneOffset: Int?
    /// The IANA zone it took place in, and where it and the offset came from (docs/import.md, "Time zones").
    public var timeZone: String?
    public var timeZoneSource: TimeZoneSource?
    public var origin: String
    /// The file it was read from; its SHA-256 is the identity of a workout without `sourceID`.
    public var file: WorkoutFile?
    /// Its place among the workouts of ``file``.
    public var positionInFile: Int?
    /// The device's own summary figures.
    public var device: DeviceSummary?
    /// How the route's altitudes were measured (``Route/altitudeSource``), which the route series
    /// does not carry: the coordinator counts the track's climb by it.
    public var altitudeSource: AltitudeSource?
    /// Import it even when another workout is the same activity from another file.
    public var allowDuplicates: Bool?
    /// Whose workout it is (``Owner``); absent: the coordinator's default owner.
    public var owner: String?

    public init(_ workout: ImportedWorkout, owner: String? = nil, allowDuplicates: Bool = false) {
        self.owner = owner
        source = workout.source
        sourceID = workout.sourceID
        activity = workout.activity
        name = workout.name
        start = workout.start
        end = workout.end
        timeZoneOffset = workout.timeZoneOffset
        timeZone = workout.timeZone
        timeZoneSource = workout.timeZoneSource
        origin = workout.origin
        file = workout.file
        positionInFile = workout.positionInFile == 0 ? nil : workout.positionInFile
        device = workout.device
        altitudeSource = workout.route.altitudeSource
        self.allowDuplicates = allowDuplicates ? true : nil
    }
}

/// TRACK: one workout's route as its pictures show it (privacy zones and trimmed ends applied),
/// simplified, with its elevation and heart-rate series: a ``WorkoutTrack`` (docs/PROTOCOL.md).
/// Another owner's workout is answered `not-found`, as SHOW answers it.
/// UPLOAD: the workouts of one uploaded file, as IMPORTs would carry them, with the pictures to
/// request for those that are new or changed, answered with each workout as the feed shows it,
/// all in one transaction: all of it is kept or none (issue 37, item 2: an upload was an IMPORT
/// for each workout, an ENQUEUE and a SHOW for each, so a coordinator that stalled after the
/// first kept the workout behind a 503). Attachments: each workout's route and heart-rate
/// series, in order, then, with ``hasOriginal``, the original file (gzip) of the first.
public struct UploadRequest: Codable, Sendable, Hashable {
    public var workouts: [ImportRequest]
    public var hasOriginal: Bool
    /// The pictures requested, ahead of bulk work (every theme the coordinator draws).
    public var kinds: [PictureKind]
    public var scales: [Int]
    public var priority: Int
    public var owner: String
    /// The client's `Idempotency-Key` (docs/gateway.md): the same change sent again with it is
    /// answered as the first time, not carried out twice.
    public var idempotencyKey: String?

    public init(workouts: [ImportRequest], hasOriginal: Bool, kinds: [PictureKind], scales: [Int], priority: Int, owner: String) {
        self.workouts = workouts
        self.hasOriginal = hasOriginal
        self.kinds = kinds
        self.scales = scales
        self.priority = priority
        self.owner = owner
    }
}

/// UPLOAD's answer: for each workout of the request, in order, what its import did and the
/// workout as the feed shows it (the stored one for a duplicate).
public struct UploadReply: Codable, Sendable, Hashable {
    public struct Workout: Codable, Sendable, Hashable {
        public var imported: ImportReply
        public var item: FeedItem

        public init(imported: ImportReply, item: FeedItem) {
            self.imported = imported
            self.item = item
        }
    }

    public var workouts: [Workout]

    public init(workouts: [Workout]) {
        self.workouts = workouts
    }
}

public struct TrackRequest: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public var owner: String?
    public init(id: WorkoutID, owner: String? = nil) {
        self.id = id
        self.owner = owner
    }
}

/// SHOW: one workout and its pictures; with `owner`, only when the workout is that owner's
/// (another owner's is answered as not in the index).
public struct ShowRequest: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public var owner: String?
    /// Answer with the workout's ``FeedItem`` (as the feed shows it, in its owner's units)
    /// instead of a ``ShowReply``.
    public var summary: Bool?
    public init(id: WorkoutID, owner: String? = nil, summary: Bool? = nil) {
        self.id = id
        self.owner = owner
        self.summary = summary
    }
}

public struct WorkoutWithPictures: Codable, Sendable, Hashable {
    public var workout: WorkoutRecord
    public var pictures: [PictureRecord]

    public init(workout: WorkoutRecord, pictures: [PictureRecord]) {
        self.workout = workout
        self.pictures = pictures
    }
}

/// SHOW's answer. Pictures are named by kind, theme, scale and cache key, never by a path: each
/// reader finds them in its own ``PictureStore`` (WorkFeedStore).
public struct ShowReply: Codable, Sendable, Hashable {
    public var item: WorkoutWithPictures
    /// Every picture's size in points (the PNG is this × its scale in pixels).
    public var pictureSize: PictureSize?

    public init(item: WorkoutWithPictures, pictureSize: PictureSize? = nil) {
        self.item = item
        self.pictureSize = pictureSize
    }
}

/// FEED: workouts newest first, a page at a time; one owner's, or (without `owner`) everyone's.
public struct FeedRequest: Codable, Sendable, Hashable {
    public var limit: Int
    /// The `next` of the previous page; `nil` for the first.
    public var cursor: String?
    public var owner: String?
    /// Answer with a ``FeedPage`` (each workout as the feed shows it, in its owner's units:
    /// the gateway's `/v1/feed` page) instead of a ``FeedReply``.
    public var summary: Bool?

    public init(limit: Int, cursor: String? = nil, owner: String? = nil, summary: Bool? = nil) {
        self.limit = limit
        self.cursor = cursor
        self.owner = owner
        self.summary = summary
    }
}

public struct FeedReply: Codable, Sendable, Hashable {
    public var items: [WorkoutWithPictures]
    /// Pass as `cursor` for the next page; `nil` after the last.
    public var next: String?
    /// Every picture's size in points (the PNG is this × its scale in pixels).
    public var pictureSize: PictureSize?

    public init(items: [WorkoutWithPictures], next: String?, pictureSize: PictureSize? = nil) {
        self.items = items
        self.next = next
        self.pictureSize = pictureSize
    }
}

/// DELETE: remove workouts, their series, jobs and pictures, and the kept originals no other
/// workout came from.
///
/// - `ids` alone: those workouts, whoever owns them.
/// - `ids` and `owner`: those of them that are `owner`'s; another owner's ids are `missing`.
/// - `owner` alone: every workout of that owner (a user leaving the app).
public struct DeleteRequest: Codable, Sendable, Hashable {
    public var ids: [WorkoutID]?
    public var owner: String?
    /// Send PROGRESS replies while the delete goes on (it is done in steps, docs/PROTOCOL.md).
    public var progress: Bool?
    /// The client's `Idempotency-Key` (docs/gateway.md): the same change sent again with it is
    /// answered as the first time, not carried out twice.
    public var idempotencyKey: String?
    public init(ids: [WorkoutID]?, owner: String? = nil, progress: Bool? = nil) {
        self.ids = ids
        self.owner = owner
        self.progress = progress
    }
}

public struct DeleteReply: Codable, Sendable, Hashable {
    public var deleted: [WorkoutID]
    /// Ids that were not in the index (or not the owner's).
    public var missing: [WorkoutID]
    /// Picture files in the cache removed with them (as the coordinator sees the cache).
    public var pictures: Int
    /// Series (route and heart rate) removed: one per workout.
    public var series: Int?
    /// Picture jobs removed, whatever their status.
    public var jobs: Int?
    /// Kept original files removed (those no remaining workout came from).
    public var originals: Int?

    public init(deleted: [WorkoutID], missing: [WorkoutID], pictures: Int, series: Int? = nil, jobs: Int? = nil, originals: Int? = nil) {
        self.deleted = deleted
        self.missing = missing
        self.pictures = pictures
        self.series = series
        self.jobs = jobs
        self.originals = originals
    }
}

/// CHANGES: what changed after an anchor; one owner's workouts, or (without `owner`) everyone's.
public struct ChangesRequest: Codable, Sendable, Hashable {
    public var since: Int64
    public var limit: Int
    public var owner: String?
    /// Carry each changed workout (``WorkoutChange/workout``, a ``FeedItem``) with its change;
    /// `limit` is then at most ``ControlLimits/changesWithWorkoutsLimits`` (a feed page's).
    public var workouts: Bool?
    public init(since: Int64, limit: Int, owner: String? = nil, workouts: Bool? = nil) {
        self.since = since
        self.limit = limit
        self.owner = owner
        self.workouts = workouts
    }
}

public struct ChangesReply: Codable, Sendable, Hashable {
    public var changes: [WorkoutChange]
    /// Whether more changes follow the last one returned: ask again from its anchor.
    public var more: Bool
    /// The index's current anchor.
    public var anchor: Int64

    public init(changes: [WorkoutChange], more: Bool, anchor: Int64) {
        self.changes = changes
        self.more = more
        self.anchor = anchor
    }
}

/// ORIGINAL: the kept original file of a workout. The reply's body describes it; its one
/// attachment is the file, gzip-compressed, as kept.
public struct OriginalRequest: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public init(id: WorkoutID) { self.id = id }
}

public struct OriginalReply: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public var file: WorkoutFile
    /// The workout's place among the workouts of the file.
    public var positionInFile: Int
    public init(id: WorkoutID, file: WorkoutFile, positionInFile: Int) {
        self.id = id
        self.file = file
        self.positionInFile = positionInFile
    }
}
