import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

@Suite struct FITReaderTests {
    @Test(arguments: FITExpectations.all)
    func readsFixture(_ expected: Expected) throws {
        let workouts = try FITReader.read(Fixture.bytes(expected.file), file: expected.file)
        #expect(workouts.count == 1)
        let workout = try #require(workouts.first)
        #expect(workout.source == .fit)
        #expect(workout.sourceID == expected.sourceID)
        expected.check(workout)
    }

    @Test(arguments: [
        ("fit/sdk-sample_truncated-eof.fit", "the header says 757 bytes of data, but the file has only 754"),
        ("fit/strava-android_run_bad-header-size.fit", "the header says 78236 bytes of data, but the file has only 78217"),
    ])
    func reportsADataSizePastTheEnd(path: String, message: String) throws {
        let bytes = try Fixture.bytes(path)
        let failure = #expect(throws: ImportError.self) { try FITReader.read(bytes, file: path) }
        #expect(failure?.field == "offset 4")
        #expect(failure?.message.hasPrefix(message) == true, "\(String(describing: failure))")
        #expect(failure?.description.hasPrefix("\(path): offset 4: ") == true)
    }

    @Test func reportsABadFileCRC() throws {
        var bytes = try Fixture.bytes("fit/garmin-fenix5_run_hr.fit")
        bytes[3000] ^= 0x01
        let failure = #expect(throws: ImportError.self) { try FITReader.read(bytes, file: "bad.fit") }
        #expect(failure?.field == "offset \(bytes.count - 2)")
        #expect(failure?.message.contains("file CRC") == true)
    }

    @Test func reportsABadHeaderCRC() throws {
        var bytes = try Fixture.bytes("fit/garmin-fenix5_run_hr.fit")
        #expect(bytes[0] == 14)
        bytes[12] ^= 0xFF
        let failure = #expect(throws: ImportError.self) { try FITReader.read(bytes, file: "bad.fit") }
        #expect(failure?.field == "offset 12")
        #expect(failure?.message.contains("header CRC") == true)
    }

    @Test func refusesWhatIsNotFIT() {
        let short = #expect(throws: ImportError.self) { try FITReader.read([14, 16], file: "x.fit") }
        #expect(short?.message.contains("not a FIT file") == true)
        let other = #expect(throws: ImportError.self) { try FITReader.read(Array("<gpx version=\"1.1\"></gpx>".utf8), file: "x.fit") }
        #expect(other?.message.contains("no '.FIT' signature") == true)
    }

    /// Cut anywhere, a file gives an error, never a partial workout.
    @Test func failsWhereverAFileIsCut() throws {
        let bytes = try Fixture.bytes("fit/garmin-fenix5_walk_hr.fit")
        for length in stride(from: 0, to: bytes.count - 1, by: 37) {
            #expect(throws: ImportError.self, "cut at \(length)") { try FITReader.read(Array(bytes[..<length]), file: "cut.fit") }
        }
    }

