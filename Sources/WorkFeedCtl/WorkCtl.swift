public import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

/// `workctl`: the operator's tool. Talks only to the coordinator's control socket.
///
/// Exit codes: 0 success; 1 the coordinator refused or the operation failed; 2 done, but some
/// inputs were skipped (see the summary); 64 bad usage; 69 the coordinator did not answer.
public struct WorkCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "workctl",
        abstract: "Operate WorkFeed: import workouts, enqueue pictures, watch progress.",
        subcommands: [
            Import.self, Enqueue.self, Request.self, Retry.self, Status.self, Workers.self, Failed.self, Show.self, Feed.self,
            Changes.self, Watch.self, Delete.self, Reimport.self, Render.self, Keygen.self, Token.self,
        ])

    public init() {}
}

/// Options every command that talks to the coordinator takes.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The coordinator's control endpoint (env WORKFEED_CONTROL).")
    var coordinator: String = ProcessInfo.processInfo.environment["WORKFEED_CONTROL"] ?? "tcp://127.0.0.1:5556"

    @Option(name: .long, help: "Seconds to wait for each reply.")
    var timeout: Int = 15

    @Option(name: .long, help: "This operator's CURVE key file from workctl keygen (env WORKFEED_KEY_FILE).")
    var keyFile: String? = ProcessInfo.processInfo.environment["WORKFEED_KEY_FILE"]

    @Option(name: .long, help: "The coordinator's public key, with --key-file (env WORKFEED_SERVER_KEY).")
    var serverKey: String? = ProcessInfo.processInfo.environment["WORKFEED_SERVER_KEY"]

    /// Lowers the message size limit (256 MiB), so that tests can reach it with small files.
    @Option(name: .long, help: .hidden)
    var maxMessageBytes: Int64?

    func validate() throws {
        guard coordinator.hasPrefix("tcp://") || coordinator.hasPrefix("ipc://") || coordinator.hasPrefix("inproc://") else {
            throw ValidationError("--coordinator must be a ZeroMQ endpoint such as tcp://127.0.0.1:5556, not '\(coordinator)'")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
        guard (keyFile == nil) == (serverKey == nil) else {
            throw ValidationError("--key-file and --server-key go together (CURVE needs both)")
        }
    }

    /// The CURVE keys to connect with, if configured.
    func curve() throws -> CurveClientKeys? {
        guard let keyFile, let serverKey else { return nil }
        do {
            return CurveClientKeys(serverKey: serverKey, keyPair: try CurveKeyPair.load(file: keyFile))
        } catch {
            printError("\(error)")
            throw WorkCtlExit.failed
        }
    }

    func client() throws -> ControlClient {
        try ControlClient(
            context: WorkCtlContext.shared, endpoint: coordinator, timeoutMilliseconds: timeout * 1000, curve: try curve(),
            maximumMessageSize: maxMessageBytes ?? WorkerMessage.maximumMessageSize)
    }
}

/// One ZeroMQ context for the whole workctl process.
enum WorkCtlContext {
    static let shared = ZMQContext()
}

/// Exit codes workctl documents.
enum WorkCtlExit {
    static let failed = ExitCode(1)
    static let partial = ExitCode(2)
    static let unavailable = ExitCode(69)
}

/// Runs coordinator requests; a failure is printed and becomes workctl's exit code.
func talking<T>(_ body: () throws(ControlClientError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw error.exit()
    }
}

extension ControlClientError {
    /// Prints the error and turns it into workctl's exit code.
    func exit() -> ExitCode {
        printError(description)
        return fromCoordinator ? WorkCtlExit.failed : WorkCtlExit.unavailable
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("workctl: \(message)\n".utf8))
}

/// Prints a value as JSON (for `--json`), sorted keys, pretty, times with their fractions of a
/// second (``ISO8601Time``).
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    say(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Writes a line of output at once (unbuffered), so that results on standard output and progress
/// on standard error keep their order in a log.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Checks an `--owner` value (``Owner``), naming the option on error.
func validateOwner(_ owner: String?) throws {
    if let owner, let problem = Owner.problem(with: owner) { throw ValidationError("--owner: \(problem)") }
}

/// Parses a comma-separated list of kinds, naming the option on error.
func parseKinds(_ text: String, option: String = "--kind") throws -> [JobKind] {
    try text.split(separator: ",").map { part in
        guard let kind = JobKind(rawValue: String(part)) else { throw ValidationError("\(option): '\(part)' is not route or heatmap") }
        return kind
    }
}

/// Parses a comma-separated list of themes, naming the option on error.
func parseThemes(_ text: String, option: String = "--theme") throws -> [Theme] {
    try text.split(separator: ",").map { part in
        guard let theme = Theme(rawValue: String(part)) else { throw ValidationError("\(option): '\(part)' is not light or dark") }
        return theme
    }
}
