/// The messages the feed reads: records, sessions, sports, file ids, timer events, activities.
extension FITDecoder {
    mutating func handle(
        _ definition: FITMessageDefinition, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, timestamp compressed: UInt32?
    ) {
        var timestamp = compressed
        if let value = definition.integer(Self.timestampField, in: bytes, at: start) {
            timestamp = UInt32(truncatingIfNeeded: value)
            lastTimestamp = timestamp
        }
        func integer(_ number: UInt8) -> Int64? { definition.integer(number, in: bytes, at: start) }

        switch definition.globalNumber {
        case Message.record:
            // Altitude and enhanced altitude are both metres × 5 + 500; the enhanced one has more range.
            // Raw 0 (-500 m, below any land) is what devices write before they have an altitude.
            let altitude = (integer(78) ?? integer(2)).flatMap { $0 == 0 ? nil : Double($0) / 5 - 500 }
            builder.addRecord(
                timestamp: timestamp, latitude: integer(0), longitude: integer(1), altitude: altitude, heartRate: integer(3))
        case Message.session:
            if builder.sessionSport == nil { builder.sessionSport = integer(5) }
            // total_elapsed_time (7) and total_timer_time (8) in ms, total_distance (9) in cm,
            // total_calories (11) in kcal, avg_heart_rate (16), max_heart_rate (17) in bpm,
            // total_ascent (22) in m.
            builder.addSession(
                timer: integer(8), distance: integer(9), calories: integer(11), averageHeartRate: integer(16), maximumHeartRate: integer(17),
                ascent: integer(22))
        case Message.sport:
            if builder.sportMessageSport == nil { builder.sportMessageSport = integer(0) }
        case Message.fileID:
            if builder.timeCreated == nil {
                builder.serialNumber = integer(3)
                builder.timeCreated = integer(4)
            }
            // manufacturer (1): whose device wrote the altitudes.
            if builder.manufacturer == nil { builder.manufacturer = integer(1) }
        case Message.event:
            // Event 0 is the timer; types 1 (stop) and 4 (stop all) pause the recording.
            if integer(0) == 0, let type = integer(1), type == 1 || type == 4 { builder.timerStopped() }
        case Message.activity:
            // local_timestamp minus timestamp is the time zone's offset when the activity was saved.
            if let local = integer(5), let utc = timestamp {
                let offset = Int(local) - Int(utc)
                // Equal times say nothing: devices without a clock zone (the TomTom Runner 3) write
                // UTC into both; the zone of the start decides then (WorkoutTimeZone), and gives
                // +00:00 itself where that is the local time.
                if abs(offset) <= 14 * 3600, offset != 0 { builder.timeZoneOffset = offset }
            }
        default:
            break
        }
    }
}
