// A feed page is written on every scroll of every app: by hand (``JSONWriter``), the very
// document `JSONEncoder` writes for these types with `.sortedKeys` (the same members in the same
// order, absent optionals left out, `timeZone` null when unknown), several times faster
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

    /// Writes the item as its `Codable` form does with sorted keys (`JSONEncoder`'s
    /// `.sortedKeys`, as every document of the API: docs/gateway.md, "Figures"), member by
    /// member in that order.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("activity", activity.rawValue)
        json.member("calories", calories)
        Self.write("distance", distance, to: &json)
        json.member("elapsedTime", elapsedTime)
        Self.write("elevationGain", elevationGain, to: &json)
        json.member("end", end)
        json.member("heartRateAverage", heartRateAverage)
        json.member("heartRateMax", heartRateMax)
        json.member("id", id.description)
        json.member("localStart", localStart)
        json.member("movingTime", movingTime)
        json.member("name", name)
        Self.write("pace", pace, to: &json)
        json.key("pictureKinds")
        json.beginArray()
        for kind in pictureKinds { json.string(kind.rawValue) }
        json.endArray()
        json.key("pictures")
        json.beginArray()
        for picture in pictures {
            json.beginObject()
            json.member("height", picture.height)
            json.member("kind", picture.kind.rawValue)
            json.member("reason", picture.reason)
            json.member("scale", picture.scale)
            json.member("status", picture.status.rawValue)
            json.member("theme", picture.theme.rawValue)
            json.member("url", picture.url)
            json.member("width", picture.width)
            json.endObject()
        }
        json.endArray()
        json.member("place", place)
        json.member("pointCount", pointCount)
        Self.write("speed", speed, to: &json)
        json.member("start", start)
        json.key("timeZone")
        if let timeZone { json.string(timeZone) } else { json.null() }
        json.member("timeZoneOffset", timeZoneOffset)
        json.member("title", title)
        json.endObject()
    }

    private static func write(_ name: StaticString, _ quantity: Quantity?, to json: inout JSONWriter) {
        guard let quantity, quantity.value.isFinite else { return }
        json.key(name)
        json.beginObject()
        json.member("unit", quantity.unit.rawValue)
        json.key("value")
        json.number(quantity.value)
        json.endObject()
    }
}
