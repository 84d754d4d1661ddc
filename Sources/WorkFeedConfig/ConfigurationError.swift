/// Configuration that cannot be used. Names the key, the value and what is allowed, and where the
/// value came from when known, so the operator can fix it at once.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var value: String?
    public var allowed: String
    /// Where the value came from: the file (with its line for unknown keys), an environment
    /// variable or a flag; `nil` for a default.
    public var file: String?

    public init(key: String, value: String?, allowed: String, file: String? = nil) {
        self.key = key
        self.value = value
        self.allowed = allowed
        self.file = file
    }

    public var description: String {
        let place = file.map { " (from \($0))" } ?? ""
        let shown = value.map { " = '\($0)'" } ?? ""
        return "invalid configuration\(place): \(key)\(shown): \(allowed)"
    }
}
