import Foundation
import Testing

/// `workfeed-bench --only timezones` at its smallest, so that the benchmark keeps working; the
/// figures are printed, never asserted (docs/benchmarks.md, "Time zones").
@Suite struct TimeZoneBenchTests {
    @Test func theBenchGroupRuns() throws {
        let folder = try #require(Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent())
        let bench = folder.appendingPathComponent("workfeed-bench")
        try #require(
            FileManager.default.isExecutableFile(atPath: bench.path), "workfeed-bench is not built beside the tests (swift build --build-tests)")
        let process = Process()
        process.executableURL = bench
        process.arguments = ["--only", "timezones", "--runs", "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        print(output)
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("lookup on land: ") && output.contains("a workout's zone and offset"), "\(output)")
    }
}
