import Foundation
import WorkFeedModel

/// Deterministic synthetic workout files, written in chunks so that generating them costs little
/// memory.
enum SyntheticFiles {
    /// Writes bytes to a file through a 4 MB buffer.
    struct Writer {
        private let handle: FileHandle
        private var buffer: [UInt8] = []
        private(set) var written = 0

        init(_ url: URL) throws {
            guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path)
            else { throw BenchUsageError("cannot create \(url.path)") }
            self.handle = handle
            buffer.reserveCapacity(5 << 20)
        }

        var count: Int { written + buffer.count }

        mutating func callAsFunction(_ text: String) throws {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 4 << 20 { try flush() }
        }

        mutating func bytes(_ bytes: [UInt8]) throws {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 4 << 20 { try flush() }
        }

        mutating func flush() throws {
            try handle.write(contentsOf: buffer)
            written += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }

        mutating func close() throws {
            try flush()
            try handle.close()
        }
    }

    /// A 1 Hz walk around a point, as `(latitude, longitude, elevation)`.
    static func position(_ index: Int) -> (Double, Double, Double) {
        let angle = Double(index) * 0.0007
        return (47.37 + 0.01 * sin(angle) + Double(index % 7) * 1e-7, 8.54 + 0.015 * cos(angle * 1.3), 410 + 20 * sin(angle * 3))
    }

    static func heartRate(_ index: Int) -> Int { 95 + (index / 30) % 90 }

    static let start = 1_609_491_600  // 2021-01-01 09:00:00 UTC

    /// `2021-01-01T09:00:00Z`
    static func iso(_ seconds: Int) -> String {
        let days = seconds / 86_400
        let time = seconds % 86_400
        let (year, month, day) = civil(days)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, time / 3600, time / 60 % 60, time % 60)
    }

    /// Apple Health's `2021-01-01 10:00:00 +0100`, in UTC+1.
    static func apple(_ seconds: Int) -> String {
        let local = seconds + 3600
        let days = local / 86_400
        let time = local % 86_400
        let (year, month, day) = civil(days)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d +0100", year, month, day, time / 3600, time / 60 % 60, time % 60)
    }

    /// Year, month, day of a day count since 1970.
    static func civil(_ days: Int) -> (Int, Int, Int) {
        let date = ISO8601Time.civil(fromDays: Int64(days))
        return (Int(date.year), Int(date.month), Int(date.day))
    }

    static func coordinate(_ value: Double) -> String { String(format: "%.7f", value) }

    static func writeGPX(points: Int, to url: URL, creator: String = "Garmin Connect", heartRate: Bool = true, from first: Int = start) throws {
        var out = try Writer(url)
        try out(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="\(creator)" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
             <metadata><time>\(iso(first))</time></metadata>
             <trk><name>Synthetic run</name><type>running</type><trkseg>

            """)
        for index in 0..<points {
            let (latitude, longitude, elevation) = position(index)
            var point =
                "  <trkpt lat=\"\(coordinate(latitude))\" lon=\"\(coordinate(longitude))\"><ele>\(String(format: "%.1f", elevation))</ele><time>\(iso(first + index))</time>"
            if heartRate {
                point +=
                    "<extensions><ns3:TrackPointExtension><ns3:hr>\(Self.heartRate(index))</ns3:hr><ns3:cad>84</ns3:cad></ns3:TrackPointExtension></extensions></trkpt>\n"
            } else {
                point += "<extensions><speed>2.9</speed><course>206.25</course><hAcc>3.1</hAcc><vAcc>2.0</vAcc></extensions></trkpt>\n"
            }
            try out(point)
        }
        try out(" </trkseg></trk>\n</gpx>\n")
        try out.close()
    }

    static func writeTCX(points: Int, to url: URL) throws {
        var out = try Writer(url)
        try out(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
             <Activities><Activity Sport="Running"><Id>\(iso(start))</Id>

            """)
        let laps = 20
        for lap in 0..<laps {
            try out(
                "  <Lap StartTime=\"\(iso(start + lap * points / laps))\"><TotalTimeSeconds>\(points / laps)</TotalTimeSeconds><DistanceMeters>0</DistanceMeters><Calories>0</Calories><Intensity>Active</Intensity><TriggerMethod>Manual</TriggerMethod><Track>\n"
            )
            for index in (lap * points / laps)..<((lap + 1) * points / laps) {
                let (latitude, longitude, elevation) = position(index)
                try out(
                    "   <Trackpoint><Time>\(iso(start + index))</Time><Position><LatitudeDegrees>\(coordinate(latitude))</LatitudeDegrees><LongitudeDegrees>\(coordinate(longitude))</LongitudeDegrees></Position><AltitudeMeters>\(String(format: "%.1f", elevation))</AltitudeMeters><DistanceMeters>\(index * 3)</DistanceMeters><HeartRateBpm><Value>\(heartRate(index))</Value></HeartRateBpm></Trackpoint>\n"
                )
            }
            try out("  </Track></Lap>\n")
        }
        try out(" </Activity></Activities>\n</TrainingCenterDatabase>\n")
        try out.close()
    }

    /// A FIT activity: file_id, one record a second (position, altitude, heart rate), a session.
    static func writeFIT(points: Int, to url: URL) throws {
        var data: [UInt8] = []
        func little<T: FixedWidthInteger>(_ value: T) {
            for shift in stride(from: 0, to: T.bitWidth, by: 8) { data.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        func define(_ local: UInt8, _ global: UInt16, _ fields: [(UInt8, UInt8, UInt8)]) {
            data += [0x40 | local, 0, 0]
            little(global)
            data.append(UInt8(fields.count))
            for field in fields { data += [field.0, field.1, field.2] }
        }
        let fitEpoch = 631_065_600
        define(0, 0, [(0, 1, 0x00), (1, 2, 0x84), (3, 4, 0x8C), (4, 4, 0x86)])
        data.append(0)
        data.append(4)  // type: activity
        little(UInt16(1))  // manufacturer: garmin
        little(UInt32(3_907_354_759))
        little(UInt32(start - fitEpoch))
        define(1, 20, [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (2, 2, 0x84), (3, 1, 0x02)])
        for index in 0..<points {
            let (latitude, longitude, elevation) = position(index)
            data.append(1)
            little(UInt32(start - fitEpoch + index))
            little(Int32((latitude * 2_147_483_648 / 180).rounded()))
            little(Int32((longitude * 2_147_483_648 / 180).rounded()))
            little(UInt16((elevation + 500) * 5))
            data.append(UInt8(heartRate(index)))
        }
        define(2, 18, [(253, 4, 0x86), (5, 1, 0x00)])
        data.append(2)
        little(UInt32(start - fitEpoch + points))
        data.append(1)  // sport: running
        var header: [UInt8] = [14, 0x20, 0x5C, 0x08]
        header += (0..<4).map { UInt8(truncatingIfNeeded: data.count >> (8 * $0)) }
        header += Array(".FIT".utf8)
        let headerCRC = fitCRC(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        let file = header + data
        let crc = fitCRC(file)
        try Data(file + [UInt8(crc & 0xFF), UInt8(crc >> 8)]).write(to: url)
    }

    private static func fitCRC(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401, 0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]
        var crc: UInt16 = 0
        for byte in bytes {
            var temp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ temp ^ table[Int(byte & 0xF)]
            temp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ temp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    struct GeneratedExport {
        var exportBytes = 0
        var records = 0
        var heartRate = 0
        var workouts = 0
        var routeFiles = 0
        var routeBytes = 0
    }

    /// An Apple Health export folder whose `export.xml` is about `megabytes` MB, laid out as the
    /// Health app writes it: the DTD, records grouped by type (heart rate from the watch, then
    /// from a chest strap, active and basal energy, steps, distance; each day like a watch wearer's:
    /// heart rate every 5 minutes, every 5 s during the day's 45-minute workout), then one
    /// workout a day (metadata, events, statistics; every fourth one with a 30-minute route file in
    /// `workout-routes/`), then activity summaries.
    /// - Parameter routeFiles: `false` leaves the route files (and the workouts' `WorkoutRoute`s)
    ///   out, so that reading the export reads `export.xml` alone.
    static func writeAppleHealthExport(megabytes: Int, to folder: URL, routeFiles: Bool = true) throws -> GeneratedExport {
        let routes = folder.appendingPathComponent("workout-routes")
        try FileManager.default.createDirectory(at: routes, withIntermediateDirectories: true)
        // One day of records and its workout take about this many bytes.
        let days = max(1, megabytes * 1_000_000 / 1_011_000)
        var result = GeneratedExport()
        var out = try Writer(folder.appendingPathComponent("export.xml"))
        try out(appleHeader)
        let watch =
            "sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.1\" device=\"&lt;&lt;HKDevice: 0x281b4b9d0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.1&gt;\""
        let phone =
            "sourceName=\"Anna’s iPhone\" sourceVersion=\"16.1\" device=\"&lt;&lt;HKDevice: 0x281b3c410&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,5, software:16.1&gt;\""
        func workoutStart(_ day: Int) -> Int { start + day * 86_400 - 2 * 3600 }  // 07:00 UTC, 08:00 local
        func record(_ type: String, _ source: String, _ unit: String, _ at: Int, _ seconds: Int, _ value: String, metadata: String? = nil) throws {
            var text =
                " <Record type=\"\(type)\" \(source) unit=\"\(unit)\" creationDate=\"\(apple(at + seconds + 60))\" startDate=\"\(apple(at))\" endDate=\"\(apple(at + seconds))\" value=\"\(value)\""
            if let metadata {
                text += ">\n  <MetadataEntry key=\"\(metadata)\" value=\"0\"/>\n </Record>\n"
            } else {
                text += "/>\n"
            }
            try out(text)
            result.records += 1
        }
        let heartRateType = "HKQuantityTypeIdentifierHeartRate"
        for day in 0..<days {
            let midnight = start + day * 86_400 - 9 * 3600
            let workout = workoutStart(day)
            for minute in stride(from: 0, to: 1440, by: 5) {
                let at = midnight + minute * 60
                if at >= workout && at < workout + 2700 { continue }
                try record(heartRateType, watch, "count/min", at, 0, "\(58 + minute % 23)", metadata: "HKMetadataKeyHeartRateMotionContext")
            }
            for second in stride(from: 0, to: 2700, by: 5) {
                try record(
                    heartRateType, watch, "count/min", workout + second, 0, "\(heartRate(second * 3))",
                    metadata: "HKMetadataKeyHeartRateMotionContext")
            }
            result.heartRate += 288 - 9 + 540
        }
        // A chest strap on every second workout: a second source, so the heart rate is not in
        // time order overall.
        for day in stride(from: 0, to: days, by: 2) {
            for second in stride(from: 0, to: 2700, by: 10) {
                try record(
                    heartRateType, "sourceName=\"Polar H10\" sourceVersion=\"5.0\"", "count/min", workoutStart(day) + second, 0,
                    "\(heartRate(second * 3) + 1)")
            }
            result.heartRate += 270
        }
        for day in 0..<days {
            let midnight = start + day * 86_400 - 9 * 3600
            for minute in stride(from: 420, to: 1380, by: 1) {
                try record(
                    "HKQuantityTypeIdentifierActiveEnergyBurned", watch, "kcal", midnight + minute * 60, 60,
                    String(format: "%.3f", 0.05 + Double(minute % 17) * 0.011))
            }
        }
        for day in 0..<days {
            let midnight = start + day * 86_400 - 9 * 3600
            for minute in stride(from: 0, to: 1440, by: 5) {
                try record(
                    "HKQuantityTypeIdentifierBasalEnergyBurned", watch, "kcal", midnight + minute * 60, 300,
                    String(format: "%.3f", 5.2 + Double(minute % 13) * 0.01))
            }
        }
        for type in ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierDistanceWalkingRunning"] {
            for day in 0..<days {
                let midnight = start + day * 86_400 - 9 * 3600
                for minute in stride(from: 420, to: 1380, by: 7) {
                    let value = type.hasSuffix("StepCount") ? "\(20 + minute % 90)" : String(format: "%.5f", 0.01 + Double(minute % 90) * 0.0007)
                    try record(type, phone, type.hasSuffix("StepCount") ? "count" : "km", midnight + minute * 60, 420, value)
                }
            }
        }
        let activities = ["Running", "Walking", "Cycling", "Hiking", "Swimming", "TraditionalStrengthTraining", "Yoga"]
        for day in 0..<days {
            let begin = workoutStart(day)
            let type = "HKWorkoutActivityType" + activities[day % activities.count]
            var text = """
                 <Workout workoutActivityType="\(type)" duration="45" durationUnit="min" totalDistance="7.2" totalDistanceUnit="km" totalEnergyBurned="498.2" totalEnergyBurnedUnit="kcal" \(watch) creationDate="\(apple(begin + 2760))" startDate="\(apple(begin))" endDate="\(apple(begin + 2700))">
                  <MetadataEntry key="HKIndoorWorkout" value="0"/>
                  <MetadataEntry key="HKTimeZone" value="Europe/Zurich"/>
                  <MetadataEntry key="HKWeatherTemperature" value="52 degF"/>
                  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(apple(begin))" duration="22.5" durationUnit="min"/>
                  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(apple(begin + 1350))" duration="22.5" durationUnit="min"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="\(apple(begin))" endDate="\(apple(begin + 2700))" average="141" minimum="96" maximum="184" unit="count/min"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(apple(begin))" endDate="\(apple(begin + 2700))" sum="498.2" unit="kcal"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(apple(begin))" endDate="\(apple(begin + 2700))" sum="7.2" unit="km"/>

                """
            if routeFiles && day % 4 == 0 {
                let name = "route_\(day).gpx"
                let url = routes.appendingPathComponent(name)
                try writeGPX(points: 1800, to: url, creator: "Apple Health Export", heartRate: false, from: begin)
                result.routeFiles += 1
                result.routeBytes += (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                text += """
                      <WorkoutRoute \(watch) creationDate="\(apple(begin + 2760))" startDate="\(apple(begin))" endDate="\(apple(begin + 1800))">
                       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
                       <FileReference path="/workout-routes/\(name)"/>
                      </WorkoutRoute>

                    """
            }
            try out(text + " </Workout>\n")
            result.workouts += 1
        }
        for day in 0..<days {
            let (year, month, date) = civil((start + day * 86_400) / 86_400)
            try out(
                " <ActivitySummary dateComponents=\"\(String(format: "%04d-%02d-%02d", year, month, date))\" activeEnergyBurned=\"590.252\" activeEnergyBurnedGoal=\"630\" activeEnergyBurnedUnit=\"kcal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"68\" appleExerciseTimeGoal=\"30\" appleStandHours=\"13\" appleStandHoursGoal=\"12\"/>\n"
            )
        }
        try out("</HealthData>\n")
        try out.close()
        result.exportBytes = out.written
        return result
    }

    static let appleHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 13 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
        <!ELEMENT WorkoutRoute ((MetadataEntry|FileReference)*)>
        <!ELEMENT FileReference EMPTY>
        <!ATTLIST FileReference
          path CDATA #REQUIRED
        >
        ]>
        <HealthData locale="de_CH">
         <ExportDate value="2024-03-10 12:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-20" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>

        """
}
