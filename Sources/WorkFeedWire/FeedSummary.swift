public import Foundation
public import WorkFeedModel

/// FEED with `"summary": true`: what a feed list shows and nothing more, for the gateway, which
/// asks for a page on every scroll of every app. The full reply (``FeedReply``) carries each
/// workout's hashes, file and device details and each picture's history; this one carries the
/// summary and, per picture, its status, reason and cache key, and is written by hand
/// (``FeedSummaryWriter``): Foundation's JSONEncoder was most of the coordinator's time per page.
public struct FeedSummaryReply: Codable, Sendable, Hashable {
    public var items: [WorkoutSummaryItem]
    public var next: String?
    public var pictureSize: PictureSize?

    public init(items: [WorkoutSummaryItem], next: String?, pictureSize: PictureSize?) {
        self.items = items
        self.next = next
        self.pictureSize = pictureSize
    }
}

/// One workout of a summary page: its figures and its pictures.
public struct WorkoutSummaryItem: Codable, Sendable, Hashable {
    public var id: WorkoutID
    public var activity: ActivityType
    public var name: String?
    public var start: Date?
    public var end: Date?
    public var timeZoneOffset: Int?
    /// The IANA zone it took place in (``WorkoutRecord/timeZone``).
    public var timeZone: String?
    public var distance: Double
    public var duration: Double?
    public var elevationGain: Double?
    public var heartRateAverage: Double?
    public var heartRateMax: Double?
    public var calories: Double?
    public var pointCount: Int
    public var pictures: [PictureSummary]

    public init(_ workout: WorkoutRecord, pictures: [PictureRecord]) {
        id = workout.id
        activity = workout.activity
        name = workout.name
        start = workout.start
        end = workout.end
        timeZoneOffset = workout.timeZoneOffset
        timeZone = workout.timeZone
        distance = workout.distance
        duration = workout.duration
        elevationGain = workout.elevationGain
        heartRateAverage = workout.heartRateAverage
        heartRateMax = workout.heartRateMax
        calories = workout.calories
        pointCount = workout.pointCount
        self.pictures = pictures.map(PictureSummary.init)
    }
}

/// One picture of a summary page.
public struct PictureSummary: Codable, Sendable, Hashable {
    public var kind: JobKind
    public var theme: Theme
    public var scale: Int
    public var status: JobStatus
    public var reason: String?
    public var cacheKey: String?

    public init(kind: JobKind, theme: Theme, scale: Int, status: JobStatus, reason: String?, cacheKey: String?) {
        self.kind = kind
        self.theme = theme
        self.scale = scale
        self.status = status
        self.reason = reason
        self.cacheKey = cacheKey
    }

    public init(_ record: PictureRecord) {
        kind = record.picture.kind
        theme = record.picture.theme
        scale = record.picture.scale
        status = record.status
        reason = record.reason
        cacheKey = record.cacheKey
    }
}

/// Writes a ``FeedSummaryReply`` as JSON by hand (``JSONWriter``): the same document
/// ``ControlCodec`` would write (sorted keys, absent optionals left out, ISO 8601 times), several
/// times faster. Numbers that are not finite (JSON has none) are left out, or written 0 where the
/// field is required.
public enum FeedSummaryWriter {
    public static func encode(_ reply: FeedSummaryReply) -> [UInt8] {
        var json = JSONWriter(capacity: 256 + reply.items.count * 700)
        json.beginObject()
        json.key("items")
        json.beginArray()
        for item in reply.items { write(item, to: &json) }
        json.endArray()
        json.member("next", reply.next)
        if let size = reply.pictureSize {
            json.key("pictureSize")
            json.beginObject()
            json.member("height", size.height)
            json.member("width", size.width)
            json.endObject()
        }
        json.endObject()
        return json.bytes
    }

