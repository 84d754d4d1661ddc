public import Foundation

/// A workout's identifier in the index: a UUID, written in lower case everywhere (paths, wire, logs).
public struct WorkoutID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses a UUID in any case; `nil` when the text is not one.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// The lower-case form used in paths and on the wire.
    public var description: String { uuid.uuidString.lowercased() }

    public static func < (lhs: WorkoutID, rhs: WorkoutID) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let uuid = UUID(uuidString: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
        }
        self.uuid = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
