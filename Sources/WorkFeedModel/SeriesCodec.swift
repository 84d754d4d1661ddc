import Foundation
public import WorkFeedBytes

/// The compact binary forms in which the index stores a route and a heart-rate series, and in which
/// the coordinator ships them to workers unchanged. Both are versioned by their magic number and
/// documented in docs/series-format.md.
///
/// Route, `WFR1`, little-endian:
/// ```
/// "WFR1" | u32 segmentCount | per segment: u32 pointCount | per point:
///   i32 latitude * 1e7 | i32 longitude * 1e7 | i32 elevation in cm (Int32.min: none)
///   | i64 time in ms since 1970 UTC (Int64.min: none)
/// ```
/// Heart rate, `WFH1`, little-endian:
/// ```
/// "WFH1" | u32 sampleCount | per sample: i64 time in ms since 1970 UTC | u16 bpm * 10
/// ```
public enum SeriesCodec {
    static let routeMagic: [UInt8] = Array("WFR1".utf8)
    static let heartRateMagic: [UInt8] = Array("WFH1".utf8)
    static let bytesPerPoint = 20
    static let bytesPerSample = 10

    /// Encodes a route; coordinates are kept to 1e-7 degree (about 1 cm), elevations to 1 cm, times to 1 ms.
    public static func encode(_ route: Route) -> [UInt8] {
        var out = routeMagic
        out.reserveCapacity(8 + route.segments.count * 4 + route.pointCount * bytesPerPoint)
        out.appendLE(UInt32(route.segments.count))
        for segment in route.segments {
            out.appendLE(UInt32(segment.count))
            for point in segment {
                out.appendLE(Int32(clamping: Int64((point.latitude * 1e7).rounded())))
                out.appendLE(Int32(clamping: Int64((point.longitude * 1e7).rounded())))
                out.appendLE(point.elevation.map { Int32(clamping: Int64(($0 * 100).rounded())) } ?? Int32.min)
                out.appendLE(point.time.map { milliseconds($0) } ?? Int64.min)
            }
        }
        return out
    }

    /// Decodes a route written by ``encode(_:)-(Route)``.
    /// - Throws: ``SeriesFormatError`` when the bytes are not a `WFR1` route.
    public static func decodeRoute(_ bytes: some Collection<UInt8>) throws(SeriesFormatError) -> Route {
        var reader = LittleEndianReader<SeriesFormatError>(Array(bytes))
        guard reader.remaining >= 4, try reader.take(4, "magic").elementsEqual(routeMagic) else {
            throw SeriesFormatError("not a WFR1 route (bad magic)")
        }
        let segmentCount = try reader.integer(UInt32.self, "segment count")
        var segments: [[RoutePoint]] = []
        segments.reserveCapacity(Int(min(segmentCount, 1 << 16)))
        for _ in 0..<segmentCount {
            let count = Int(try reader.integer(UInt32.self, "segment's point count"))
            guard reader.remaining >= count * bytesPerPoint else {
                throw SeriesFormatError("route segment says \(count) points but only \(reader.remaining) bytes remain")
            }
            var points: [RoutePoint] = []
            points.reserveCapacity(count)
            // The segment's points in one checked read, decoded in one loop: a route is decoded
            // for every picture drawn, and a long one has tens of thousands of points.
            let raw = try reader.take(count * bytesPerPoint, "segment's points")
            var at = raw.startIndex
            for _ in 0..<count {
                let lat = Int32(bitPattern: Self.uint32(raw, at)), lon = Int32(bitPattern: Self.uint32(raw, at + 4))
                let ele = Int32(bitPattern: Self.uint32(raw, at + 8))
                let time = Int64(bitPattern: UInt64(Self.uint32(raw, at + 12)) | UInt64(Self.uint32(raw, at + 16)) << 32)
                at += bytesPerPoint
                points.append(
                    RoutePoint(
                        latitude: Double(lat) / 1e7,
                        longitude: Double(lon) / 1e7,
                        elevation: ele == Int32.min ? nil : Double(ele) / 100,
                        time: time == Int64.min ? nil : Date(timeIntervalSince1970: Double(time) / 1000)
                    ))
            }
            segments.append(points)
        }
        guard reader.remaining == 0 else { throw SeriesFormatError("\(reader.remaining) bytes after the route's end") }
        return Route(segments: segments)
    }

