/// A picture's colour scheme, by name: `light`, `dark`, or any theme the coordinator's
/// configuration declares (`themes`, with `styles.<name>.*` and `maps.<name>.*`). The feed picks
/// one by the viewer's system theme.
///
/// A theme is data, not a case: what it looks like is a ``RouteStyle`` and a ``MapStyle`` looked
/// up by its name, and which themes exist is the configuration's list. This type only checks that
/// a name can be one: it appears in picture file names (`…_heartrate_sepia@2x.png`), URL paths
/// and index rows, so it is 1 to 32 lower-case letters, digits and `-`, starting with a letter
/// (no `_`, `.`, `/` or `@`, which those names use as separators).
public struct Theme: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// `nil` when `rawValue` cannot be a theme's name (``isWellFormed(_:)``).
    public init?(rawValue: String) {
        guard Self.isWellFormed(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// The two themes the shipped configuration draws ahead; their looks are
    /// ``RouteStyle/light``/``MapStyle/light`` and ``RouteStyle/dark``/``MapStyle/dark``.
    public static let light = Theme(rawValue: "light")!
    public static let dark = Theme(rawValue: "dark")!

    /// The shipped theme drawn on request only: its background is see-through, so its pictures
    /// have no map and lay over a photo (``RouteStyle/transparent``).
    public static let transparent = Theme(rawValue: "transparent")!

    /// The themes a configuration draws ahead when it names none (`themes`).
    public static let shipped = [light, dark]
    /// The themes a configuration draws on request when it names none (`on_request_themes`).
    public static let shippedOnRequest = [transparent]

    /// What a theme's name must be, said to whoever gave a bad one.
    public static let rule = "1 to 32 lower-case letters, digits and '-', starting with a letter"

    /// Whether `name` can be a theme's name: 1 to 32 of `a-z`, `0-9` and `-`, starting with a letter.
    public static func isWellFormed(_ name: some StringProtocol) -> Bool {
        guard let first = name.utf8.first, (97...122).contains(first), name.utf8.count <= 32 else { return false }
        return name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let theme = Theme(rawValue: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text.prefix(40))' is not a theme name (\(Self.rule))"))
        }
        self = theme
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (a: Theme, b: Theme) -> Bool { a.rawValue < b.rawValue }

    public var description: String { rawValue }
}
