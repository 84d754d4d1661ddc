// A feed page is written on every scroll of every app: by hand (``JSONWriter``), the very
// document `JSONEncoder` writes for these types (the same members in the same order, absent
// optionals left out, `timeZone` null when unknown), several times faster
// (docs/benchmarks.md, "One shape for a workout").

extension FeedPage {
    /// The page as JSON (``FeedItem/write(to:)`` for each item).
    public func json() -> [UInt8] {
        var json = JSONWriter(capacity: 64 + items.count * 900)
        json.beginObject()
        json.key("items")
        json.beginArray()
        for item in items { item.write(to: &json) }
        json.endArray()
        json.member("next", next)
        json.endObject()
        return json.bytes
    }
}

extension FeedItem {
    /// The item as JSON.
    public func json() -> [UInt8] {
        var json = JSONWriter(capacity: 1024)
        write(to: &json)
        return json.bytes
    }

    /// Writes the item as its `Codable` form does.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("id", id.description)
        json.member("activity", activity.rawValue)
        json.member("name", name)
        json.member("title", title)
        json.member("start", start)
        json.member("end", end)
        json.member("localStart", localStart)
        json.member("timeZoneOffset", timeZoneOffset)
        json.key("timeZone")
        if let timeZone { json.string(timeZone) } else { json.null() }
        json.key("distance")
        json.number(distance)
        json.member("elapsedTime", elapsedTime)
        json.member("movingTime", movingTime)
        Self.write("pace", pace, to: &json)
        Self.write("speed", speed, to: &json)
        json.member("elevationGain", elevationGain)
        json.member("heartRateAverage", heartRateAverage)
        json.member("heartRateMax", heartRateMax)
        json.member("calories", calories)
        json.member("pointCount", pointCount)
        json.key("pictureKinds")
        json.beginArray()
        for kind in pictureKinds { json.string(kind.rawValue) }
        json.endArray()
        json.key("pictures")
        json.beginArray()
        for picture in pictures {
            json.beginObject()
            json.member("kind", picture.kind.rawValue)
            json.member("theme", picture.theme.rawValue)
            json.member("scale", picture.scale)
            json.member("status", picture.status.rawValue)
            json.member("url", picture.url)
            json.member("reason", picture.reason)
            json.member("width", picture.width)
            json.member("height", picture.height)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    private static func write(_ name: StaticString, _ rate: Rate?, to json: inout JSONWriter) {
        guard let rate, rate.value.isFinite else { return }
        json.key(name)
        json.beginObject()
        json.key("value")
        json.number(rate.value)
        json.member("unit", rate.unit.rawValue)
        json.endObject()
    }
}
