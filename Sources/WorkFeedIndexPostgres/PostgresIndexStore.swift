public import Logging
import PostgresNIO
public import WorkFeedIndex

/// The PostgreSQL index (issue 34) as the coordinator opens it: where it is and which
/// coordinator opens it (the holder of the leases its writer takes). Each thread opens its own
/// connection from it.
public struct PostgresIndexBackend: IndexBackend {
    public let index: PostgresIndexLocation
    /// This coordinator's id, unique among the coordinators sharing the index.
    public let coordinator: String
    /// Where its workers and clients connect, as `workctl status` shows it.
    public let endpoints: String
    /// How long a term as leader lasts unless renewed (``PostgresLeader/defaultTermSeconds``).
    public let termSeconds: Double
    /// How long a lease lives unless renewed: when this coordinator dies, its jobs are leased
    /// again by the others this long after its last renewal (`index.lease_seconds`).
    public let leaseSeconds: Double

    public init(
        _ index: PostgresIndexLocation, coordinator: String, endpoints: String = "", termSeconds: Double = PostgresLeader.defaultTermSeconds,
        leaseSeconds: Double = PostgresLeases.defaultLeaseSeconds
    ) {
        self.index = index
        self.coordinator = coordinator
        self.endpoints = endpoints
        self.termSeconds = termSeconds
        self.leaseSeconds = leaseSeconds
    }

    public var location: String { index.description }

    /// Connects and brings the schema up to date (several coordinators starting at once run a
    /// migration once: ``PostgresSchema/migrate(_:appliedBy:)``). Several writers are admitted:
    /// the index is shared.
    public func openWriter(logger: Logger) throws(IndexError) -> PostgresIndexStore {
        let session = try PostgresSession.connect(to: index, name: "\(coordinator) writer", logger: logger)
        do {
            try PostgresSchema.migrate(session, appliedBy: coordinator)
            // A coordinator opening again (restarted under the same id) starts with no leases,
            // as SQLite's does: its previous run's workers' reports will find nothing.
            try session.transaction("returning the leases of \(coordinator)'s previous run") {
                try PostgresLeases.returnAll(of: coordinator, in: session)
                try PostgresCoordinators.register(coordinator, endpoints: endpoints, in: session)
            }
        } catch {
            session.close()
            throw error
        }
        let store = PostgresIndexStore(session: session, coordinator: coordinator, termSeconds: termSeconds, leaseSeconds: leaseSeconds)
        _ = store.anchor
        return store
    }

    public func openReader(logger: Logger) throws(IndexError) -> PostgresReadConnection {
        PostgresReadConnection(session: try PostgresSession.connect(to: index, name: "\(coordinator) reader", logger: logger))
    }
}

/// A read-only connection of one thread's.
public final class PostgresReadConnection: IndexReadConnection {
    let session: PostgresSession

    init(session: PostgresSession) { self.session = session }

    deinit { session.close() }

    /// `body` in one transaction, `REPEATABLE READ, READ ONLY`: one committed state throughout.
    public func read<T>(_ body: (PostgresReader) throws -> T) throws(IndexError) -> T {
        try session.transaction("reading", isolation: .snapshot) { try body(PostgresReader(session: session)) }
    }
}

/// A coordinator's writer on the PostgreSQL index: its transactions (``PostgresTransaction``) and
/// reads beside them, on one connection of the index thread's.
public final class PostgresIndexStore: WorkoutIndexStore {
    let session: PostgresSession
    public let coordinator: String
    public var summaryZoneDefaults: SummaryZoneDefaults = .standard
    /// Kept from one transaction to the next, as a committed transaction left it.
    private var lastServed: [Int64: String] = [:]
    private var lastAnchor: Int64 = 0
    /// Whether a write committed since ``lastAnchor`` was read.
    private var anchorOutdated = true
    /// This writer's term as leader, as its last committed transaction left it.
    private var leadership: PostgresLeadership
    /// The session's reconnections this writer has made up for (``writeReleasingKeys(_:releasing:)``).
    private var reconnectionsSeen = 0

    private let leaseSeconds: Double

