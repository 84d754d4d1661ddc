public import Foundation
public import WorkFeedModel

// MARK: The event stream: what the coordinator publishes (docs/PROTOCOL.md, "Events")

/// A picture's status changed (topic `status`).
public struct StatusEvent: Codable, Sendable, Hashable {
    public var workoutID: WorkoutID
    public var kind: PictureKind
    public var theme: Theme
    public var scale: Int
    public var status: JobStatus
    public var reason: String?
    /// The failure's code (``FailureCode``), with `reason`.
    public var code: String?
    public var at: Date

    public init(
        workoutID: WorkoutID, kind: PictureKind, theme: Theme, scale: Int, status: JobStatus, reason: String?, code: String? = nil, at: Date
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
    public var kinds: [PictureKind]
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
