import Foundation
import WorkFeedImport
import WorkFeedModel

/// The "import" group: reading speed per format (GPX, TCX, FIT) and, for a generated Apple Health
/// export of `--import-mb` megabytes, speed and peak resident memory. Inputs are generated into a
/// temporary folder (or `--import-dir`) and removed afterwards. Times are the reading thread's
/// CPU time, which stays honest when other processes share the cores.
enum ImportBench {
    static func run(options: BenchOptions) throws {
        let root = URL(fileURLWithPath: options.importDirectory ?? NSTemporaryDirectory())
            .appendingPathComponent("workfeed-import-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let points = 200_000
        print("## import (one thread, thread CPU time; median of 5 runs after 1 warm-up for GPX, TCX and FIT)")
        print("format        input                               MB   points       hr   cpu s   MB/s   points/s")
        let gpx = root.appendingPathComponent("synthetic.gpx")
        try SyntheticFiles.writeGPX(points: points, to: gpx)
        try measure("gpx", "\(points) points, Garmin hr extension", gpx)
        let tcx = root.appendingPathComponent("synthetic.tcx")
        try SyntheticFiles.writeTCX(points: points, to: tcx)
        try measure("tcx", "\(points) points in 20 laps, hr", tcx)
        let fit = root.appendingPathComponent("synthetic.fit")
        try SyntheticFiles.writeFIT(points: points, to: fit)
        try measure("fit", "\(points) records, hr", fit)

        let export = root.appendingPathComponent("apple_health_export")
        let generated = try SyntheticFiles.writeAppleHealthExport(megabytes: options.importMegabytes, to: export)
        print("")
        print(
            "apple-health  export.xml \(mb(generated.exportBytes)) MB: \(generated.records) records, "
                + "\(generated.heartRate) of them heart rate, \(generated.workouts) workouts; "
                + "\(generated.routeFiles) route files, \(mb(generated.routeBytes)) MB")
        // readAll last: the memory it keeps is not given back to the system, and would raise the
        // starting point of the peaks measured after it.
        measureAppleHealth("folder, readEach", export, generated, keepsAll: false)
        defer { measureAppleHealth("folder, readAll ", export, generated, keepsAll: true) }
        // The Health app hands out export.zip; zip it with the zip command when there is one.
        let zipTool = "/usr/bin/zip"
        guard FileManager.default.isExecutableFile(atPath: zipTool) else {
            print("  export.zip: skipped, no \(zipTool) to make it")
            return
        }
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: zipTool)
        zip.currentDirectoryURL = root
        zip.arguments = ["-q", "-r", "export.zip", "apple_health_export"]
        try zip.run()
        zip.waitUntilExit()
        let archive = root.appendingPathComponent("export.zip")
        let size = (try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? Int) ?? 0
        print("  export.zip: \(mb(size)) MB (zip -r, deflate level 6)")
        measureAppleHealth("zip, readEach   ", archive, generated, keepsAll: false)
    }

    private static func measureAppleHealth(_ label: String, _ url: URL, _ generated: SyntheticFiles.GeneratedExport, keepsAll: Bool) {
        let total = Double(generated.exportBytes + generated.routeBytes)
        Memory.resetPeak()
        let before = Memory.peakResidentMiB()
        let clock = ContinuousClock()
        let started = clock.now
        let startedCPU = Measure.threadCPUTime()
        var workouts = 0
        var routePoints = 0
        var samples = 0
        var errors: [ImportError]
        if keepsAll {
            let batch = WorkoutFileReader.readAll(contentsOf: url)
            errors = batch.errors
            workouts = batch.workouts.count
            routePoints = batch.workouts.reduce(0) { $0 + $1.route.pointCount }
            samples = batch.workouts.reduce(0) { $0 + $1.heartRate.count }
        } else {
            errors = WorkoutFileReader.readEach(contentsOf: url) { workout in
                workouts += 1
                routePoints += workout.route.pointCount
                samples += workout.heartRate.count
            }
        }
        let cpu = Measure.milliseconds(Measure.threadCPUTime() - startedCPU) / 1000
        let wall = Measure.milliseconds(clock.now - started) / 1000
        let peak = Memory.peakResidentMiB()
        print(
            "  \(label): cpu \(Measure.format(cpu)) s, wall \(Measure.format(wall)) s; "
                + "\(Measure.format(total / 1e6 / cpu, 1)) MB/s of XML (export.xml and routes, per CPU second), "
                + "\(Measure.format(Double(generated.records) / cpu / 1e6, 2)) M records/s; "
                + "peak RSS \(before.map { Measure.format($0, 1) } ?? "?") -> \(peak.map { Measure.format($0, 1) } ?? "?") MiB"
                + (Memory.canResetPeak ? "" : " (VmHWM could not be reset: the peak includes earlier groups)"))
        print("    \(workouts) workouts, \(routePoints) route points, \(samples) heart-rate samples in workouts, \(errors.count) errors")
        if let first = errors.first { print("    first error: \(first)") }
    }

    private static func measure(_ format: String, _ description: String, _ url: URL) throws {
        let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        var workout: ImportedWorkout?
        let times = try Measure.wallAndCPU(runs: 5, warmUp: 1) {
            workout = try WorkoutFileReader.read(contentsOf: url).first
        }
        let cpu = Measure.milliseconds(Measure.median(times.cpu)) / 1000
        let points = workout?.route.pointCount ?? 0
        print(
            RenderBench.pad(format, 14) + RenderBench.pad(description, 34) + RenderBench.pad(mb(bytes), 7)
                + RenderBench.pad("\(points)", 9) + RenderBench.pad("\(workout?.heartRate.count ?? 0)", 9)
                + RenderBench.pad(Measure.format(cpu, 3), 8) + RenderBench.pad(Measure.format(Double(bytes) / 1e6 / cpu, 1), 7)
                + "\(Int(Double(points) / cpu))")
    }

    private static func mb(_ bytes: Int) -> String { Measure.format(Double(bytes) / 1e6, 1) }
}

/// Peak resident memory that can be reset between measurements (Linux: writing 5 to
/// /proc/self/clear_refs resets VmHWM to the current resident size).
enum Memory {
    nonisolated(unsafe) static var canResetPeak = true

    static func resetPeak() {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
            canResetPeak = false
            return
        }
        do { try handle.write(contentsOf: Data("5".utf8)) } catch { canResetPeak = false }
        try? handle.close()
    }

    static func peakResidentMiB() -> Double? { Measure.peakResidentMiB() }
}
