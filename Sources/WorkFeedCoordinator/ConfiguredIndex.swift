import WorkFeedConfig
import WorkFeedIndex

/// The index a coordinator's configuration names: the one place a backend is chosen.
///
/// Everything that opens the index (the dispatcher's writer, the read service, the gauges, the
/// start sweeps) is generic over ``IndexBackend`` and reached from ``Coordinator/start()``'s
/// `switch` over this, so that each backend gets the coordinator's code specialized for it and
/// no hot path calls through a witness table. A new backend is a case here and its arm there.
enum ConfiguredIndex: Sendable {
    /// `index.path`: the embedded SQLite file, one coordinator's.
    case sqlite(SQLiteIndexBackend)

    init(_ configuration: CoordinatorConfiguration) {
        let durability: WorkoutIndex.Durability =
            switch configuration.durability {
            case .full: .full
            case .normal: .normal
            }
        self = .sqlite(SQLiteIndexBackend(path: configuration.indexPath, durability: durability, defaultOwner: configuration.defaultOwner))
    }

    /// Where the index is, for logs.
    var location: String {
        switch self {
        case .sqlite(let backend): backend.location
        }
    }
}
