public import Foundation
public import WorkFeedModel

/// The operator commands the coordinator answers on its control socket (docs/PROTOCOL.md,
/// "Control protocol").
public enum ControlCommand: String, Sendable, Hashable, CaseIterable {
    case ping = "PING"
    case importWorkout = "IMPORT"
    case enqueue = "ENQUEUE"
    case status = "STATUS"
    case show = "SHOW"
    case feed = "FEED"
    case delete = "DELETE"
    case changes = "CHANGES"
    case failed = "FAILED"
    case resolve = "RESOLVE"
    case original = "ORIGINAL"
    case zones = "ZONES"
    case settings = "SETTINGS"
    /// Whether a picture's cache key was withdrawn (the gateway's 410 Gone).
    case picture = "PICTURE"
    /// An owner's totals per day, week, month or year (``SummaryRequest``).
    case summary = "SUMMARY"
}

/// `[WFC1][request id: u64, deadline: u64?][COMMAND][body: JSON][attachment...]`
public struct ControlRequest: Sendable, Hashable {
    public static let protocolName = "WFC1"

    public var id: UInt64
    public var command: ControlCommand
    public var body: [UInt8]
    /// Binary frames after the body (the series of an IMPORT).
    public var attachments: [[UInt8]]
    /// When the client stops waiting for the reply, in milliseconds since the Unix epoch (UTC):
    /// the coordinator carries out no request past it (docs/PROTOCOL.md, "Deadlines"), so a
    /// client that gave up knows the request was not done and never will be.
    public var deadline: UInt64?

    public init(id: UInt64, command: ControlCommand, body: [UInt8], attachments: [[UInt8]] = [], deadline: UInt64? = nil) {
        self.id = id
        self.command = command
        self.body = body
        self.attachments = attachments
        self.deadline = deadline
    }

    public var frames: [[UInt8]] {
        [Array(Self.protocolName.utf8), id.bigEndianBytes + (deadline?.bigEndianBytes ?? []), Array(command.rawValue.utf8), body] + attachments
    }

    /// Whether the request's deadline has passed at `now` (milliseconds since the Unix epoch).
    public func isPastDeadline(at now: UInt64 = ControlRequest.now()) -> Bool {
        deadline.map { $0 <= now } ?? false
    }

    /// The wall clock in milliseconds since the Unix epoch, as deadlines are written.
    public static func now() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    }

    /// Parses a request (after the routing envelope).
    /// - Throws: ``WireError`` naming the frame that is wrong.
    public init(frames: [[UInt8]]) throws(WireError) {
        guard let first = frames.first, first.elementsEqual(Self.protocolName.utf8) else {
            throw WireError("frame 0 must be the protocol \(Self.protocolName)")
        }
        var reader = FrameReader(frames, command: "request", start: 1)
        let head = try reader.bytes("request id")
        guard head.count == 8 || head.count == 16 else {
            throw WireError("request: frame 1 (request id, and optionally a deadline) must be 8 or 16 bytes, is \(head.count)")
        }
        id = head.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        deadline = head.count == 16 ? head.dropFirst(8).reduce(0) { $0 << 8 | UInt64($1) } : nil
        let name = try reader.text("command", maximumBytes: 32)
        guard let command = ControlCommand(rawValue: name) else {
            let known = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            throw WireError("unknown command '\(name.prefix(40))' (known: \(known))")
        }
        self.command = command
        body = try reader.bytes("body")
        guard body.count <= ControlLimits.maximumBodyBytes else {
            throw WireError("\(name): frame 3 (body) is \(body.count) bytes, at most \(ControlLimits.maximumBodyBytes)")
        }
        attachments = Array(frames.dropFirst(reader.index))
        guard command == .importWorkout || attachments.isEmpty else {
            throw WireError("\(name): \(attachments.count) unexpected frame(s) after the body (only IMPORT carries attachments)")
        }
    }
}

/// `[WFC1][request id: u64][OK|ERROR][body: JSON][attachment...]`; an ERROR's body is
/// `{"error": "..."}`. Only an ORIGINAL reply has an attachment (the file).
public struct ControlReply: Sendable, Hashable {
    public var id: UInt64
    public var ok: Bool
    public var body: [UInt8]
    /// Binary frames after the body (the file of an ORIGINAL).
    public var attachments: [[UInt8]]
    /// A PROGRESS reply (``ControlProgress`` as its body): the request is still being carried
    /// out, and its OK or ERROR comes later. Sent only to a request that asked for it.
    public var isProgress = false

    public init(id: UInt64, ok: Bool, body: [UInt8], attachments: [[UInt8]] = []) {
        self.id = id
        self.ok = ok
        self.body = body
        self.attachments = attachments
    }

    /// A PROGRESS reply to request `id`.
    public static func progress(id: UInt64, _ progress: ControlProgress) -> ControlReply {
        var reply = ControlReply(id: id, ok: true, body: (try? ControlCodec.encode(progress)) ?? [])
        reply.isProgress = true
        return reply
    }