    init(session: PostgresSession, coordinator: String, termSeconds: Double, leaseSeconds: Double) {
        self.session = session
        self.coordinator = coordinator
        self.leaseSeconds = leaseSeconds
        leadership = PostgresLeadership(termSeconds: termSeconds)
    }

    deinit { session.close() }

    /// The anchor every smaller one is committed or gone below (``PostgresChanges/currentAnchor(in:)``)
    /// when the store opened or after its last committed write: read when first asked after a
    /// commit (a rolled-back write leaves it as it was), the last one read when the server cannot
    /// be asked.
    public var anchor: Int64 {
        if anchorOutdated, let current = try? PostgresChanges.currentAnchor(in: session) {
            lastAnchor = current
            anchorOutdated = false
        }
        return lastAnchor
    }

    /// This coordinator's leases (a gauge: the last count is not kept; 0 when it cannot be read).
    public var leasedCount: Int { (try? PostgresLeases.count(of: coordinator, in: session)) ?? 0 }

    public func read<T>(_ body: (PostgresReader) throws -> T) throws(IndexError) -> T {
        try session.transaction("reading", isolation: .snapshot) { try body(PostgresReader(session: session)) }
    }

    /// A conflict with another coordinator's transaction (a deadlock) is thrown as
    /// ``IndexError/Code/conflict``, the transaction rolled back: the caller runs it again.
    public func write<T>(_ body: (inout PostgresTransaction) throws -> T) throws(IndexError) -> T {
        try writeReleasingKeys(body, releasing: false).result
    }

    public func writeReleasingKeys<T>(_ body: (inout PostgresTransaction) throws -> T) throws(IndexError) -> (result: T, released: ReleasedPictures) {
        try writeReleasingKeys(body, releasing: true)
    }

    private func writeReleasingKeys<T>(
        _ body: (inout PostgresTransaction) throws -> T, releasing: Bool
    ) throws(IndexError) -> (result: T, released: ReleasedPictures) {
        // A connection lost during a write leaves its outcome unknown (a COMMIT the server may have
        // made before it went): leases it may have taken were never sent. Every lease of this
        // coordinator is returned first, as after a restart, and its workers' reports on them
        // are stale: their jobs are leased again, nothing is stored twice or lost.
        try session.reconnectIfLost()
        if session.reconnections != reconnectionsSeen {
            let returned = try session.transaction("returning the leases of \(coordinator) after the connection was lost") {
                try PostgresLeases.returnAll(of: coordinator, in: session)
            }
            reconnectionsSeen = session.reconnections
            session.logger.notice(
                "the index's connection was lost and made again: this coordinator's leases were returned; its workers' reports on them are stale",
                metadata: ["leases": "\(returned)"])
        }
        var served = lastServed
        var led = leadership
        // Never run again here: the coordinator's body keeps what it did beside the index, and
        // runs the whole batch again itself on a conflict (Dispatcher.process).
        let done = try session.transaction("writing", attempts: 1) {
            var transaction = PostgresTransaction(session: session, coordinator: coordinator, zoneDefaults: summaryZoneDefaults)
            transaction.lastServed = lastServed
            transaction.leadership = leadership
            transaction.leaseSeconds = leaseSeconds
            let result = try body(&transaction)
            try transaction.finish()
            served = transaction.lastServed
            led = transaction.leadership
            return (result, releasing ? try transaction.releasedPictures() : ReleasedPictures())
        }
        lastServed = served
        leadership = led
        anchorOutdated = true
        return done
    }

    /// Nothing to do: the server makes what it commits durable itself.
    public func checkpoint() throws(IndexError) {}

    /// Returns this coordinator's leases (the other coordinators lease its jobs at once), gives
    /// back its term if it leads (another leads at its next turn), and removes its registration.
    public func leave() throws(IndexError) {
        let term = leadership.term
        try session.transaction("leaving the index") {
            try PostgresLeases.returnAll(of: coordinator, in: session)
            if let term { try PostgresLeader.resign(term, in: session) }
            try PostgresCoordinators.deregister(coordinator, in: session)
        }
        leadership.term = nil
    }
}
