/// A value for every case of an enum: a style table keyed by map area, road class, line or
/// label kind.
///
/// It is total by construction: the only way to make one gives a value for every case, so a
/// lookup never misses and a new case must be given its value wherever a table is made (the
/// compiler lists those places through the `switch` in each closure, or the missing key in a
/// literal, which ``init(_:)-(Dictionary)`` refuses).
public struct CaseTable<Key: CaseIterable & Hashable & Sendable, Value: Sendable & Hashable>: Sendable, Hashable {
    private var values: [Key: Value]

    /// A table with `value(key)` for every key.
    public init(_ value: (Key) throws -> Value) rethrows {
        var values: [Key: Value] = [:]
        for key in Key.allCases { values[key] = try value(key) }
        self.values = values
    }

    /// A table from a literal that names every key; `nil` when one is missing.
    public init?(_ literal: [Key: Value]) {
        guard Key.allCases.allSatisfy({ literal[$0] != nil }) else { return nil }
        values = literal
    }

    public subscript(key: Key) -> Value {
        // Every key has a value from the initialisers on; setting keeps it so.
        get { values[key]! }
        set { values[key] = newValue }
    }

    /// The keys with their values, in `allCases` order.
    public var entries: [(key: Key, value: Value)] { Key.allCases.map { ($0, self[$0]) } }
}
