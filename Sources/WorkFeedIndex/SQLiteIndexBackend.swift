public import Logging
public import WorkFeedModel

/// The embedded index: one SQLite file (``WorkoutIndex``), written by one coordinator, which keeps
/// its leases in memory. The default, and all `make demo` needs.
public struct SQLiteIndexBackend: Sendable, Hashable {
    /// The index file (`index.path`).
    public var path: String
    /// How durable each transaction is (`index.durability`).
    public var durability: WorkoutIndex.Durability
    /// The owner the "v7: owners" migration gives workouts stored before owners existed
    /// (`owners.default`).
    public var defaultOwner: String

    public init(path: String, durability: WorkoutIndex.Durability = .full, defaultOwner: String = Owner.defaultName) {
        self.path = path
        self.durability = durability
        self.defaultOwner = defaultOwner
    }

    public var location: String { path }

    /// Opens (creating if needed) the index file and takes its writer's lock
    /// (``WorkoutIndex/init(path:durability:defaultOwner:logger:)``).
    public func openWriter(logger: Logger) throws(IndexError) -> WorkoutIndex {
        try WorkoutIndex(path: path, durability: durability, defaultOwner: defaultOwner, logger: logger)
    }

    /// A read-only connection (``WorkoutIndex/init(readingFrom:logger:)``): WAL lets it read
    /// beside the writer.
    public func openReader(logger: Logger) throws(IndexError) -> WorkoutIndex {
        try WorkoutIndex(readingFrom: path, logger: logger)
    }
}
