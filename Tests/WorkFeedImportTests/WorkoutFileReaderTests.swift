import Foundation
import Testing
import WorkFeedImport
import WorkFeedModel

@Suite struct WorkoutFileReaderTests {
    @Test func choosesTheFormatByContent() throws {
        let gpx = try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        let tcx = try Fixture.bytes("tcx/garmin-edge500_ride_2021_no-hr.tcx")
        let fit = try Fixture.bytes("fit/garmin-fenix5_run_hr.fit")
        #expect(try WorkoutFileReader.read(bytes: gpx, file: "export.xml").first?.source == .gpx)
        #expect(try WorkoutFileReader.read(bytes: tcx, file: "ride.gpx").first?.source == .tcx)
        #expect(try WorkoutFileReader.read(bytes: fit, file: "download.bin").first?.source == .fit)
    }

    @Test func fallsBackToTheExtension() {
        let failure = #expect(throws: ImportError.self) { try WorkoutFileReader.read(bytes: Array("garbage".utf8), file: "a.gpx") }
        #expect(failure?.message.contains("text outside the root element") == true)
        let broken = #expect(throws: ImportError.self) {
            try WorkoutFileReader.read(bytes: Array("<gpx><trk></gpx>".utf8), file: "b.gpx")
        }
        #expect(broken?.message.contains("mismatched tag") == true)
    }

    @Test(arguments: [
        ("", "x.gpx", "the file is empty"),
        ("garbage", "notes.txt", "unknown file format"),
        ("<kml/>", "places.kml", "unknown file format"),
        ("<HealthDatum/>", "export.xml", "not an Apple Health export"),
        ("PK\u{3}\u{4}rest", "export.zip", "not a zip archive, or truncated"),
    ])
    func refusesWhatItCannotRead(text: String, file: String, message: String) {
        let failure = #expect(throws: ImportError.self) { try WorkoutFileReader.read(bytes: Array(text.utf8), file: file) }
        #expect(failure?.file == file)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    @Test func anEmptyHealthExportHasNoWorkouts() throws {
        #expect(try WorkoutFileReader.read(bytes: Array("<HealthData locale=\"en_US\"/>".utf8), file: "export.xml").isEmpty)
    }

    @Test func namesAFileThatCannotBeRead() {
        let failure = #expect(throws: ImportError.self) {
            try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: "/nonexistent/ride.gpx"))
        }
        #expect(failure?.file == "/nonexistent/ride.gpx")
    }

    @Test func collectsFilesFromFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wf-collect-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for path in [
            "b/2.gpx", "b/1.FIT", "a.tcx", "notes.txt", ".hidden.gpx", ".git/x.gpx", "__MACOSX/b/._2.gpx", "c/d/e.gpx",
            "single.gpx",
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        let files = try WorkoutFileReader.collectFiles([root.path, root.appendingPathComponent("b/2.gpx").path])
        let relative = files.map { String($0.path.dropFirst(root.standardizedFileURL.path.count + 1)) }
        #expect(relative == ["a.tcx", "b/1.FIT", "b/2.gpx", "c/d/e.gpx", "single.gpx"])

        let explicit = try WorkoutFileReader.collectFiles([root.appendingPathComponent("notes.txt").path])
        #expect(explicit.map(\.lastPathComponent) == ["notes.txt"])

        let failure = #expect(throws: ImportError.self) { try WorkoutFileReader.collectFiles([root.appendingPathComponent("nope").path]) }
        #expect(failure?.message == "no such file or folder")
    }

    @Test func readsEveryFixtureFolderThroughTheFrontDoor() throws {
        let root = try Fixture.url("tcx")
        let files = try WorkoutFileReader.collectFiles([root.path])
        #expect(files.count == Fixture.files(in: "tcx", extension: "tcx").count)
        var read = 0
        var failed: [String] = []
        for file in files {
            do {
                read += try WorkoutFileReader.read(contentsOf: file).count
            } catch {
                failed.append(file.lastPathComponent)
            }
        }
        #expect(failed == ["fitbit-versa_bad-positions_dup-lap-start.tcx"])
        #expect(read == files.count - 1)
    }
}