    /// An ERROR reply.
    /// - Parameters:
    ///   - code: what a client switches on (``ControlErrorCode``); never the message's words.
    ///   - message: for people: what was wrong, naming the field or the id.
    public static func error(id: UInt64, code: ControlErrorCode, _ message: String) -> ControlReply {
        ControlReply(id: id, ok: false, body: (try? ControlCodec.encode(ControlErrorBody(code: code, message: message))) ?? [])
    }

    public var frames: [[UInt8]] {
        [Array(ControlRequest.protocolName.utf8), id.bigEndianBytes, Array((isProgress ? "PROGRESS" : ok ? "OK" : "ERROR").utf8), body] + attachments
    }

    public init(frames: [[UInt8]]) throws(WireError) {
        guard let first = frames.first, first.elementsEqual(ControlRequest.protocolName.utf8) else {
            throw WireError("frame 0 must be the protocol \(ControlRequest.protocolName)")
        }
        var reader = FrameReader(frames, command: "reply", start: 1)
        id = try reader.uint64("request id")
        let verdict = try reader.text("verdict")
        guard verdict == "OK" || verdict == "ERROR" || verdict == "PROGRESS" else {
            throw WireError("reply: frame 2 must be OK, ERROR or PROGRESS, is '\(verdict.prefix(20))'")
        }
        ok = verdict != "ERROR"
        isProgress = verdict == "PROGRESS"
        body = try reader.bytes("body")
        attachments = Array(frames.dropFirst(reader.index))
    }
}

/// The body of a PROGRESS reply: how far a long request has got (`done` of `total` `unit`).
public struct ControlProgress: Codable, Sendable, Hashable {
    public var done: Int
    public var total: Int
    /// What is counted: `workouts` for DELETE.
    public var unit: String

    public init(done: Int, total: Int, unit: String) {
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// The body of an ERROR reply: `{"code": "not-found", "message": "…", "error": "…"}`.
///
/// `code` is what a client switches on, `message` is for people. `error` repeats the message for
/// clients built before codes travelled (they read only `error`, and a `code` other than
/// `expired` as none); a reply without `message` (from a coordinator of before) is read from
/// `error`, and one without a code, or with a code this client does not know, has `code` `nil`
/// (docs/PROTOCOL.md, "Errors").
public struct ControlErrorBody: Codable, Sendable, Hashable {
    /// `nil` only in a reply from a coordinator of before codes, or with a code of a newer one.
    public var code: ControlErrorCode?
    public var message: String

    public init(code: ControlErrorCode?, message: String) {
        self.code = code
        self.message = message
    }

    private enum CodingKeys: String, CodingKey { case code, message, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? container.decode(String.self, forKey: .error)
        code = try? container.decodeIfPresent(ControlErrorCode.self, forKey: .code)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encode(message, forKey: .error)
    }
}

/// Why the coordinator refused a control request, on the wire as the `code` of an ERROR's body:
/// what a client switches on (the gateway maps each to an HTTP status, workctl to an exit status),
/// never the message's words. A new refusal gets a code here, and the compiler then lists the
/// places that map codes (`switch` without `default`).
public enum ControlErrorCode: String, Codable, Sendable, Hashable, CaseIterable {
    /// The request is malformed or out of range (a bad field, too many ids, a wrong command):
    /// sending it again does not help.
    case badRequest = "bad-request"
    /// What the request names is not there for this client: a workout id not in the index, or
    /// another owner's (answered exactly alike), or an original that is not kept.
    case notFound = "not-found"
    /// This client's role may not send this request (a worker key, a gateway without an owner).
    case forbidden
    /// Too many requests of this client in flight, or too many clients: not carried out; send it
    /// again once replies have come.
    case busy
    /// The request's deadline passed before it was carried out: nothing was done, nothing will be.
    case expired
    /// The coordinator failed to carry it out (an index error): its log says why.
    case `internal`
}

/// JSON as the control protocol writes it: sorted keys, ISO-8601 dates in UTC with their fraction
/// of a second (``ISO8601Time``).
public enum ControlCodec {
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
        return Array(try encoder.encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return try decoder.decode(type, from: Data(bytes))
    }
}

// MARK: - Bodies

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
        self.allowDuplicates = allowDuplicates ? true : nil
    }
}

/// STATUS: the whole system at a glance.
public struct StatusReply: Codable, Sendable, Hashable {
    public struct Count: Codable, Sendable, Hashable {
        public var kind: JobKind
        public var theme: Theme
        /// `nil` from a coordinator that counted scales together.
        public var scale: Int?
        public var status: JobStatus
        public var count: Int

