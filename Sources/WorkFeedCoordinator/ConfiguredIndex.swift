import Foundation
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedIndexPostgres

/// The index a coordinator's configuration names: the one place a backend is chosen.
///
/// Everything that opens the index (the dispatcher's writer, the read service, the gauges, the
/// start sweeps) is generic over ``IndexBackend`` and reached from ``Coordinator/start()``'s
/// `switch` over this, so that each backend gets the coordinator's code specialized for it and
/// no hot path calls through a witness table. A new backend is a case here and its arm there.
enum ConfiguredIndex: Sendable {
    /// `index.path`: the embedded SQLite file, one coordinator's.
    case sqlite(SQLiteIndexBackend)
    /// `index.url`: a PostgreSQL database several coordinators share (docs/postgres-index.md).
    case postgres(PostgresIndexBackend)

    /// - Throws: ``IndexError`` for an `index.url` or `index.password_file` that cannot be used
    ///   (the message names the key).
    init(_ configuration: CoordinatorConfiguration) throws(IndexError) {
        guard configuration.indexURL.isEmpty else {
            let location = try PostgresIndexLocation(
                url: configuration.indexURL, passwordFile: configuration.indexPasswordFile.isEmpty ? nil : configuration.indexPasswordFile)
            let endpoints = "workers \(configuration.workerEndpoint) control \(configuration.controlEndpoint) events \(configuration.eventsEndpoint)"
            self = .postgres(
                PostgresIndexBackend(
                    location, coordinator: Self.coordinatorID(configuration), endpoints: endpoints, leaseSeconds: Double(configuration.leaseSeconds)))
            return
        }
        let durability: WorkoutIndex.Durability =
            switch configuration.durability {
            case .full: .full
            case .normal: .normal
            }
        self = .sqlite(SQLiteIndexBackend(path: configuration.indexPath, durability: durability, defaultOwner: configuration.defaultOwner))
    }

    /// `coordinator.id`, else this host's name and the control endpoint (unique on a host: it is
    /// bound), so that a restarted coordinator is the same one.
    static func coordinatorID(_ configuration: CoordinatorConfiguration) -> String {
        configuration.coordinatorID.isEmpty ? "\(ProcessInfo.processInfo.hostName) \(configuration.controlEndpoint)" : configuration.coordinatorID
    }

    /// Where the index is, for logs.
    var location: String {
        switch self {
        case .sqlite(let backend): backend.location
        case .postgres(let backend): backend.location
        }
    }
}
