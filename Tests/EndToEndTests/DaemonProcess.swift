import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One of the daemons (`workfeed-worker`, `workfeed-gateway`, `workfeed-coordinator`), built beside
/// `workctl`, run as a real process: its standard output and error go to a log file the test reads
/// while it runs.
final class DaemonProcess {
    let process = Process()
    let logURL: URL

    /// Starts `name` with `arguments`.
    init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = try WorkCtlProcess.executable().deletingLastPathComponent().appendingPathComponent(name)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-\(name)-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? log.close()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logURL)
    }

    /// What it wrote so far.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text` or the process ends (at most `seconds`).
    /// - Returns: whether the text appeared.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if log.contains(text) { return true }
            if !process.isRunning { return log.contains(text) }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Waits for the process to end by itself (at most `seconds`, then SIGKILL).
    /// - Returns: its exit status, or `nil` when it had to be killed.
    func waitForExit(seconds: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// SIGTERM, and waits for the exit status.
    func terminate() -> Int32? {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        return waitForExit(seconds: 40)
    }
}
