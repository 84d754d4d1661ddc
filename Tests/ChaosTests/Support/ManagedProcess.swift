import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One of the system's programs, run as a real process that the test can kill with SIGKILL and
/// start again with the same arguments. Every generation appends its standard output and error to
/// the same log file, so that the log tells the whole story.
final class ManagedProcess {
    let name: String
    let executable: URL
    let arguments: [String]
    let environment: [String: String]
    let logURL: URL
    private var process: Process?
    /// How many times it was started.
    private(set) var starts = 0
    /// The process ids of every generation, oldest first.
    private(set) var pids: [Int32] = []

    init(name: String, executable: URL, arguments: [String], environment: [String: String] = [:], logURL: URL) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.logURL = logURL
    }

    var isRunning: Bool { process?.isRunning ?? false }
    var pid: Int32? { process?.processIdentifier }

    /// The exit status of the last generation, once it has ended.
    var terminationDescription: String {
        guard let process else { return "never started" }
        if process.isRunning { return "running (pid \(process.processIdentifier))" }
        let reason = process.terminationReason == .uncaughtSignal ? "signal" : "exit"
        return "\(reason) \(process.terminationStatus)"
    }

    func start() throws {
        precondition(!isRunning, "\(name) is already running")
        if !FileManager.default.fileExists(atPath: logURL.path) {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        log.write(Data("---- \(name) start #\(starts + 1): \(executable.lastPathComponent) \(arguments.joined(separator: " "))\n".utf8))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? log.close()
        self.process = process
        starts += 1
        pids.append(process.processIdentifier)
    }

    /// SIGKILL: no clean-up, no goodbye. Returns once the process is gone.
    func kill9() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then SIGKILL if it has not ended within `timeout` seconds.
    /// - Returns: whether it ended on SIGTERM alone.
    @discardableResult
    func terminate(timeout: TimeInterval = 20) -> Bool {
        guard let process, process.isRunning else { return true }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// The log so far (all generations).
    func log() -> String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    /// The last `lines` lines of the log, for failure messages.
    func logTail(_ lines: Int = 40) -> String {
        log().split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// Runs a program to completion (workctl) and returns its exit status and output.
@discardableResult
func runToCompletion(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 300
) throws
    -> (status: Int32, output: String)
{
    try runConcurrently([(executable, arguments)], environment: environment, timeout: timeout)[0]
}

/// Runs programs side by side and waits for all of them; each result is its exit status and its
/// output (standard output and error together). One that outlives `timeout` is killed.
func runConcurrently(
    _ commands: [(executable: URL, arguments: [String])], environment: [String: String] = [:], timeout: TimeInterval = 300
) throws
    -> [(status: Int32, output: String)]
{
    var running: [(process: Process, output: URL, handle: FileHandle)] = []
    defer {
        for item in running {
            if item.process.isRunning {
                kill(item.process.processIdentifier, SIGKILL)
                item.process.waitUntilExit()
            }
            try? item.handle.close()
            try? FileManager.default.removeItem(at: item.output)
        }
    }
    for command in commands {
        let process = Process()
        process.executableURL = command.executable
        process.arguments = command.arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-run-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        running.append((process, outputURL, handle))
        try process.run()
    }
    let deadline = Date().addingTimeInterval(timeout)
    while running.contains(where: { $0.process.isRunning }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    return running.map { item in
        if item.process.isRunning {
            kill(item.process.processIdentifier, SIGKILL)
            item.process.waitUntilExit()
        }
        let output = (try? String(contentsOf: item.output, encoding: .utf8)) ?? ""
        return (item.process.terminationStatus, output)
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's choice for port 0).
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PortError("socket: \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw PortError("bind: \(String(cString: strerror(errno)))") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw PortError("getsockname: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

struct PortError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