    static func write(_ item: WorkoutSummaryItem, to json: inout JSONWriter) {
        json.beginObject()
        json.member("activity", item.activity.rawValue)
        json.member("calories", item.calories)
        json.key("distance")
        json.number(item.distance)
        json.member("duration", item.duration)
        json.member("elevationGain", item.elevationGain)
        json.member("end", item.end.map(ISO8601Time.string(from:)))
        json.member("heartRateAverage", item.heartRateAverage)
        json.member("heartRateMax", item.heartRateMax)
        json.member("id", item.id.description)
        json.member("name", item.name)
        json.key("pictures")
        json.beginArray()
        for picture in item.pictures {
            json.beginObject()
            json.member("cacheKey", picture.cacheKey)
            json.member("kind", picture.kind.rawValue)
            json.member("reason", picture.reason)
            json.member("scale", picture.scale)
            json.member("status", picture.status.rawValue)
            json.member("theme", picture.theme.rawValue)
            json.endObject()
        }
        json.endArray()
        json.member("pointCount", item.pointCount)
        json.member("start", item.start.map(ISO8601Time.string(from:)))
        json.member("timeZone", item.timeZone)
        json.member("timeZoneOffset", item.timeZoneOffset)
        json.endObject()
    }
}

extension FeedSummaryReply {
    /// Reads a summary page (``JSONValue``, not Foundation's JSONDecoder: this is read on every
    /// feed request).
    /// - Throws: ``WireError`` naming what is missing or malformed.
    public init(json bytes: [UInt8]) throws(WireError) {
        let document: JSONValue
        do { document = try JSONValue(parsing: bytes) } catch { throw WireError("FEED summary: \(error)") }
        guard let items = document["items"]?.array else { throw WireError("FEED summary: no items") }
        self.items = []
        self.items.reserveCapacity(items.count)
        for item in items { self.items.append(try WorkoutSummaryItem(json: item)) }
        next = document["next"]?.string
        if let size = document["pictureSize"], let width = size["width"]?.int, let height = size["height"]?.int {
            pictureSize = PictureSize(width: width, height: height)
        } else {
            pictureSize = nil
        }
    }
}

extension WorkoutSummaryItem {
    init(json: JSONValue) throws(WireError) {
        guard let text = json["id"]?.string, let id = WorkoutID(text) else { throw WireError("FEED summary: an item without a valid id") }
        guard let activity = json["activity"]?.string.flatMap(ActivityType.init(rawValue:)) else {
            throw WireError("FEED summary: item \(id): no valid activity")
        }
        guard let distance = json["distance"]?.double, let pointCount = json["pointCount"]?.int else {
            throw WireError("FEED summary: item \(id): no distance or point count")
        }
        self.id = id
        self.activity = activity
        self.distance = distance
        self.pointCount = pointCount
        name = json["name"]?.string
        start = json["start"]?.string.flatMap(ISO8601Time.date(from:))
        end = json["end"]?.string.flatMap(ISO8601Time.date(from:))
        timeZoneOffset = json["timeZoneOffset"]?.int
        timeZone = json["timeZone"]?.string
        duration = json["duration"]?.double
        elevationGain = json["elevationGain"]?.double
        heartRateAverage = json["heartRateAverage"]?.double
        heartRateMax = json["heartRateMax"]?.double
        calories = json["calories"]?.double
        pictures = []
        for picture in json["pictures"]?.array ?? [] {
            guard let kind = picture["kind"]?.string.flatMap(JobKind.init(rawValue:)),
                let theme = picture["theme"]?.string.flatMap(Theme.init(rawValue:)),
                let status = picture["status"]?.string.flatMap(JobStatus.init(rawValue:)), let scale = picture["scale"]?.int
            else { throw WireError("FEED summary: item \(id): a picture without a valid kind, theme, scale or status") }
            pictures.append(
                PictureSummary(
                    kind: kind, theme: theme, scale: scale, status: status, reason: picture["reason"]?.string, cacheKey: picture["cacheKey"]?.string))
        }
    }
}
