import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

/// Zip archives, on the hand-made fixtures of `Fixtures/zip` (written by `make_zips.py`). Entry
/// names, sizes and CRCs were read back with Python's zipfile; point counts are those of the
/// fixtures the entries were copied from (`GPXExpectations`, `TCXExpectations`, `FITExpectations`).
@Suite struct ZipArchiveTests {
    private func read(_ name: String, limits: ArchiveLimits = .standard) throws -> (ImportBatch, String) {
        let url = try Fixture.url("zip/\(name)")
        return (WorkoutFileReader.readAll(contentsOf: url, limits: limits), url.path)
    }

    private func origins(_ batch: ImportBatch, _ archive: String) -> [String] {
        batch.workouts.map { $0.origin.hasPrefix(archive + ":") ? String($0.origin.dropFirst(archive.count + 1)) : $0.origin }
    }

    @Test func readsAStoredEntry() throws {
        let (batch, path) = try read("stored_gpx.zip")
        #expect(batch.errors.isEmpty, "\(batch.errors)")
        #expect(origins(batch, path) == ["Strava/run.gpx"])
        let workout = try #require(batch.workouts.first)
        #expect(workout.source == .gpx)
        #expect(workout.route.pointCount == 42)
        #expect(workout.heartRate.count == 42)
        // The same as the file itself.
        let direct = try GPXReader.read(try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"), file: "x")
        #expect(workout.route == direct.first?.route)
    }

    @Test func readsDeflatedEntriesAndSkipsJunk() throws {
        let (batch, path) = try read("deflated_mixed.zip")
        #expect(batch.errors.isEmpty, "\(batch.errors)")
        // rides/ (folder), rides/.DS_Store, __MACOSX/… and notes.txt are skipped; the TCX entry has
        // a data descriptor and the FIT entry a UTF-8 name.
        #expect(origins(batch, path) == ["rides/ride.gpx", "rides/ride.tcx", "rides/Läufe ride.FIT"])
        #expect(batch.workouts.map(\.source) == [.gpx, .tcx, .fit])
        #expect(batch.workouts.map(\.route.pointCount) == [96, 100, 96])
        #expect(batch.workouts.allSatisfy { $0.activity == .cycling })
        #expect(try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: path)).count == 3)
    }

    @Test func aBadCRCNamesTheArchiveAndTheEntryAndTheRestIsRead() throws {
        let (batch, path) = try read("bad-crc.zip")
        #expect(origins(batch, path) == ["a.gpx"])
        let error = try #require(batch.errors.first)
        #expect(batch.errors.count == 1)
        #expect(error.file == path + ":b.gpx")
        #expect(error.message.contains("CRC-32 mismatch"), "\(error)")
        #expect(error.message.contains("0x5221b5a5"), "the directory's CRC, as zipfile reads it: \(error)")
        // read(contentsOf:) is all or nothing.
        let thrown = #expect(throws: ImportError.self) { try WorkoutFileReader.read(contentsOf: URL(fileURLWithPath: path)) }
        #expect(thrown == error)
    }

    @Test func aTruncatedArchiveIsAnError() throws {
        let (batch, path) = try read("truncated.zip")
        #expect(batch.workouts.isEmpty)
        #expect(batch.errors.map(\.file) == [path])
        #expect(batch.errors.first?.message.contains("no end-of-central-directory record") == true, "\(batch.errors)")
    }

    @Test func everyCutOfAnArchiveIsAnErrorNeverACrash() throws {
        let bytes = try Fixture.bytes("zip/deflated_mixed.zip")
        for length in stride(from: 0, to: bytes.count, by: 53) {
            let batch = WorkoutFileReader.readAll(bytes: Array(bytes.prefix(length)), file: "cut.zip")
            #expect(batch.workouts.isEmpty && !batch.errors.isEmpty, "cut at \(length)")
        }
    }

    @Test func corruptBytesGiveErrorsNeverACrash() throws {
        let original = try Fixture.bytes("zip/deflated_mixed.zip")
        var generator = SplitMix(seed: 42)
        var failures = 0
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<4 {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            let batch = WorkoutFileReader.readAll(bytes: bytes, file: "noisy.zip")
            #expect(batch.workouts.count + batch.errors.count >= 1)
            failures += batch.errors.isEmpty ? 0 : 1
        }
        #expect(failures > 0)
    }

    @Test func aZipBombIsRefusedByItsRatio() throws {
        let (batch, path) = try read("bomb.zip")
        #expect(batch.workouts.isEmpty)
        let error = try #require(batch.errors.first)
        #expect(error.file == path + ":bomb.gpx")
        #expect(error.message.contains("refused as a zip bomb"), "\(error)")
        #expect(error.message.contains("1028:1"), "20971520 / 20388 bytes: \(error)")
    }

    @Test func anEntryThatInflatesPastItsDeclaredSizeIsStopped() throws {
        let (batch, path) = try read("lying-size.zip")
        #expect(batch.workouts.isEmpty)
        #expect(batch.errors.map(\.file) == [path + ":liar.gpx"])
        #expect(batch.errors.first?.message.contains("inflates to more than the 1000 bytes") == true, "\(batch.errors)")
    }

    @Test func overlappingEntriesAreRefused() throws {
        let (batch, path) = try read("overlapping.zip")
        #expect(origins(batch, path) == ["walk.fit"])
        #expect(batch.errors.map(\.file) == [path + ":one.gpx", path + ":two.gpx"])
        #expect(batch.errors.allSatisfy { $0.message.contains("overlaps another entry") }, "\(batch.errors)")
    }

    @Test func theTotalAndTheEntrySizeAreLimited() throws {
        let (total, path) = try read("deflated_mixed.zip", limits: ArchiveLimits(maxTotalSize: 50_000))
        // 40285 (GPX) is read, 78618 (TCX) would pass the total, 7771 (FIT) still fits.
        #expect(origins(total, path) == ["rides/ride.gpx", "rides/Läufe ride.FIT"])
        #expect(total.errors.map(\.file) == [path + ":rides/ride.tcx"])
        #expect(total.errors.first?.message.contains("add up to more than") == true)

        let (entry, _) = try read("deflated_mixed.zip", limits: ArchiveLimits(maxEntrySize: 10_000))
        #expect(origins(entry, path) == ["rides/Läufe ride.FIT"])
        #expect(entry.errors.count == 2)
        #expect(entry.errors.allSatisfy { $0.message.contains("allowed for an entry") })
    }

    @Test func largeEntriesAreStreamed() throws {
        // With a 1000-byte memory limit the GPX and TCX entries are parsed as they inflate and
        // give what the in-memory path gives; a FIT file needs memory and is refused.
        let (streamed, path) = try read("deflated_mixed.zip", limits: ArchiveLimits(inMemoryEntrySize: 1000))
        let (whole, _) = try read("deflated_mixed.zip")
        // The same workouts from the same bytes; only the in-memory path keeps them as the original.
        #expect(streamed.workouts.map(\.withoutOriginal) == Array(whole.workouts.prefix(2)).map(\.withoutOriginal))
        #expect(streamed.workouts.map(\.file) == Array(whole.workouts.prefix(2)).map(\.file))
        #expect(streamed.errors.map(\.file) == [path + ":rides/Läufe ride.FIT"])
        #expect(streamed.errors.first?.message.contains("read into memory") == true)
    }

    @Test func readsAZipInsideAZipOneLevelDeep() throws {
        let (batch, path) = try read("nested.zip")
        #expect(origins(batch, path) == ["ride.fit", "more/inner.zip:a.gpx"])
        #expect(batch.workouts.map(\.route.pointCount) == [96, 96])
        #expect(batch.errors.map(\.file) == [path + ":more/inner.zip:deeper.zip"])
        #expect(batch.errors.first?.message.contains("one level of nesting at most") == true)

        // A nested archive too large for memory goes through a temporary file.
        let (spilled, _) = try read("nested.zip", limits: ArchiveLimits(inMemoryEntrySize: 1000))
        #expect(origins(spilled, path) == ["more/inner.zip:a.gpx"])
        #expect(spilled.errors.map(\.file) == [path + ":ride.fit", path + ":more/inner.zip:deeper.zip"])
    }

    @Test func readsZIP64RecordsAPrependedStubAndAComment() throws {
        // The comment holds a fake end-of-directory signature; Python's zipfile falls for it.
        let (batch, path) = try read("zip64_prefixed_comment.zip")
        #expect(batch.errors.isEmpty, "\(batch.errors)")
        #expect(origins(batch, path) == ["track.gpx", "walk.fit"])
        #expect(batch.workouts.map(\.route.pointCount) == [42, 17])
        let archive = try ZipArchive(source: ZipFileSource(path: path, name: path), name: path)
        #expect(archive.entries.map(\.localHeaderOffset) == [100, 1163])
        #expect(archive.entries.map(\.uncompressedSize) == [11449, 5187])
    }

    @Test func refusesEncryptedAndUnknownMethods() throws {
        let (batch, path) = try read("unsupported.zip")
        #expect(origins(batch, path) == ["fine.fit"])
        #expect(batch.errors.map(\.file) == [path + ":secret.gpx", path + ":bzip2.gpx"])
        #expect(batch.errors.first?.message.contains("encrypted") == true)
        #expect(batch.errors.last?.message.contains("compression method 12") == true)
    }

    @Test func notAZipAndEmpty() {
        let short = WorkoutFileReader.readAll(bytes: Array("PK\u{3}\u{4}rest".utf8), file: "x.zip")
        #expect(short.errors.first?.message.contains("not a zip archive") == true, "\(short.errors)")
        let empty = WorkoutFileReader.readAll(bytes: ZipTestFile.stored([]), file: "empty.zip")
        #expect(empty == ImportBatch())
    }

    @Test func namesAreUTF8OrCodePage437() throws {
        var bytes = ZipTestFile.stored([("X-Läufe.gpx", Array("<gpx/>".utf8))])
        let archive = try ZipArchive(source: ZipMemorySource(bytes), name: "t.zip")
        #expect(archive.entries.map(\.name) == ["X-Läufe.gpx"])
        // The same name's first byte made 0x81, which is not UTF-8: code page 437 says ü.
        for index in bytes.indices where bytes[index] == UInt8(ascii: "X") { bytes[index] = 0x81 }
        let legacy = try ZipArchive(source: ZipMemorySource(bytes), name: "t.zip")
        #expect(legacy.entries.map(\.name) == ["ü-L├ñufe.gpx"])  // as Python's bytes.decode("cp437")
    }

    @Test func collectsZipsFromFolders() throws {
        let folder = try Fixture.url("zip")
        let files = try WorkoutFileReader.collectFiles([folder.path]).map(\.lastPathComponent)
        #expect(files.contains("nested.zip") && !files.contains("make_zips.py"))
    }

    @Test func readsAFolderWithEverythingInIt() throws {
        let batch = WorkoutFileReader.readAll(contentsOf: try Fixture.url("zip"))
        // Every archive above, each error still named.
        #expect(batch.workouts.count == 3 + 1 + 1 + 2 + 1 + 1 + 2 + 1)
        #expect(batch.errors.contains { $0.file.hasSuffix("bad-crc.zip:b.gpx") })

        var handed: [ImportedWorkout] = []
        let errors = WorkoutFileReader.readEach(contentsOf: try Fixture.url("zip")) { handed.append($0) }
        #expect(ImportBatch(workouts: handed, errors: errors) == batch)
    }
}

/// A small deterministic generator for corruption tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
