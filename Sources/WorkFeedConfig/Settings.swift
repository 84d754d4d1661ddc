import Configuration
import Foundation
import SystemPackage
import Yams
import WorkFeedModel

/// Configuration values from, in order of precedence: command-line flags, environment variables
/// (`WORKFEED_` + the key in upper case with `_` for `.`, e.g. `WORKFEED_CACHE_DIRECTORY`), the
/// YAML file, and the embedded defaults.
///
/// Every value is read as text and parsed here, so that a bad one stops the process with the key,
/// the value and what is allowed, instead of silently falling back to a default.
public struct Settings: Sendable {
    let reader: ConfigReader
    let file: String?
    let environment: [String: String]
    let overrides: [String: String]

    /// - Parameters:
    ///   - file: a YAML file, or `nil` for the embedded defaults alone.
    ///   - knownKeys: every key the file may hold; any other is a typo and an error. `nil`: the
    ///     caller checks the file itself (``checkKeys(file:known:themes:)``), once it knows which
    ///     keys depend on others (the themes a coordinator lists).
    ///   - environment: the process environment (tests pass their own).
    ///   - overrides: values from command-line flags, by key.
    public init(
        file: String?, knownKeys: Set<String>?, environment: [String: String], overrides: [String: String]
    ) async throws(ConfigurationError) {
        var providers: [any ConfigProvider] = []
        providers.append(
            InMemoryProvider(
                name: "flags",
                values: Dictionary(
                    uniqueKeysWithValues: overrides.map {
                        (AbsoluteConfigKey($0.key.split(separator: ".").map(String.init)), ConfigValue(.string($0.value), isSecret: false))
                    })))
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "workfeed"))
        if let file {
            if let knownKeys { try Self.checkKeys(file: file, known: knownKeys) }
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
            } catch {
                throw ConfigurationError(key: "(file)", value: file, allowed: "cannot read it as YAML: \(error)")
            }
        }
        reader = ConfigReader(providers: providers)
        self.file = file
        self.environment = environment
        self.overrides = overrides
    }

    /// Rejects keys the program does not know: a misspelt key would otherwise be ignored silently.
    /// - Parameter themes: the configured themes: a key under `styles.` or `maps.` for a theme not
    ///   among them says so, beside the nearest known keys.
    static func checkKeys(file: String, known: Set<String>, themes: [Theme] = []) throws(ConfigurationError) {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ConfigurationError(key: "(file)", value: file, allowed: "cannot read the file: \(error.localizedDescription)")
        }
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            throw ConfigurationError(key: "(file)", value: file, allowed: "not valid YAML: \(error)")
        }
        guard let root else { return }
        func walk(_ node: Node, prefix: String) throws(ConfigurationError) {
            guard let mapping = node.mapping else { return }
            for (keyNode, value) in mapping {
                let key = prefix.isEmpty ? (keyNode.string ?? "?") : prefix + "." + (keyNode.string ?? "?")
                if known.contains(key) { continue }
                // An unknown top-level section is walked too, so that the key named is the whole
                // one (`listen.metrics`, for which `metrics.listen` is suggested); deeper, the
                // section is named (`maps.light.labels.castle`: no such label kind).
                if let mapping = value.mapping, !mapping.isEmpty,
                    prefix.isEmpty || known.contains(where: { $0.hasPrefix(key + ".") })
                {
                    try walk(value, prefix: key)
                    continue
                }
                let line = keyNode.mark.map { ":\($0.line)" } ?? ""
                throw ConfigurationError(key: key, value: nil, allowed: unknownKeyMessage(key, known: known, themes: themes), file: file + line)
            }
        }
        try walk(root, prefix: "")
    }

    /// "unknown key; did you mean 'listen.workers'?": the nearest known keys, never the whole list
    /// (a daemon knows hundreds). A section (`maps.lihgt`) is matched against the known sections
    /// of its depth (`maps.light`), a key against the known keys.
    static func unknownKeyMessage(_ key: String, known: Set<String>, themes: [Theme] = []) -> String {
        let depth = key.split(separator: ".").count
        let candidates = Set(known.map { $0.split(separator: ".").prefix(depth).joined(separator: ".") })
        let near = Spelling.nearest(key, among: candidates.sorted())
        let parts = key.split(separator: ".")
        var theme = ""
        if parts.count >= 2, ["styles", "maps"].contains(parts[0]), Theme.isWellFormed(parts[1]), !themes.contains(where: { $0.rawValue == parts[1] })
        {
            theme =
                "'\(parts[1])' is not one of the configured themes (\(Settings.themesKey) and \(Settings.onRequestThemesKey): "
                + "\(themes.map(\.rawValue).joined(separator: ", "))): list it in one to draw it; "
        }
        let guess: String =
            switch near.count {
            case 0: "no known key is close to it"
            case 1: "did you mean '\(near[0])'?"
            default: "did you mean " + near.dropLast().map { "'\($0)'" }.joined(separator: ", ") + " or '\(near.last!)'?"
            }
        return "unknown key; \(theme)\(guess) (the configuration files in Config/ show each of the \(known.count) keys, commented)"
    }

    func raw(_ key: String) -> String? {
        reader.string(forKey: ConfigKey(key.split(separator: ".").map(String.init)))
    }

    /// The environment variable that sets `key`.
    public static func environmentName(_ key: String) -> String {
        "WORKFEED_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// An error that names where the bad value came from: a flag, the environment, or the file.
    func invalid(_ key: String, _ value: String, _ allowed: String) -> ConfigurationError {
        let source: String? =
            if overrides[key] != nil { "a command-line flag" } else if environment[Self.environmentName(key)] != nil {
                "environment variable \(Self.environmentName(key))"
            } else { file }
        return ConfigurationError(key: key, value: value, allowed: allowed, file: source)
    }

    public func string(_ key: String, default value: String) -> String {
        raw(key) ?? value
    }

    public func int(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let text = raw(key) else { return value }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            throw invalid(key, text, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    public func double(_ key: String, default value: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard let text = raw(key) else { return value }
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, range.contains(number) else {
            throw invalid(key, text, "a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    public func choice<T: RawRepresentable & CaseIterable>(_ key: String, default value: T) throws(ConfigurationError) -> T
    where T.RawValue == String {
        guard let text = raw(key) else { return value }
        guard let choice = T(rawValue: text) else {
            throw invalid(key, text, "one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return choice
    }

    public func bool(_ key: String, default value: Bool) throws(ConfigurationError) -> Bool {
        guard let text = raw(key) else { return value }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw invalid(key, text, "true or false")
        }
    }

    /// A list: a YAML sequence, or (from a flag or an environment variable, which hold text) the
    /// text split at commas.
    public func strings(_ key: String, default value: [String]) -> [String] {
        if let list = reader.stringArray(forKey: ConfigKey(key.split(separator: ".").map(String.init))) { return list }
        guard let text = raw(key) else { return value }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
