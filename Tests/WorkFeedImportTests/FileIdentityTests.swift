import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12: every workout remembers its file, identities come from the file's bytes where the
/// source has no id, Apple Health exports are found under any name; issue 13: only regular files
/// are read, and zip entries that are skipped are named.
@Suite struct FileIdentityTests {
    /// Finding 10: each workout knows its file's name, size, SHA-256 (of the bytes, computed here
    /// apart from the reader), format and reader version, and carries the bytes to keep.
    @Test func workoutsRememberTheirFile() throws {
        let url = try Fixture.url("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        let bytes = try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        let workout = try #require(WorkoutFileReader.readAll(contentsOf: url).workouts.first)
        let file = try #require(workout.file)
        #expect(file.name == url.path)
        #expect(file.size == 11449)
        #expect(file.sha256 == SHA256.hex(bytes))
        #expect(file.format == "gpx")
        #expect(file.readerVersion == WorkoutFile.currentReaderVersion)
        #expect(workout.original == bytes)
        #expect(WorkoutIdentity(of: workout, owner: Owner.defaultName)?.sourceID == "sha256:" + SHA256.hex(bytes))
    }

    /// Finding 1: files without a route or heart rate (waypoints only, an empty track, an empty
    /// route) have different identities, because their bytes differ; the same bytes read twice
    /// have the same one.
    @Test func filesWithoutARouteAreStillDifferentWorkouts() throws {
        let paths = [
            "gpx-edge/empty-trk-no-points.gpx", "gpx-edge/route-only_empty-rte_gpx10.gpx", "gpx-edge/waypoints-only_no-namespace.gpx",
            "gpx-edge/waypoints-only_with-ele_austria.gpx", "gpx-edge/utf8-bom.gpx", "gpx-edge/iso-8859-1_encoded_gpx10_wpt.gpx",
        ]
        var identities = Set<WorkoutIdentity>()
        for path in paths {
            let workout = try #require(WorkoutFileReader.readAll(contentsOf: try Fixture.url(path)).workouts.first)
            #expect(workout.route.isEmpty && workout.heartRate.isEmpty, "\(path)")
            let identity = try #require(WorkoutIdentity(of: workout, owner: Owner.defaultName))
            identities.insert(identity)
            let again = try #require(WorkoutFileReader.readAll(contentsOf: try Fixture.url(path)).workouts.first)
            #expect(WorkoutIdentity(of: again, owner: Owner.defaultName) == identity)
        }
        #expect(identities.count == paths.count)
    }

    @Test func workoutsWithoutAnIdInOneFileAreToldApartByTheirPlace() throws {
        let tcx = """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Courses>
            <Course><Name>A</Name><Track><Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint></Track></Course>
            <Course><Name>B</Name><Track><Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint></Track></Course>
            </Courses></TrainingCenterDatabase>
            """
        let workouts = try WorkoutFileReader.read(bytes: Array(tcx.utf8), file: "courses.tcx")
        #expect(workouts.map(\.positionInFile) == [0, 1])
        let hash = SHA256.hex(Array(tcx.utf8))
        #expect(workouts.compactMap { WorkoutIdentity(of: $0, owner: Owner.defaultName)?.sourceID } == ["sha256:" + hash, "sha256:\(hash)#2"])
    }

    /// Finding 7, first half: a folder import finds Apple Health exports whatever their name (the
    /// real exports `dogsheep_export_inline-route-locations.xml` and `tdda_export_with-doctype-dtd.xml`),
    /// and still reads a folder's `export.xml` only through its export.
    @Test func aFolderImportFindsAppleHealthExportsUnderAnyName() throws {
        let folder = try Fixture.url("apple-health")
        let names = try WorkoutFileReader.collectFiles([folder.path]).map { $0.path.replacingOccurrences(of: folder.path + "/", with: "") }
        #expect(names.contains("dogsheep_export_inline-route-locations.xml"))
        #expect(names.contains("tdda_export_with-doctype-dtd.xml"))
        #expect(names.contains("dogsheep_apple_health_export/export.xml"))
        #expect(!names.contains { $0.contains("workout-routes") })
        let batch = WorkoutFileReader.readAll(contentsOf: folder)
        let origins = batch.workouts.map(\.origin)
        #expect(origins.contains(folder.path + "/dogsheep_export_inline-route-locations.xml:14"))
        #expect(origins.contains { $0.hasPrefix(folder.path + "/tdda_export_with-doctype-dtd.xml:") })
    }

    /// Issue 13: a named pipe called `x.gpx` is refused at once, named, instead of blocking the
    /// import; the folder's other files are still read.
    @Test(.timeLimit(.minutes(1))) func aNamedPipeIsRefusedNotWaitedOn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wf-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("x.gpx")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        try FileManager.default.copyItem(
            at: try Fixture.url("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"), to: folder.appendingPathComponent("y.gpx"))
        let single = WorkoutFileReader.readAll(contentsOf: pipe)
        #expect(single.workouts.isEmpty)
        #expect(single.errors.map(\.file) == [pipe.path])
        #expect(single.errors.first?.message.contains("not a regular file (a named pipe)") == true)
        let whole = WorkoutFileReader.readAll(contentsOf: folder)
        #expect(whole.workouts.count == 1)
        #expect(whole.errors.map(\.file) == [pipe.path])
    }

    /// Issue 13: a zip entry whose path leaves the archive's folder is skipped and named with the
    /// reason; the other entries are read.
    @Test func aZipEntryLeavingTheArchiveIsNamed() throws {
        let gpx = try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        let zip = ZipTestFile.stored([("../x.gpx", gpx), ("/abs.gpx", gpx), ("ok/run.gpx", gpx)])
        let batch = WorkoutFileReader.readAll(bytes: zip, file: "a.zip")
        #expect(batch.workouts.map(\.origin) == ["a.zip:ok/run.gpx"])
        #expect(batch.errors.map(\.file) == ["a.zip:../x.gpx", "a.zip:/abs.gpx"])
        #expect(batch.errors.allSatisfy { $0.message.contains("skipped: its path leaves the archive's folder") })
        // The entry's own bytes are its file: the same identity as the file on its own.
        #expect(batch.workouts.first?.file?.sha256 == SHA256.hex(gpx))
        #expect(batch.workouts.first?.file?.name == "a.zip:ok/run.gpx")
    }

    @Test func gzipKeepsTheBytes() throws {
        let bytes = try Fixture.bytes("tcx/garmin-forerunner410_run_2012_hr_3laps.tcx")
        let compressed = Gzip.compress(bytes)
        #expect(compressed.count < bytes.count / 5)
        #expect(compressed.starts(with: [0x1F, 0x8B]))
        #expect(try Gzip.decompress(compressed, limit: bytes.count, name: "x") == bytes)
        #expect(throws: ImportError.self) { try Gzip.decompress(compressed, limit: bytes.count - 1, name: "x") }
        #expect(throws: ImportError.self) { try Gzip.decompress(Array(compressed.prefix(100)), limit: bytes.count, name: "x") }
        #expect(throws: ImportError.self) { try Gzip.decompress(bytes, limit: bytes.count, name: "x") }
    }
}
