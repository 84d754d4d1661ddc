import WorkFeedModel

/// Trackpoints: time, position, altitude and heart rate.
extension TCXParser {
    /// Reads a `Trackpoint`; called at its start, returns after its end.
    /// - Throws: ``ImportError`` naming the field when a value cannot be read, or a position is
    ///   incomplete or outside the globe.
    mutating func readTrackpoint() throws(ImportError) -> Trackpoint {
        let depth = reader.depth
        var trackpoint = Trackpoint()
        var elevation: Double?
        var position: (latitude: Double, longitude: Double)?
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipLeniently()
                continue
            }
            switch reader.name.local {
            case "Time":
                let timestamp = try reader.readTimestamp(field: "Time")
                trackpoint.time = timestamp?.date
                trackpoint.offset = timestamp?.offset
            case "Position":
                position = try readPosition()
            case "AltitudeMeters":
                elevation = try reader.readNumber(field: "AltitudeMeters")
            case "HeartRateBpm":
                trackpoint.heartRate = try readHeartRate()
            case "Extensions":
                try reader.skipLeniently()
            default:
                try reader.skipElement()
            }
        }
        if let position {
            trackpoint.point = RoutePoint(
                latitude: position.latitude, longitude: position.longitude, elevation: elevation, time: trackpoint.time)
        }
        return trackpoint
    }

    /// Reads `Position`; `nil` when it is empty.
    private mutating func readPosition() throws(ImportError) -> (latitude: Double, longitude: Double)? {
        let depth = reader.depth
        let line = reader.eventLine
        var latitude: Double?
        var longitude: Double?
        while try reader.nextChild(of: depth) {
            switch (reader.name.namespace == namespace, reader.name.local) {
            case (true, "LatitudeDegrees"): latitude = try reader.readNumber(field: "LatitudeDegrees")
            case (true, "LongitudeDegrees"): longitude = try reader.readNumber(field: "LongitudeDegrees")
            default: try reader.skipElement()
            }
        }
        switch (latitude, longitude) {
        case (nil, nil):
            return nil
        case (let latitude?, let longitude?):
            guard (-90...90).contains(latitude) else {
                throw ImportError(file: file, line: line, field: "LatitudeDegrees", message: "\(latitude) is outside -90...90")
            }
            guard (-180...180).contains(longitude) else {
                throw ImportError(file: file, line: line, field: "LongitudeDegrees", message: "\(longitude) is outside -180...180")
            }
            return (latitude, longitude)
        case (nil, _):
            throw ImportError(file: file, line: line, field: "LatitudeDegrees", message: "missing in <Position>")
        case (_, nil):
            throw ImportError(file: file, line: line, field: "LongitudeDegrees", message: "missing in <Position>")
        }
    }

    /// Reads `HeartRateBpm/Value`; readings of 0 or less mean "no reading" and give `nil`.
    private mutating func readHeartRate() throws(ImportError) -> Double? {
        let depth = reader.depth
        var heartRate: Double?
        while try reader.nextChild(of: depth) {
            if reader.name.namespace == namespace && reader.name.local == "Value" {
                if let value = try reader.readNumber(field: "HeartRateBpm"), value > 0 { heartRate = value }
            } else {
                try reader.skipElement()
            }
        }
        return heartRate
    }
}
