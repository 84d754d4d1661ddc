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
    /// encodings exporters use. Readings of 0 or less mean "no reading" and are dropped.
    private mutating func readExtensions() throws(ImportError) -> Double? {
        let depth = reader.depth
        var heartRate: Double?
        // Other elements are looked into, not skipped: the reading may be nested in them.
        while try reader.nextChild(of: depth) {
            guard isHeartRate(reader.name) else { continue }
            let value = try reader.readNumber(field: "hr")
            if heartRate == nil, let value, value > 0 { heartRate = value }
        }
        return heartRate
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
