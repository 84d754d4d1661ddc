public import ArgumentParser
import Foundation

/// The options every daemon takes (`--config`, `--log-level`, `--log-format`), and loading its
/// configuration the same way: flags over environment over file over defaults, and a bad value
/// printed as `program: invalid configuration …` with exit code 78 (EX_CONFIG).
public struct DaemonOptions: ParsableArguments {
    @Option(name: .long, help: "A YAML configuration file (the one in Config/ documents every key).")
    public var config: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical (log.level).")
    public var logLevel: String?

    @Option(name: .long, help: "text or json (log.format).")
    public var logFormat: String?

    public init() {}

    /// Loads the configuration with `load`, the flags given as `overrides` (by key; `nil`: not given).
    /// - Throws: `ExitCode(78)` after printing what is wrong.
    public func load<Configuration>(
        _ program: String, overrides: [String: String?],
        _ load: (_ file: String?, _ environment: [String: String], _ overrides: [String: String]) async throws(ConfigurationError) -> Configuration
    ) async throws -> Configuration {
        var flags = overrides.compactMapValues { $0 }
        flags["log.level"] = logLevel
        flags["log.format"] = logFormat
        do {
            return try await load(config, ProcessInfo.processInfo.environment, flags)
        } catch {
            FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }
}