    /// Encodes heart-rate samples; bpm are kept to a tenth, times to 1 ms.
    public static func encode(_ samples: [HeartRateSample]) -> [UInt8] {
        var out = heartRateMagic
        out.reserveCapacity(8 + samples.count * bytesPerSample)
        out.appendLE(UInt32(samples.count))
        for sample in samples {
            out.appendLE(milliseconds(sample.time))
            out.appendLE(UInt16(clamping: Int((sample.bpm * 10).rounded())))
        }
        return out
    }

    /// Decodes heart-rate samples written by ``encode(_:)-([HeartRateSample])``.
    /// - Throws: ``SeriesFormatError`` when the bytes are not a `WFH1` series.
    public static func decodeHeartRate(_ bytes: some Collection<UInt8>) throws(SeriesFormatError) -> [HeartRateSample] {
        var reader = LittleEndianReader<SeriesFormatError>(Array(bytes))
        guard reader.remaining >= 4, try reader.take(4, "magic").elementsEqual(heartRateMagic) else {
            throw SeriesFormatError("not a WFH1 heart-rate series (bad magic)")
        }
        let count = Int(try reader.integer(UInt32.self, "sample count"))
        guard reader.remaining == count * bytesPerSample else {
            throw SeriesFormatError("heart-rate series says \(count) samples but has \(reader.remaining) bytes")
        }
        var samples: [HeartRateSample] = []
        samples.reserveCapacity(count)
        let raw = try reader.take(count * bytesPerSample, "samples")
        var at = raw.startIndex
        for _ in 0..<count {
            let time = Int64(bitPattern: UInt64(Self.uint32(raw, at)) | UInt64(Self.uint32(raw, at + 4)) << 32)
            let bpm = UInt16(raw[at + 8]) | UInt16(raw[at + 9]) << 8
            at += bytesPerSample
            samples.append(HeartRateSample(time: Date(timeIntervalSince1970: Double(time) / 1000), bpm: Double(bpm) / 10))
        }
        return samples
    }

    /// The little-endian `UInt32` at `at` of bytes already read checked.
    private static func uint32(_ raw: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        UInt32(raw[at]) | UInt32(raw[at + 1]) << 8 | UInt32(raw[at + 2]) << 16 | UInt32(raw[at + 3]) << 24
    }

    /// Milliseconds since 1970, saturated to what the format holds: `Int64.min` means "no time", so
    /// the earliest time written is `Int64.min + 1`, and a time past either end (or not a number)
    /// is written as that end. Converting a `Double` outside `Int64`'s range with `Int64(_:)` traps,
    /// and a time decoded from the wire can be anything a 64-bit field holds (`Int64.max` ms is
    /// 2^63 once it has been through a `Double`), so this must never be done unchecked.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard !value.isNaN else { return Int64.min + 1 }
        // 2^63 is the first Double above Int64.max; -2^63 is Int64.min, which is reserved.
        if value >= 9_223_372_036_854_775_808.0 { return Int64.max }
        if value <= -9_223_372_036_854_775_808.0 { return Int64.min + 1 }
        return max(Int64.min + 1, Int64(value))
    }
}

/// Bytes that are not a series in a format this version knows.
public struct SeriesFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension SeriesFormatError: ByteReadError {
    public static func truncated(_ field: String, offset: Int, needed: Int, remaining: Int) -> Self {
        Self("truncated: the \(field) needs \(needed) bytes at offset \(offset), \(remaining) left")
    }

    public static func notUTF8(_ field: String, offset: Int) -> Self {
        Self("the \(field) at offset \(offset) is not UTF-8")
    }
}

extension Array where Element == UInt8 {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