        public init(kind: JobKind, theme: Theme, scale: Int? = nil, status: JobStatus, count: Int) {
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

    public init(
        workouts: Int, counts: [Count], leased: Int, workers: [Worker], ready: Int? = nil,
        finishedLastMinute: Int? = nil, oldestPending: Date? = nil, anchor: Int64? = nil, events: String? = nil
    ) {
        self.events = events
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

/// A picture's size in points, as the coordinator is configured to draw them.
public struct PictureSize: Codable, Sendable, Hashable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
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

// MARK: - Event stream

/// A picture's status changed (topic `status`).
public struct StatusEvent: Codable, Sendable, Hashable {
    public var workoutID: WorkoutID
    public var kind: JobKind
    public var theme: Theme
    public var scale: Int
    public var status: JobStatus
    public var reason: String?
    /// The failure's code (``FailureCode``), with `reason`.
    public var code: String?
    public var at: Date

    public init(
        workoutID: WorkoutID, kind: JobKind, theme: Theme, scale: Int, status: JobStatus, reason: String?, code: String? = nil, at: Date
    ) {
        self.workoutID = workoutID
        self.kind = kind
        self.theme = theme
        self.scale = scale
        self.status = status
        self.reason = reason
        self.code = code
        self.at = at
    }
}

/// A workout was imported, updated or deleted (topic `workout`).
public struct WorkoutEvent: Codable, Sendable, Hashable {
    public var workoutID: WorkoutID
    /// `imported`, `updated`, `replaced-duplicate` (an ``ImportResult`` that changed what is
    /// stored) or `deleted`.
    public var change: String
    public var owner: String?
    public var at: Date

    public init(workoutID: WorkoutID, change: String, owner: String?, at: Date = Date(timeIntervalSince1970: 0)) {
        self.workoutID = workoutID
        self.change = change
        self.owner = owner
        self.at = at
    }
}

/// Pictures removed from the cache (topic `released`), by cache key: a replaced picture, one a
/// privacy zone now hides, a deleted workout's.
public struct ReleasedEvent: Codable, Sendable, Hashable {
    public var keys: [String]
    public var at: Date

    public init(keys: [String], at: Date) {
        self.keys = keys
        self.at = at
    }
}

/// Pictures made pending by one request (topic `queued`): one event however many pictures.
public struct QueuedEvent: Codable, Sendable, Hashable {
    public var created: Int
    public var stale: Int
    public var revived: Int
    public var kinds: [JobKind]
    public var themes: [Theme]
    /// The owner whose pictures they are, when the request named one.
    public var owner: String?
    /// Interactive requests go ahead of bulk work (``EnqueueRequest/interactivePriority``).
    public var priority: Int
    public var at: Date

    public init(_ request: EnqueueRequest, _ reply: EnqueueReply, at: Date = Date(timeIntervalSince1970: 0)) {
        created = reply.created
        stale = reply.stale
        revived = reply.revived
        kinds = request.kinds
        themes = request.themes
        owner = request.owner
        priority = request.priority ?? 0
        self.at = at
    }

    /// Pictures made pending.
    public var total: Int { created + stale + revived }
}

/// A worker connected, disconnected or went silent (topic `worker`).
public struct WorkerEvent: Codable, Sendable, Hashable {
    public var name: String
    /// `connected`, `disconnected` or `gone`.
    public var change: String
    public var at: Date

    public init(name: String, change: String, at: Date) {
        self.name = name
        self.change = change
        self.at = at
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

/// ZONES: an owner's privacy zones (docs/privacy.md); with `add` or `remove`, changed first.
/// A change makes exactly that owner's pictures stale, and they are queued to be drawn again.
public struct ZonesRequest: Codable, Sendable, Hashable {
    public var owner: String
    public var add: NewZone?
    /// The id of a zone to remove.
    public var remove: Int64?

    public struct NewZone: Codable, Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        /// Metres, ``PrivacyZone/radiusRange``.
        public var radius: Double
        public init(latitude: Double, longitude: Double, radius: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.radius = radius
        }
    }

    public init(owner: String, add: NewZone? = nil, remove: Int64? = nil) {
        self.owner = owner
        self.add = add
        self.remove = remove
    }
}

public struct ZonesReply: Codable, Sendable, Hashable {
    /// The owner's zones after the change, oldest first.
    public var zones: [PrivacyZone]
    /// The zone added, with its id.
    public var added: PrivacyZone?
    /// Whether the zone to remove was there (another owner's is not).
    public var removed: Bool?
    /// Pictures of the owner made stale by the change and queued again.
    public var stale: Int
    /// Why the zone to add was not added (the list is unchanged): a problem of the request, not
    /// of the coordinator, so it is an answer rather than a refusal, and the gateway can tell its
    /// caller which field is wrong.
    public var refusal: Refusal?

    /// `bad-zone` (a field out of range: ``ControlRefusal/field``) or `too-many-zones`
    /// (``PrivacyZone/maximumPerOwner``).
    public typealias Refusal = ControlRefusal

    public init(zones: [PrivacyZone], added: PrivacyZone? = nil, removed: Bool? = nil, stale: Int = 0, refusal: Refusal? = nil) {
        self.zones = zones
        self.added = added
        self.removed = removed
        self.stale = stale
        self.refusal = refusal
    }
}

/// PICTURE: what the index knows of a cache key the picture store no longer holds.
public struct PictureRequest: Codable, Sendable, Hashable {
    /// A cache key, 64 lower-case hex digits.
    public var key: String
    public init(key: String) { self.key = key }
}

public struct PictureReply: Codable, Sendable, Hashable {
    /// The key named a picture that a change of its owner's privacy zones withdrew.
    public var withdrawn: Bool
    public init(withdrawn: Bool) { self.withdrawn = withdrawn }
}
