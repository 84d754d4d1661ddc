import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

/// Apple Health exports. Expected values were computed apart from the reader, with Python's
/// `xml.etree` and `zipfile` over the same files (dates parsed with `strptime("%Y-%m-%d %H:%M:%S %z")`,
/// heart-rate records filtered by type, unit and the workout's [start, end], source identifiers
/// with `hashlib.sha256`).
@Suite struct AppleHealthTests {
    /// The dogsheep workout, the same in both of its fixtures.
    private static let dogsheepID = "f626c1170b293dfddb5ef8fd7035a122385827adbd15e0cb05d5e86054f88110"

    private func single(_ batch: ImportBatch, sourceLocation: SourceLocation = #_sourceLocation) throws -> ImportedWorkout {
        #expect(batch.errors.isEmpty, "\(batch.errors)", sourceLocation: sourceLocation)
        #expect(batch.workouts.count == 1, sourceLocation: sourceLocation)
        return try #require(batch.workouts.first, sourceLocation: sourceLocation)
    }

    @Test func readsInlineLocations() throws {
        let url = try Fixture.url("apple-health/dogsheep_export_inline-route-locations.xml")
        let workout = try single(WorkoutFileReader.readAll(contentsOf: url))
        #expect(workout.source == .appleHealth)
        #expect(workout.sourceID == Self.dogsheepID)
        #expect(workout.activity == .running)
        #expect(workout.name == nil)
        #expect(workout.origin == url.path + ":14")
        Expected.check(workout.start, 1_479_133_541, "start", #_sourceLocation)
        Expected.check(workout.end, 1_479_133_852, "end", #_sourceLocation)
        // HKTimeZone America/Los_Angeles on 2016-11-14 is PST; the file writes -0700 (the zone at
        // export time, 2019-07-19).
        #expect(workout.timeZoneOffset == -28_800)
        #expect(workout.route.segments.count == 1)
        #expect(workout.route.pointCount == 2)
        let points = Array(workout.route.points)
        Expected.check(points.first, .init(37.7777, -122.426, 1_479_133_544), "first", #_sourceLocation)
        Expected.check(points.last, .init(37.7777, -122.426, 1_479_133_544), "last", #_sourceLocation)
        #expect(points.map(\.elevation) == [21.2694, 21.2677])
        // The one heart-rate record (2018-09-10) is outside the workout.
        #expect(workout.heartRate.isEmpty)
    }

    @Test func readsTheExportFolderWithARouteFile() throws {
        let folder = try Fixture.url("apple-health/dogsheep_apple_health_export")
        let workout = try single(WorkoutFileReader.readAll(contentsOf: folder))
        // The same workout as the inline fixture: the same identifier.
        #expect(workout.sourceID == Self.dogsheepID)
        #expect(workout.activity == .running)
        // The route file's points (2019-06-11) are not within the workout (2016-11-14): they are
        // the user's data and kept as they are.
        #expect(workout.route.pointCount == 3)
        let points = Array(workout.route.points)
        Expected.check(points.first, .init(37.781672, -122.396397, 1_560_290_442), "first", #_sourceLocation)
        Expected.check(points.last, .init(37.781670, -122.396394, 1_560_290_443), "last", #_sourceLocation)
        Expected.check(workout.start, 1_479_133_541, "start", #_sourceLocation)

        // The same through its export.xml, through read(contentsOf:), and through collectFiles,
        // which gives the export.xml alone and not the route file as a workout of its own.
        let export = folder.appendingPathComponent("export.xml")
        #expect(WorkoutFileReader.readAll(contentsOf: export).workouts == [workout])
        #expect(try WorkoutFileReader.read(contentsOf: folder) == [workout])
        #expect(try WorkoutFileReader.collectFiles([folder.path]).map(\.lastPathComponent) == ["export.xml"])
        #expect(AppleHealthReader.read(exportAt: folder).workouts == [workout])
    }

    @Test func readsTheExportInsideAZip() throws {
        let url = try Fixture.url("zip/apple_health_export.zip")
        let workout = try single(WorkoutFileReader.readAll(contentsOf: url))
        #expect(workout.sourceID == Self.dogsheepID)
        #expect(workout.origin == url.path + ":apple_health_export/export.xml:14")
        #expect(workout.route.pointCount == 3)
        // The unreferenced route file, export_cda.xml and the __MACOSX fork are not read.
        let folder = WorkoutFileReader.readAll(contentsOf: try Fixture.url("apple-health/dogsheep_apple_health_export"))
        #expect(workout.route == folder.workouts.first?.route)
        // The route file streamed instead of inflated into memory: the same.
        let streamed = try single(WorkoutFileReader.readAll(contentsOf: url, limits: ArchiveLimits(inMemoryEntrySize: 100)))
        #expect(streamed.withoutOriginal == workout.withoutOriginal)
        #expect(streamed.file?.sha256 == workout.file?.sha256)
    }

    @Test func aCorruptExportInsideAZipGivesOneErrorAndNoWorkouts() throws {
        var bytes = try Fixture.bytes("zip/apple_health_export.zip")
        // The central directory's copy of the name comes last; its record's CRC is 30 bytes before it.
        let name = Array("apple_health_export/export.xml".utf8)
        let nameIndex = try #require((0...(bytes.count - name.count)).last { bytes[$0..<($0 + name.count)].elementsEqual(name) })
        bytes[nameIndex - 30] ^= 0xFF
        let batch = WorkoutFileReader.readAll(bytes: bytes, file: "export.zip")
        #expect(batch.workouts.isEmpty)
        #expect(batch.errors.map(\.file) == ["export.zip:apple_health_export/export.xml"])
        #expect(batch.errors.first?.message.contains("CRC-32 mismatch") == true, "\(batch.errors)")
    }

    @Test func acceptsTheInternalDTD() throws {
        let url = try Fixture.url("apple-health/tdda_export_with-doctype-dtd.xml")
        let workout = try single(WorkoutFileReader.readAll(contentsOf: url))
        #expect(workout.activity == .other)
        #expect(workout.sourceID == "ccbf5784c5c58c31831914777df2c1230102dfa0e9f56d650b950fa1a239bcd6")
        Expected.check(workout.start, 1_459_590_038, "start", #_sourceLocation)
        Expected.check(workout.end, 1_459_591_942, "end", #_sourceLocation)
        #expect(workout.timeZoneOffset == 3600)
        #expect(workout.route.isEmpty)
        #expect(workout.heartRate.isEmpty)
        #expect(workout.origin.hasSuffix(":100"))
    }

    @Test func anExportWithoutWorkoutsGivesNothing() throws {
        let xml = WorkoutFileReader.readAll(contentsOf: try Fixture.url("apple-health/apple-health-parser_export_hr-records_no-workout.xml"))
        #expect(xml == ImportBatch())
        // The zip around it: .DS_Store and the __MACOSX forks are skipped, export.xml is read.
        let zip = WorkoutFileReader.readAll(contentsOf: try Fixture.url("apple-health/apple-health-parser_export_with-macosx-junk.zip"))
        #expect(zip == ImportBatch())
        #expect(try WorkoutFileReader.read(contentsOf: try Fixture.url("apple-health/apple-health-parser_export_with-macosx-junk.zip")).isEmpty)
    }

    @Test func readsARealAppleRouteFileThroughAnExport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wf-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("workout-routes"), withIntermediateDirectories: true)
        try Data(try Fixture.bytes("apple-health/togeojson_apple-watch_workout-route_2019.gpx"))
            .write(to: folder.appendingPathComponent("workout-routes/route_2019-12-15_3.19pm.gpx"))
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Tom’s Apple Watch" startDate="2019-12-15 15:19:00 -0500" endDate="2019-12-15 15:21:00 -0500">
              <WorkoutRoute sourceName="Tom’s Apple Watch"><FileReference path="/workout-routes/route_2019-12-15_3.19pm.gpx"/></WorkoutRoute>
              <WorkoutRoute sourceName="Tom’s Apple Watch"><FileReference path="/../../etc/passwd"/></WorkoutRoute>
             </Workout>
            </HealthData>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("export.xml"))
        let batch = WorkoutFileReader.readAll(contentsOf: folder)
        let workout = try #require(batch.workouts.first)
        #expect(workout.activity == .walking)
        #expect(workout.timeZoneOffset == -18_000)
        #expect(workout.sourceID == "b31abf08da507056adcca0bb4b36643716474da8f0bac2a575cf4d43fd7343b1")
        #expect(workout.route.pointCount == 44)
        let points = Array(workout.route.points)
        Expected.check(points.first, .init(32.064999, -81.097216, 1_576_441_195), "first", #_sourceLocation)
        Expected.check(points.last, .init(32.064857, -81.096520, 1_576_441_238), "last", #_sourceLocation)
        // A path that climbs out of the export folder is refused, not followed.
        #expect(batch.errors.count == 1)
        #expect(batch.errors.first?.field == "FileReference")
        #expect(batch.errors.first?.message.contains("outside the export folder") == true, "\(batch.errors)")
    }

    @Test func assignsHeartRateRecordsToWorkouts() throws {
        let url = try Fixture.url("apple-health/handmade_export_hr-assignment.xml")
        let batch = WorkoutFileReader.readAll(contentsOf: url)
        #expect(batch.workouts.map(\.activity) == [.running, .walking, .cycling, .other])
        #expect(batch.workouts.map { $0.origin.split(separator: ":").last } == ["30", "43", "45", "50"])
        let heartRate = batch.workouts.map { $0.heartRate.map { [$0.time.timeIntervalSince1970, $0.bpm] } }
        #expect(
            heartRate == [
                // 08:59:59 is before the start; 09:05 is there twice, once kept; 2.5 count/s is 150;
                // "fast" and -1 are skipped; the record inside the Correlation is not counted.
                [[1_709_971_200, 100], [1_709_971_500, 110], [1_709_971_800, 120.5], [1_709_972_400, 150], [1_709_973_000, 130]],
                // A record written after the workouts.
                [[1_709_991_000, 95]],
                [],
                // Overlaps the run: the same samples count for both.
                [[1_709_972_400, 150], [1_709_973_000, 130], [1_709_973_001, 131]],
            ])
        let run = try #require(batch.workouts.first)
        #expect(run.sourceID == "c3f6a1561bb3efbc1c9da5053d305eb50a54e5c5033f0dde810f0fa77496e4ab")
        #expect(run.timeZoneOffset == 3600)
        #expect(run.route.pointCount == 3)
        #expect(run.route.points.map(\.elevation) == [408.5, nil, 411])
        Expected.check(run.route.points.first, .init(47.376887, 8.541694, 1_709_971_201), "first", #_sourceLocation)
        Expected.check(Array(run.route.points).last, .init(47.384201, 8.538912, 1_709_972_999), "last", #_sourceLocation)
        #expect(
            batch.workouts.map(\.sourceID) == [
                "c3f6a1561bb3efbc1c9da5053d305eb50a54e5c5033f0dde810f0fa77496e4ab",
                "2b39bca758a8f5f3cf00bed826fef020e16380b0b35f133dbf17053df737a8e2",
                "0a2d47b9efe34bdf21805c1c9fe5ce1a020bdcc00d054e602a038a677d14244f",
                "1b52d6e894e79faf06fc8e0cc6b61ac62ebf21857740ca47927a53a660ed6866",
            ])
        // Its dates are written `+0000`: UTC, no local offset (issue 36); it has no route to look
        // a zone up from, so it is shown in UTC.
        #expect(batch.workouts[3].timeZoneOffset == nil)

        // The hiking workout has no route and is kept; the cycling one's route file is missing:
        // it is kept without a route and the error says which file.
        #expect(batch.workouts[1].route.isEmpty && batch.workouts[2].route.isEmpty)
        let errors = batch.errors.map { "\($0.line.map(String.init) ?? "-") \($0.field ?? "-") \($0.message)" }
        #expect(errors.count == 4, "\(errors)")
        #expect(errors.contains("22 value not a number: 'fast' (2 heart-rate records skipped, this is the first)"), "\(errors)")
        #expect(errors.contains("44 startDate not a date: 'yesterday'"), "\(errors)")
        #expect(errors.contains("55 latitude 147.0 is outside -90...90"), "\(errors)")
        #expect(
            errors.contains("45 FileReference route file '/workout-routes/route_2024-03-09_5.00pm.gpx' is not in the export"),
            "\(errors)")
        #expect(batch.errors.allSatisfy { $0.file == url.path })

        // readEach hands out the same workouts one by one.
        var handed: [ImportedWorkout] = []
        let eachErrors = WorkoutFileReader.readEach(contentsOf: url) { handed.append($0) }
        #expect(ImportBatch(workouts: handed, errors: eachErrors) == batch)
    }

    @Test func neverExpandsEntities() throws {
        let text = String(decoding: try Fixture.bytes("apple-health/handmade_export_hr-assignment.xml"), as: UTF8.self)
        for entity in ["&secret;", "&lol;"] {
            let bytes = Array(text.replacingOccurrences(of: "sourceName=\"Polar H10\"", with: "sourceName=\"\(entity)\"").utf8)
            let batch = WorkoutFileReader.readAll(bytes: bytes, file: "export.xml")
            #expect(batch.workouts.isEmpty)
            #expect(batch.errors.count == 1)
            #expect(batch.errors.first?.message.contains("undefined entity") == true, "\(batch.errors)")
        }
    }

    @Test func aBrokenExportIsOneErrorAndNoWorkouts() throws {
        let bytes = try Fixture.bytes("apple-health/handmade_export_hr-assignment.xml")
        let batch = WorkoutFileReader.readAll(bytes: Array(bytes.prefix(bytes.count - 200)), file: "export.xml")
        #expect(batch.workouts.isEmpty)
        #expect(batch.errors.count == 1)
        #expect(batch.errors.first?.message.contains("unexpected end of file") == true, "\(batch.errors)")
        // A file named export.xml whose content is not recognized is taken for an export by its name.
        let other = WorkoutFileReader.readAll(bytes: Array("<HealthDatum/>".utf8), file: "export.xml")
        #expect(other.errors.first?.message == "not an Apple Health export (root element is HealthDatum, not HealthData)")
        let empty = WorkoutFileReader.readAll(bytes: Array("<?xml version=\"1.0\"?>\n".utf8), file: "export.xml")
        #expect(empty.errors.first?.message == "no root element: the file is empty or not XML", "\(empty.errors)")
    }

    @Test(arguments: [
        ("HKWorkoutActivityTypeRunning", ActivityType.running), ("HKWorkoutActivityTypeWalking", .walking),
        ("HKWorkoutActivityTypeHiking", .walking), ("HKWorkoutActivityTypeCycling", .cycling),
        ("HKWorkoutActivityTypeHandCycling", .other), ("HKWorkoutActivityTypeWheelchairRunPace", .other),
        ("HKWorkoutActivityTypeWheelchairWalkPace", .other), ("HKWorkoutActivityTypeSwimming", .other),
        ("HKWorkoutActivityTypeOther", .other), ("", .other), ("running", .other),
    ])
    func mapsActivityTypesExplicitly(type: String, activity: ActivityType) {
        #expect(AppleHealthReader.activity(forWorkoutActivityType: type) == activity)
    }

    @Test func collectsHeartRateCompactly() {
        var collector = HeartRateCollector()
        let added = [
            collector.add(seconds: 100, bpm: 60.04), collector.add(seconds: 50.0004, bpm: 70), collector.add(seconds: -1, bpm: 70),
            collector.add(seconds: 10, bpm: 0), collector.add(seconds: 10, bpm: .nan),
        ]
        #expect(added == [true, true, false, false, false])
        #expect(collector.count == 2)
        collector.sort()
        let samples = collector.samples(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 100))
        #expect(samples.map(\.time.timeIntervalSince1970) == [50, 100])
        #expect(samples.map(\.bpm) == [70, 60])
        #expect(collector.samples(from: Date(timeIntervalSince1970: 50.001), to: Date(timeIntervalSince1970: 99.999)).isEmpty)
        #expect(collector.samples(from: Date(timeIntervalSince1970: 101), to: Date(timeIntervalSince1970: 100)).isEmpty)
    }

    // MARK: - Streaming

    /// A generated export of several megabytes: `workouts` workouts of 20 minutes an hour apart,
    /// heart rate every 5 s from a minute before to a minute after each (so 241 samples inside),
    /// half of them written after their workout, step records with metadata in between, and
    /// inline routes of 120 points on even workouts.
    static func generatedExport(workouts: Int) -> [UInt8] {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
            ]>
            <HealthData locale="en_US">
             <ExportDate value="2024-06-01 08:00:00 +0200"/>

            """
        let base = 1_717_200_000  // 2024-06-01 00:00:00 UTC
        func date(_ seconds: Int) -> String {
            let local = seconds - base + 7200
            let days = local / 86_400
            let time = local % 86_400
            return String(format: "2024-06-%02d %02d:%02d:%02d +0200", 1 + days, time / 3600, time / 60 % 60, time % 60)
        }
        for workout in 0..<workouts {
            let start = base + workout * 3600
            var records = ""
            for second in stride(from: start - 60, through: start + 1260, by: 5) {
                records += """
                     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" sourceVersion="10.5" device="&lt;&lt;HKDevice: 0x30294e350&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.5&gt;" unit="count/min" creationDate="\(date(second + 3))" startDate="\(date(second))" endDate="\(date(second))" value="\(100 + (second / 5) % 80)">
                      <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
                     </Record>
                     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="\(date(second))" endDate="\(date(second + 5))" value="9"/>

                    """
            }
            var element = """
                 <Workout workoutActivityType="HKWorkoutActivityType\(["Running", "Walking", "Cycling", "Yoga"][workout % 4])" duration="20" durationUnit="min" sourceName="Apple Watch" startDate="\(date(start))" endDate="\(date(start + 1200))">
                  <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="\(date(start))" endDate="\(date(start + 1200))" average="140" minimum="100" maximum="179" unit="count/min"/>

                """
            if workout % 2 == 0 {
                element += "  <WorkoutRoute sourceName=\"Apple Watch\">\n"
                for point in 0..<120 {
                    element +=
                        "   <Location date=\"\(date(start + point * 10))\" latitude=\"\(48.85 + Double(point) * 0.0001)\" longitude=\"2.35\" altitude=\"35.5\" horizontalAccuracy=\"3\"/>\n"
                }
                element += "  </WorkoutRoute>\n"
            }
            element += " </Workout>\n"
            xml += workout % 2 == 0 ? records + element : element + records
        }
        xml += "</HealthData>\n"
        return Array(xml.utf8)
    }

    /// Origins and file details name the file; compare everything else.
    private func withoutOrigins(_ batch: ImportBatch) -> ImportBatch {
        var batch = batch
        for index in batch.workouts.indices {
            batch.workouts[index].origin = String(batch.workouts[index].origin.split(separator: ":").last ?? "")
            batch.workouts[index].file = nil
            batch.workouts[index].original = nil
        }
        return batch
    }

    @Test func streamingGivesTheSameResultAsWholeReading() throws {
        let bytes = Self.generatedExport(workouts: 24)
        #expect(bytes.count > 3_000_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wf-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("export.xml")
        try Data(bytes).write(to: file)

        let noRoutes: AppleHealthReader.RouteLoader = { path, _ in .failure(ImportError(file: path, message: "unexpected")) }
        let whole = withoutOrigins(AppleHealthReader.read(XMLPullReader(bytes: bytes, file: "export.xml"), loadRoute: noRoutes))
        #expect(whole.errors.isEmpty, "\(whole.errors.prefix(3))")
        try #require(whole.workouts.count == 24)
        #expect(whole.workouts.allSatisfy { $0.heartRate.count == 241 })
        #expect(whole.workouts.map(\.route.pointCount) == (0..<24).map { $0 % 2 == 0 ? 120 : 0 })
        #expect(whole.workouts.map(\.activity) == (0..<24).map { [ActivityType.running, .walking, .cycling, .other][$0 % 4] })
        #expect(whole.workouts.allSatisfy { $0.timeZoneOffset == 7200 })
        #expect(
            whole.workouts[1].heartRate.first.map { [$0.time.timeIntervalSince1970, $0.bpm] } == [
                1_717_203_600, Double(100 + (1_717_203_600 / 5) % 80),
            ])

        for chunkSize in [4093, 65_536] {
            let reader = XMLPullReader(
                source: XMLChunkedArraySource(bytes, chunkSize: chunkSize), file: "export.xml", options: .init(chunkSize: chunkSize))
            #expect(withoutOrigins(AppleHealthReader.read(reader, loadRoute: noRoutes)) == whole, "chunk size \(chunkSize)")
        }
        // From the file, and from a zip around it, streamed as it is read (1 MiB in memory at most).
        let fromFile = WorkoutFileReader.readAll(contentsOf: file)
        #expect(withoutOrigins(fromFile) == whole)
        // Streamed, the export is still hashed whole, and kept (it is under 64 MiB).
        #expect(fromFile.workouts.first?.file?.sha256 == SHA256.hex(bytes))
        #expect(fromFile.workouts.first?.file?.size == Int64(bytes.count))
        #expect(fromFile.workouts.first?.original == bytes)
        let zip = folder.appendingPathComponent("export.zip")
        try Data(ZipTestFile.stored([("apple_health_export/export.xml", bytes)])).write(to: zip)
        let zipped = WorkoutFileReader.readAll(contentsOf: zip, limits: ArchiveLimits(inMemoryEntrySize: 1 << 20))
        #expect(withoutOrigins(zipped) == whole)
        #expect(zipped.workouts.first?.origin.hasPrefix(zip.path + ":apple_health_export/export.xml:") == true)
    }
}
