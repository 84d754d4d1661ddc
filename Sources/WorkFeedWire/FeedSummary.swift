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

    public init(_ record: PictureRecord) {
        kind = record.picture.kind
        theme = record.picture.theme
        scale = record.picture.scale
        status = record.status
        reason = record.reason
        cacheKey = record.cacheKey
    }
}

/// Writes a ``FeedSummaryReply`` as JSON by hand: the same document ``ControlCodec`` would write
/// (sorted keys, absent optionals left out, ISO 8601 times), several times faster. Numbers that
/// are not finite (JSON has none) are left out, or written 0 where the field is required.
public enum FeedSummaryWriter {
    public static func encode(_ reply: FeedSummaryReply) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + reply.items.count * 700)
        out.append(UInt8(ascii: "{"))
        var first = true
        out.key("items", first: &first)
        out.append(UInt8(ascii: "["))
        for (index, item) in reply.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.write(item)
        }
        out.append(UInt8(ascii: "]"))
        if let next = reply.next {
            out.key("next", first: &first)
            out.string(next)
        }
        if let size = reply.pictureSize {
            out.key("pictureSize", first: &first)
            var inner = true
            out.append(UInt8(ascii: "{"))
            out.key("height", first: &inner)
            out.integer(size.height)
            out.key("width", first: &inner)
            out.integer(size.width)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension [UInt8] {
    fileprivate mutating func write(_ item: WorkoutSummaryItem) {
        append(UInt8(ascii: "{"))
        var first = true
        key("activity", first: &first)
        string(item.activity.rawValue)
        number("calories", item.calories, first: &first)
        key("distance", first: &first)
        double(item.distance.isFinite ? item.distance : 0)
        number("duration", item.duration, first: &first)
        number("elevationGain", item.elevationGain, first: &first)
        if let end = item.end {
            key("end", first: &first)
            string(ISO8601Time.string(from: end))
        }
        number("heartRateAverage", item.heartRateAverage, first: &first)
        number("heartRateMax", item.heartRateMax, first: &first)
        key("id", first: &first)
        string(item.id.description)
        if let name = item.name {
            key("name", first: &first)
            string(name)
        }
        key("pictures", first: &first)
        append(UInt8(ascii: "["))
        for (index, picture) in item.pictures.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            write(picture)
        }
        append(UInt8(ascii: "]"))
        key("pointCount", first: &first)
        integer(item.pointCount)
        if let start = item.start {
            key("start", first: &first)
            string(ISO8601Time.string(from: start))
        }
        if let offset = item.timeZoneOffset {
            key("timeZoneOffset", first: &first)
            integer(offset)
        }
        append(UInt8(ascii: "}"))
    }

    fileprivate mutating func write(_ picture: PictureSummary) {
        append(UInt8(ascii: "{"))
        var first = true
        if let key = picture.cacheKey {
            self.key("cacheKey", first: &first)
            string(key)
        }
        key("kind", first: &first)
        string(picture.kind.rawValue)
        if let reason = picture.reason {
            key("reason", first: &first)
            string(reason)
        }
        key("scale", first: &first)
        integer(picture.scale)
        key("status", first: &first)
        string(picture.status.rawValue)
        key("theme", first: &first)
        string(picture.theme.rawValue)
        append(UInt8(ascii: "}"))
    }

    fileprivate mutating func key(_ name: StaticString, first: inout Bool) {
        if !first { append(UInt8(ascii: ",")) }
        first = false
        append(UInt8(ascii: "\""))
        name.withUTF8Buffer { append(contentsOf: $0) }
        append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    fileprivate mutating func number(_ name: StaticString, _ value: Double?, first: inout Bool) {
        guard let value, value.isFinite else { return }
        key(name, first: &first)
        double(value)
    }

    fileprivate mutating func double(_ value: Double) {
        // Whole numbers as JSONEncoder writes them (no ".0"); others in Swift's shortest form.
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int(value))
        } else {
            append(contentsOf: value.description.utf8)
        }
    }

    fileprivate mutating func integer(_ value: Int) {
        append(contentsOf: String(value).utf8)
    }

    fileprivate mutating func string(_ text: String) {
        append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }
}
