public import ArgumentParser
import Foundation
import WorkFeedConfig
import WorkFeedModel
import WorkFeedWire

/// `workctl`: the operator's tool. Talks only to the coordinator's control socket.
///
/// Exit codes: 0 success; 1 the coordinator refused or the operation failed; 2 done, but some
/// inputs were skipped (see the summary); 64 bad usage; 69 the coordinator did not answer; 75
/// `--wait --wait-timeout` gave up with no worker connected.
public struct WorkCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "workctl",
        abstract: "Operate WorkFeed: import workouts, enqueue pictures, watch progress.",
        version: BuildInfo.description,
        subcommands: [
            Import.self, Enqueue.self, Request.self, Retry.self, Status.self, Workers.self, Failed.self, Show.self, Feed.self,
            Changes.self, Watch.self, Delete.self, Zones.self, Settings.self, Summary.self, Reimport.self, Render.self, Keygen.self, Token.self,
            Index.self,
        ])

    public init() {}

    /// Runs the command line, but first catches a mistyped subcommand (`stauts`, `enqeue`), which
    /// ArgumentParser would report as an unexpected argument or blame on the next option, and
    /// names the subcommand it is closest to.
    public static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let message = unknownSubcommandMessage(first) {
            printError(message)
            Self.exit(withError: ExitCode.validationFailure)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// What to say about `word` in the subcommand's place, or `nil` when it is a subcommand, an
    /// option, or too far from every subcommand to guess.
    static func unknownSubcommandMessage(_ word: String) -> String? {
        guard !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        let lowered = word.lowercased()
        var best: (name: String, distance: Int)? = nil
        for name in names.sorted() {
            let distance = editDistance(lowered, name)
            if best == nil || distance < best!.distance { best = (name, distance) }
        }
        guard let best, best.distance <= max(1, best.name.count / 3) else {
            return "'\(word.escapedForDisplay)' is not a workctl command (see workctl --help)"
        }
        return "'\(word.escapedForDisplay)' is not a workctl command; did you mean '\(best.name)'?"
    }

    /// Levenshtein distance, with a swap of two neighbouring letters counted as one edit (``Spelling``).
    static func editDistance(_ a: String, _ b: String) -> Int {
        Spelling.distance(a, b)
    }
}

/// Options every command that talks to the coordinator takes.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            The coordinator's control endpoint (env WORKFEED_CONTROL); several coordinators of one index \
            comma-separated, tried in order until one answers.
            """)
    var coordinator: String = ProcessInfo.processInfo.environment["WORKFEED_CONTROL"] ?? "tcp://127.0.0.1:5556"

    @Option(name: .long, help: "Seconds to wait for each reply (for delete: for its next progress report).")
    var timeout: Int = 15

    @Option(name: .long, help: "This operator's CURVE key file from workctl keygen (env WORKFEED_KEY_FILE).")
    var keyFile: String?

    @Option(name: .long, help: "The coordinator's public key, with --key-file (env WORKFEED_SERVER_KEY).")
    var serverKey: String?

    /// Lowers the message size limit (256 MiB), so that tests can reach it with small files.
    @Option(name: .long, help: .hidden)
    var maxMessageBytes: Int64?

    mutating func validate() throws {
        // From the environment when not given (ArgumentParser reads no environment of its own).
        keyFile = keyFile ?? ProcessInfo.processInfo.environment["WORKFEED_KEY_FILE"]
        serverKey = serverKey ?? ProcessInfo.processInfo.environment["WORKFEED_SERVER_KEY"]
        _ = try Self.endpoints(coordinator, option: "--coordinator (WORKFEED_CONTROL)")
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

    /// The coordinators' control endpoints, in the order to try them.
    var coordinators: [String] { (try? EndpointList.parse(coordinator)) ?? [coordinator] }

    /// A client of the coordinators: a request goes to the first that answers, and workctl says
    /// on standard error when one did not.
    func client() throws -> ControlClient {
        try ControlClient(
            context: WorkCtlContext.shared, endpoints: coordinators, timeoutMilliseconds: timeout * 1000, curve: try curve(),
            maximumMessageSize: maxMessageBytes ?? WorkerMessage.maximumMessageSize,
            failover: { from, to, _ in printError("coordinator \(from) did not answer; trying \(to)") })
    }

    /// The endpoints of an option's comma-separated list (``EndpointList``), the option and the
    /// bad item named on error.
    static func endpoints(_ text: String, option: String) throws -> [String] {
        do {
            return try EndpointList.parse(text)
        } catch {
            throw ValidationError(
                "\(option): \(error.item.isEmpty ? "" : "'\(error.item)': ")\(error.reason)"
                    + (text.contains(",") ? " (item \(error.position) of '\(text)')" : ""))
        }
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
    /// `--wait --wait-timeout`: no worker was connected for that long; the pictures stay queued.
    static let gaveUp = ExitCode(75)
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
    /// Prints the error and turns it into workctl's exit code, by the coordinator's code (never
    /// its words): 69 when it did not answer or did not carry the request out for now (`busy`,
    /// `expired`: try again), 1 when it refused it.
    func exit() -> ExitCode {
        printError(description)
        guard fromCoordinator else { return WorkCtlExit.unavailable }
        switch code {
        case .busy?, .expired?: return WorkCtlExit.unavailable
        case .badRequest?, .notFound?, .forbidden?, .internal?, .emptyWorkout?, .idempotencyKeyReused?, nil: return WorkCtlExit.failed
        }
    }
}

/// Writes an error line on standard error, its text escaped as ``say(_:)`` does.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("workctl: \(message.escapedForDisplay)\n".utf8))
}

/// Prints a value as JSON (for `--json`), sorted keys, pretty, times with their fractions of a
/// second (``ISO8601Time``). Control and format characters in strings are written as `\uXXXX`
/// escapes (JSONEncoder leaves DEL, C1 controls and bidirectional overrides as they are), so that
/// JSON on a terminal is as safe as text.
/// - Parameter compact: one line (JSON lines), not indented.
func printJSON(_ value: some Encodable, compact: Bool = false) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = compact ? [.sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    let text = String(decoding: try encoder.encode(value), as: UTF8.self).jsonEscapedForDisplay
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Writes a line of output at once (unbuffered), so that results on standard output and progress
/// on standard error keep their order in a log. Names and texts in it may come from the wire (a
/// worker's name, a workout's, a failure's reason) or from files: control characters (a line
/// break that would forge a line, an escape sequence that would drive the terminal) and
/// bidirectional overrides are written escaped (``Swift/String/escapedForDisplay``).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line.escapedForDisplay + "\n").utf8))
}

/// Checks an `--owner` value (``Owner``), naming the option on error.
func validateOwner(_ owner: String?) throws {
    if let owner, let problem = Owner.problem(with: owner) { throw ValidationError("--owner: \(problem)") }
}

/// The help of a `--theme` option that asks the coordinator.
let themeOptionHelp = ArgumentHelp(
    "Themes, comma-separated: light, dark, or any the coordinator's themes setting lists (default: all of those); a name is \(Theme.rule).")

/// "1 workout", "2 workouts", "1,204 picture files": a count with its noun, grouped, in the
/// singular for one.
func counted(_ count: Int, _ noun: String) -> String {
    "\(ProgressMeter.grouped(count)) \(noun)\(count == 1 ? "" : "s")"
}
