import WorkFeedModel

/// Points (`trkpt`, `rtept`, `wpt`) and the heart rate in their extensions.
extension GPXParser {
    /// Reads a point; called at its start tag, returns after its end.
    /// - Throws: ``ImportError`` naming `lat` or `lon` when a coordinate is missing, not a number or
    ///   outside the globe, and `ele`, `time` or `hr` when those cannot be read.
    mutating func readPoint() throws(ImportError) -> GPXPoint {
        let line = reader.eventLine
        let latitude = try reader.numberAttribute("lat")
        let longitude = try reader.numberAttribute("lon")
        guard (-90...90).contains(latitude) else {
            throw ImportError(file: file, line: line, field: "lat", message: "\(latitude) is outside -90...90")
        }
        guard (-180...180).contains(longitude) else {
            throw ImportError(file: file, line: line, field: "lon", message: "\(longitude) is outside -180...180")
        }
        var point = GPXPoint(point: RoutePoint(latitude: latitude, longitude: longitude))
        let depth = reader.depth
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipElement()
                continue
            }
            switch reader.name.local {
            case "ele":
                point.point.elevation = try reader.readNumber(field: "ele")
            case "time":
                let timestamp = try reader.readTimestamp(field: "time")
                point.point.time = timestamp?.date
                point.offset = timestamp?.offset
            case "extensions":
                let heartRate = try readExtensions()
                if point.heartRate == nil { point.heartRate = heartRate }
            default:
                try reader.skipElement()
            }
        }
        return point
    }

    /// Reads an `<extensions>` block and returns the first heart rate in it, in any of the
    /// encodings exporters use. Readings of 0 or less mean "no reading" and are dropped. The block
    /// is read leniently: content WorkFeed does not know, an undeclared prefix, an element left
    /// unclosed or a heart rate that is not a number is passed over with a warning.
    private mutating func readExtensions() throws(ImportError) -> Double? {
        let depth = reader.depth
        let previous = reader.beginLenient()
        defer { reader.endLenient(previous) }
        var heartRate: Double?
        // Other elements are looked into, not skipped: the reading may be nested in them.
        while try reader.nextChild(of: depth) {
            guard isHeartRate(reader.name) else { continue }
            let line = reader.eventLine
            try reader.readElementText()
            do throws(ImportError) {
                let value = try reader.number(from: reader.text[...], field: "hr", line: line)
                if heartRate == nil, let value, value > 0 { heartRate = value }
            } catch {
                let current = reader.eventLine
                reader.eventLine = line
                reader.warnLeniently(kind: "hr", "\(error.message) inside <extensions>: skipped", field: "hr")
                reader.eventLine = current
            }
        }
        return heartRate
    }

    /// Reads a track's `<extensions>` for Garmin's `TrackStatsExtension` (distance, ascent, timer
    /// time, calories, average heart rate: the device's own figures), leniently like every
    /// `<extensions>` block. Several tracks add up.
    mutating func readTrackExtensions() throws(ImportError) {
        let depth = reader.depth
        let previous = reader.beginLenient()
        defer { reader.endLenient(previous) }
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == GPXNamespace.trackStatsExtension else { continue }
            let field: WritableKeyPath<DeviceSummary, Double?>
            switch reader.name.local {
            case "Distance": field = \.distance
            case "Ascent": field = \.elevationGain
            case "TimerTime": field = \.duration
            case "Calories": field = \.calories
            case "AvgHeartRate": field = \.heartRateAverage
            default: continue
            }
            try reader.readElementText()
            guard let value = reader.trimmedText.flatMap(Double.init), value.isFinite, value >= 0 else { continue }
            var stats = trackStats ?? DeviceSummary(source: "GPX TrackStatsExtension")
            // Several tracks add up (an average heart rate is kept from the first).
            if field == \DeviceSummary.heartRateAverage {
                if stats[keyPath: field] == nil { stats[keyPath: field] = value }
            } else {
                stats[keyPath: field] = (stats[keyPath: field] ?? 0) + value
            }
            trackStats = stats
        }
    }

    private func isHeartRate(_ name: XMLName) -> Bool {
        switch name.local {
        case "hr":
            return name.namespace == GPXNamespace.trackPointExtensionV1 || name.namespace == GPXNamespace.trackPointExtensionV2
                || name.namespace == GPXNamespace.clueTrust
        case "heartrate", "bpm":
            return name.namespace == namespace || name.namespace.isEmpty
        default:
            return false
        }
    }
}
