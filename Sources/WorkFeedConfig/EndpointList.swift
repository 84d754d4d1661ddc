import Foundation

/// ZeroMQ endpoints as WorkFeed's settings and options write them: one endpoint
/// (`tcp://coordinator-host:5555`), or a list of them, comma-separated
/// (`tcp://coordinator-a:5555,tcp://coordinator-b:5555`), for the coordinators of one PostgreSQL
/// index (docs/operations.md, "Several coordinators on PostgreSQL").
///
/// The one place that says what an endpoint and a list of them are: the configuration files'
/// keys (``Settings/endpoint(_:default:)``, ``Settings/endpoints(_:default:)``) and workctl's
/// options (`--coordinator`, `--events`) ask it, and each names its own key or option on error.
public enum EndpointList {
    /// The transports WorkFeed's sockets use.
    public static let schemes = ["tcp://", "ipc://", "inproc://"]

    /// What an endpoint looks like, for error messages.
    public static let expected = "a ZeroMQ endpoint such as tcp://127.0.0.1:5555 (tcp://, ipc:// or inproc://)"

    /// Why `text` is not one endpoint, or `nil` when it is.
    public static func problem(_ text: String) -> String? {
        guard let scheme = schemes.first(where: { text.hasPrefix($0) }) else { return expected }
        guard text.count > scheme.count else { return "\(expected): the address after \(scheme) is missing" }
        return nil
    }

    /// The endpoints of a comma-separated list, each trimmed of spaces around it, in order.
    /// - Throws: ``Problem`` naming the first bad item: not an endpoint, empty (`a,,b`, a comma at
    ///   an end), or listed twice.
    public static func parse(_ text: String) throws(Problem) -> [String] {
        try parse(items: [text])
    }

    /// The endpoints of several texts, each of which may itself be a comma-separated list (a YAML
    /// sequence of endpoints, or of lists).
    /// - Throws: ``Problem`` naming the first bad item.
    public static func parse(items texts: [String]) throws(Problem) -> [String] {
        var endpoints: [String] = []
        for text in texts {
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let item = part.trimmingCharacters(in: .whitespaces)
                guard !item.isEmpty else {
                    throw Problem(item: "", position: endpoints.count + 1, reason: "an empty item: endpoints are separated by single commas")
                }
                if let reason = problem(item) { throw Problem(item: item, position: endpoints.count + 1, reason: reason) }
                guard !endpoints.contains(item) else {
                    throw Problem(item: item, position: endpoints.count + 1, reason: "listed twice")
                }
                endpoints.append(item)
            }
        }
        guard !endpoints.isEmpty else { throw Problem(item: "", position: 1, reason: "at least one endpoint") }
        return endpoints
    }

    /// A list as settings write it: the endpoints joined by commas.
    public static func text(_ endpoints: [String]) -> String {
        endpoints.joined(separator: ",")
    }

    /// A bad item of a list: which (``item``, its ``position`` from 1) and why (``reason``).
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The item as written (trimmed); empty for an empty item.
        public var item: String
        /// Its place in the list, from 1.
        public var position: Int
        public var reason: String

        public var description: String {
            "item \(position) '\(item)': \(reason)"
        }
    }
}

extension Settings {
    /// One endpoint (a `listen.*` key: a socket binds one).
    func endpoint(_ key: String, default value: String) throws(ConfigurationError) -> String {
        let text = string(key, default: value)
        if let reason = EndpointList.problem(text) { throw invalid(key, text, reason) }
        return text
    }

    /// A list of endpoints (``EndpointList``): a comma-separated text, or a YAML sequence.
    /// - Throws: ``ConfigurationError`` naming the key and the bad item as its value.
    public func endpoints(_ key: String, default value: [String]) throws(ConfigurationError) -> [String] {
        // The text as written when it is text (``strings(_:default:)`` would drop an empty item).
        let items = raw(key).map { [$0] } ?? strings(key, default: value)
        do {
            return try EndpointList.parse(items: items)
        } catch {
            let whole = items.joined(separator: ",")
            throw invalid(
                key, error.item,
                error.reason + (items.count == 1 && !whole.contains(",") ? "" : " (item \(error.position) of '\(whole)')"))
        }
    }
}
