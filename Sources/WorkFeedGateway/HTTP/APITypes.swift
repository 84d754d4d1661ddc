import Foundation
import WorkFeedModel
import WorkFeedWire

/// What the gateway's JSON says about a workout (docs/openapi.yaml, `Workout`): the summary a feed
/// row shows, and its pictures.
struct WorkoutItem: Encodable, Sendable {
    var id: String
    var activity: String
    var name: String?
    /// UTC, ISO 8601.
    var start: String?
    var end: String?
    /// The time zone the workout was recorded in, as seconds east of UTC.
    var timeZoneOffset: Int?
    /// The IANA id of that zone (`Europe/Berlin`; `Etc/GMT-2` at sea), when known.
    var timeZone: String?
    /// The start in that time zone, with its offset (`2026-11-21T23:05:00+01:00`).
    var localStart: String?
    /// Metres, seconds, metres, beats per minute, kilocalories.
    var distance: Double
    var duration: Double?
    var elevationGain: Double?
    var heartRateAverage: Double?
    var heartRateMax: Double?
    var calories: Double?
    var pointCount: Int
    var pictures: [PictureItem]

    init(_ item: WorkoutWithPictures, size: PictureSize?) {
        self.init(WorkoutSummaryItem(item.workout, pictures: item.pictures), size: size)
    }

    init(_ w: WorkoutSummaryItem, size: PictureSize?) {
        id = w.id.description
        activity = w.activity.rawValue
        name = w.name
        start = w.start.map(ISO8601Time.string(from:))
        end = w.end.map(ISO8601Time.string(from:))
        timeZoneOffset = w.timeZoneOffset
        timeZone = w.timeZone
        localStart = w.start.map { Self.localTime($0, offset: w.timeZoneOffset ?? 0) }
        distance = Self.finite(w.distance) ?? 0
        duration = w.duration.flatMap(Self.finite)
        elevationGain = w.elevationGain.flatMap(Self.finite)
        heartRateAverage = w.heartRateAverage.flatMap(Self.finite)
        heartRateMax = w.heartRateMax.flatMap(Self.finite)
        calories = w.calories.flatMap(Self.finite)
        pointCount = w.pointCount
        pictures = w.pictures.map { PictureItem($0, size: size) }
    }

    /// JSON has no infinities or NaN; a figure that is not finite is left out.
    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

    /// `date` in the time zone `offset` seconds east of UTC, with that offset written out.
    static func localTime(_ date: Date, offset: Int) -> String {
        let offset = max(-18 * 3600, min(18 * 3600, offset))
        let text = ISO8601Time.string(from: date.addingTimeInterval(Double(offset)))
        guard text.hasSuffix("Z") else { return text }
        let minutes = abs(offset) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return text.dropLast() + (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }
}

/// One picture of a workout (docs/openapi.yaml, `Picture`).
struct PictureItem: Encodable, Sendable {
    var kind: String
    var theme: String
    var scale: Int
    var status: String
    /// `/v1/pictures/<cache key>.png`, when generated.
    var url: String?
    /// Why it failed, for `failed-no-retry`.
    var reason: String?
    /// In points; the PNG is `width × scale` by `height × scale` pixels.
    var width: Int?
    var height: Int?

    init(_ record: PictureSummary, size: PictureSize?) {
        kind = record.kind.rawValue
        theme = record.theme.rawValue
        scale = record.scale
        status = record.status.rawValue
        if record.status == .generated, let key = record.cacheKey, CacheLayout.isCacheKey(key) { url = Self.url(key: key) }
        reason = record.status == .failedNoRetry ? record.reason : nil
        width = size?.width
        height = size?.height
    }

    static func url(key: String) -> String { "/v1/pictures/\(key).png" }
}

struct FeedPage: Encodable, Sendable {
    var items: [WorkoutItem]
    /// Pass as `cursor` for the next page; absent after the last.
    var next: String?
}

struct ChangesPage: Encodable, Sendable {
    struct Change: Encodable, Sendable {
        var anchor: Int64
        var id: String
        var change: String
    }

    var changes: [Change]
    var more: Bool
    var anchor: Int64
}

/// What an upload did (docs/openapi.yaml, `UploadResult`).
struct UploadResult: Encodable, Sendable {
    struct Workout: Encodable, Sendable {
        var id: String
        var result: String
        var reason: String?
    }

    var id: String
    var result: String
    var workouts: [Workout]
}

/// The answer to a picture request (docs/openapi.yaml, `PictureState`).
struct PictureState: Encodable, Sendable {
    var workoutID: String
    var picture: PictureItem
}

/// A document the gateway writes by hand (``JSONWriter``), because it is written on every feed
/// request: the same members Encodable writes, without Foundation's JSONEncoder.
protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

extension FeedPage: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("items")
        json.beginArray()
        for item in items { item.write(to: &json) }
        json.endArray()
        json.member("next", next)
        json.endObject()
    }
}

extension WorkoutItem: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("id", id)
        json.member("activity", activity)
        json.member("name", name)
        json.member("start", start)
        json.member("end", end)
        json.member("timeZoneOffset", timeZoneOffset)
        json.member("timeZone", timeZone)
        json.member("localStart", localStart)
        json.key("distance")
        json.number(distance)
        json.member("duration", duration)
        json.member("elevationGain", elevationGain)
        json.member("heartRateAverage", heartRateAverage)
        json.member("heartRateMax", heartRateMax)
        json.member("calories", calories)
        json.member("pointCount", pointCount)
        json.key("pictures")
        json.beginArray()
        for picture in pictures {
            json.beginObject()
            json.member("kind", picture.kind)
            json.member("theme", picture.theme)
            json.member("scale", picture.scale)
            json.member("status", picture.status)
            json.member("url", picture.url)
            json.member("reason", picture.reason)
            json.member("width", picture.width)
            json.member("height", picture.height)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }
}