    /// Corrupt records behind a valid CRC must give a result or an error naming the file, never a
    /// crash; both happen.
    @Test func survivesCorruptRecordsBehindAValidCRC() throws {
        let original = try Fixture.bytes("fit/garmin-edge820_ride_hr.fit")
        let seed: UInt64 = 0x5EED_0041_0003
        print("survivesCorruptRecordsBehindAValidCRC seed: \(String(seed, radix: 16))")
        var generator = SplitMix64(seed: seed)
        var (read, refused) = (0, 0)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 14..<(bytes.count - 2), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                _ = try FITReader.read(FITTestFile.fixingCRC(bytes), file: "fuzz.fit")
                read += 1
            } catch {
                refused += 1
                #expect(error.file == "fuzz.fit" && !error.message.isEmpty, "\(error)")
            }
        }
        #expect(read > 0 && refused > 0, "\(read) read, \(refused) refused: the damage did not reach both")
    }

    @Test func decodesCompressedTimestampsBigEndianDeveloperFieldsAndPauses() throws {
        var file = FITTestFile()
        file.define(local: 0, global: 0, fields: [(3, 4, 0x8C), (4, 4, 0x86)])
        file.message(local: 0, FITTestFile.little(UInt32(1234)) + FITTestFile.little(UInt32(1000)))
        // A big-endian record layout with an altitude 3 bytes wide (read the first uint16, skip
        // the rest) and a 2-byte developer field to skip.
        file.define(
            local: 1, global: 20, bigEndian: true,
            fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (2, 3, 0x84)], developer: [(0, 2, 0)])
        func record(_ time: UInt32?, _ latitude: Int32, _ longitude: Int32, _ heartRate: UInt8, _ altitude: UInt16) -> [UInt8] {
            (time.map { FITTestFile.big($0) } ?? []) + FITTestFile.big(latitude) + FITTestFile.big(longitude) + [heartRate]
                + FITTestFile.big(altitude) + [0xEE] + [0xDE, 0xAD]
        }
        file.message(local: 1, record(1000, FITTestFile.semicircles(10), FITTestFile.semicircles(20), 120, 3000))
        // The same layout without the timestamp, for compressed-timestamp headers (local types 0-3).
        file.define(
            local: 2, global: 20, bigEndian: true, fields: [(0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (2, 3, 0x84)],
            developer: [(0, 2, 0)])
        // 1000 & 31 == 8: offset 9 gives 1001; then offset 2 < 9 rolls over to 1026.
        file.compressed(local: 2, timeOffset: 9, record(nil, Int32.max, Int32.max, 121, 0xFFFF))
        file.compressed(local: 2, timeOffset: 2, record(nil, FITTestFile.semicircles(10.001), FITTestFile.semicircles(20.001), 0, 3005))
        file.define(local: 3, global: 21, fields: [(0, 1, 0x00), (1, 1, 0x00), (253, 4, 0x86)])
        file.message(local: 3, [0, 4] + FITTestFile.little(UInt32(1030)))
        file.message(local: 1, record(1100, FITTestFile.semicircles(11), FITTestFile.semicircles(21), 130, 3010))
        file.define(local: 4, global: 18, fields: [(5, 1, 0x00)])
        file.message(local: 4, [11])
        file.define(local: 5, global: 34, fields: [(253, 4, 0x86), (5, 4, 0x86)])
        file.message(local: 5, FITTestFile.little(UInt32(1100)) + FITTestFile.little(UInt32(4700)))

        for headerSize in [12, 14] {
            let workout = try #require(try FITReader.read(file.bytes(headerSize: headerSize), file: "made.fit").first)
            #expect(workout.route.segments.map(\.count) == [2, 1])
            let points = Array(workout.route.points)
            #expect(abs(points[0].latitude - 10) < 1e-6 && abs(points[0].longitude - 20) < 1e-6)
            #expect(points[0].elevation == 100)
            #expect(points[1].time == FITWorkoutBuilder.date(1026))
            #expect(points[1].elevation == 101)
            #expect(abs(points[2].latitude - 11) < 1e-6)
            #expect(workout.heartRate.map(\.bpm) == [120, 121, 130])
            #expect(workout.heartRate.map(\.time) == [1000, 1001, 1100].map(FITWorkoutBuilder.date))
            #expect(workout.activity == .walking)
            #expect(workout.sourceID == "1234-1000")
            #expect(workout.timeZoneOffset == 3600)
            #expect(workout.start == FITWorkoutBuilder.date(1000))
            #expect(workout.end == FITWorkoutBuilder.date(1100))
        }
    }

    @Test func reportsBrokenRecordsWithTheirOffset() {
        var undefined = FITTestFile()
        undefined.message(local: 5, [1, 2, 3])
        let missing = #expect(throws: ImportError.self) { try FITReader.read(undefined.bytes(), file: "x.fit") }
        #expect(missing?.field == "offset 14")
        #expect(missing?.message.contains("local type 5 has no definition") == true)

        var architecture = FITTestFile()
        architecture.raw([0x40, 0, 7, 20, 0, 0])
        let badArchitecture = #expect(throws: ImportError.self) { try FITReader.read(architecture.bytes(), file: "x.fit") }
        #expect(badArchitecture?.field == "offset 16")

        var short = FITTestFile()
        short.define(local: 0, global: 20, fields: [(253, 4, 0x86), (3, 1, 0x02)])
        short.message(local: 0, [1, 2, 3])
        let truncated = #expect(throws: ImportError.self) { try FITReader.read(short.bytes(), file: "x.fit") }
        #expect(truncated?.field == "offset 26")
        #expect(truncated?.message.contains("the data end inside a message") == true)

        var trailing = FITTestFile()
        trailing.define(local: 0, global: 20, fields: [(3, 1, 0x02)])
        let junk = #expect(throws: ImportError.self) { try FITReader.read(trailing.bytes() + [1, 2, 3], file: "x.fit") }
        #expect(junk?.message.contains("3 bytes after the end of the FIT data") == true)
    }

    @Test func readsChainedFiles() throws {
        var first = FITTestFile()
        first.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        first.message(local: 0, FITTestFile.little(UInt32(10)) + FITTestFile.little(Int32(1000)) + FITTestFile.little(Int32(2000)))
        let bytes = first.bytes() + first.bytes(headerSize: 12)
        let workout = try #require(try FITReader.read(bytes, file: "chained.fit").first)
        #expect(workout.route.pointCount == 2)
    }
}
